/**
 * The independent verifier's rounding of a quantity (part of openfrmt-verifier.ts, nothing from src/, by its
 * own arithmetic: the service's is platform/money.ts, on the quantity's decimal digits in BigInt).
 */

/**
 * A quantity in ten-thousandths, as D110/1264 (`X9(12)v9999`) carries it, half away from zero as decisions.md
 * rounds every figure: the magnitude is rounded and the sign put back (Math.round alone takes −2.5 to −2), once
 * q × 10,000 is cut to 6 decimals so its binary noise (0.00015 × 10,000 = 1.4999999999999998) moves no half.
 */
export function tenThousandthsOf(q: number): bigint {
  const r = Math.round(Number((Math.abs(q) * 10_000).toFixed(6)));
  return BigInt(q < 0 ? -r : r);
}

/**
 * Money arithmetic, one rounding rule: half away from zero, the same for negatives as for positives
 * (2.5 → 3, −2.5 → −3), and the one rounding of quantities. Pure; src/openfrmt reads it too (its quantities).
 */

/**
 * Rounds half away from zero to an integer (agorot): 2.5 → 3, -2.5 → -3.
 * The value is first cut to 6 decimals so binary noise (1.005 * 100 = 100.49999999999999)
 * rounds the way the decimal arithmetic a person does on paper would.
 */
export function roundHalfAwayFromZero(x: number): number {
  const cleaned = Number(Math.abs(x).toFixed(6));
  const r = Math.floor(cleaned + 0.5);
  return x < 0 ? -r : r;
}

/** n / d rounded half away from zero, in integers (d > 0). */
export function divideHalfAwayFromZero(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const q = ((negative ? -n : n) * 2n + d) / (2n * d);
  return negative ? -q : q;
}

/**
 * A number exactly as its shortest decimal form says (what a client sent: 2.5, 0.3335, 1e-7):
 * digits / 10^scale. Never a binary fraction.
 */
function decimalOf(x: number): { digits: bigint; scale: number } {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`not a decimal number: ${x}`);
  const [, sign, whole, fraction = '', exponent = '0'] = m;
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: sign ? -digits : digits, scale };
}

/**
 * A quantity as an integer of its field's smallest unit (OPENFRMT D110/1264 carries 4 decimals:
 * 2.5 → 25000), rounded half away from zero from its exact decimal value.
 */
export function scaledQuantity(quantity: number, decimals: number): number {
  const { digits, scale } = decimalOf(quantity);
  const scaled = scale <= decimals ? digits * 10n ** BigInt(decimals - scale) : divideHalfAwayFromZero(digits, 10n ** BigInt(scale - decimals));
  return Number(scaled) + 0; // never −0
}

/** Quantities are kept, multiplied, printed and exported to 4 decimals: OPENFRMT D110/1264 is X9(12)v9999. */
const QUANTITY_DECIMALS = 4;
const QUANTITY_SCALE = 10 ** QUANTITY_DECIMALS;

/**
 * The one rounding of quantities: ten-thousandths, half away from zero from the quantity's exact decimal
 * (2.00015 → 20002, −2.00015 → −20002), as decisions.md rounds every figure of a document. Not
 * Math.round(q × 10,000): it takes a half toward +∞ (−0.00025 → −2, not −3) and sees the binary product
 * (0.00015 × 10,000 = 1.4999999999999998 → 1, not 2). The line amount, the export's D110/1264, the
 * export's own check of it, the PDF and the console all count a quantity this way.
 */
export function quantityTenThousandths(quantity: number): number {
  return scaledQuantity(quantity, QUANTITY_DECIMALS);
}

/** Ten-thousandths back to a quantity (the nearest double to a 4-decimal number prints as that number). */
export function quantityOfTenThousandths(tenThousandths: number): number {
  return tenThousandths / QUANTITY_SCALE;
}

/** A quantity as people read it: to 4 decimals, no trailing zeros (1.5, 0.3333, 2). */
export function quantityText(quantity: number): string {
  return String(quantityOfTenThousandths(quantityTenThousandths(quantity)));
}

/**
 * round(quantity × price), half away from zero, exactly: the quantity is taken as the decimal it was
 * written as and the product made in integers, so it is never off by binary noise (1.005 × 100 =
 * 100.5 → 101) and a negative product rounds as its positive does (−100.5 → −101). Every line
 * amount of a document (in its currency and in shekels) is this product less the line discount.
 */
export function quantityTimesPrice(quantity: number, price: number): number {
  if (!Number.isSafeInteger(price)) throw new RangeError(`a price is a whole number of minor units, got ${price}`);
  const { digits, scale } = decimalOf(quantity);
  return Number(divideHalfAwayFromZero(digits * BigInt(price), 10n ** BigInt(scale))) + 0;
}

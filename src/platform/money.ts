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

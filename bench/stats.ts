/** The q-quantile of the values (NaN when there are none): the value at rank floor(q * n) once sorted. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Milliseconds for a results table: whole from 100 ms, one decimal from 1 ms, microseconds below. */
export function ms(v: number): string {
  return Number.isNaN(v) ? 'n/a' : v >= 100 ? `${v.toFixed(0)} ms` : v >= 1 ? `${v.toFixed(1)} ms` : `${(v * 1000).toFixed(0)} µs`;
}

/** Equal to a billionth (sums of the same costs in another order). */
export function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

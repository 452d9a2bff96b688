/**
 * The row of a CSR layout that holds entry `index`: the v with first[v] <= index < first[v + 1]
 * (binary search; `first` has one more element than there are rows). With empty rows, the last
 * of the rows that start at or before `index` (the one that holds it).
 */
/** The index of `value` in an ascending array, or -1 when it is not there (binary search). */
export function sortedIndexOf(sorted: ArrayLike<number>, value: number): number {
  let lo = 0, hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else if (sorted[mid] > value) hi = mid - 1;
    else return mid;
  }
  return -1;
}

export function csrRow(first: Uint32Array, index: number): number {
  let lo = 0, hi = first.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (first[mid] <= index) lo = mid; else hi = mid - 1;
  }
  return lo;
}

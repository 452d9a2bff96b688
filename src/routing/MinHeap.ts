/**
 * A binary min-heap of (key, value) pairs in typed arrays. No decrease-key: a search pushes a
 * node again when its cost improves and skips stale entries when they surface.
 */
export class MinHeap {
  private keys: Float64Array;
  private values: Uint32Array;
  size = 0;

  constructor(capacity = 1024) {
    this.keys = new Float64Array(capacity);
    this.values = new Uint32Array(capacity);
  }

  clear(): void {
    this.size = 0;
  }

  push(key: number, value: number): void {
    if (this.size === this.keys.length) this.grow();
    const keys = this.keys;
    const values = this.values;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent];
      if (pk <= key) break;
      keys[i] = pk;
      values[i] = values[parent];
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** The smallest key; only valid when size > 0. */
  peekKey(): number {
    return this.keys[0];
  }

  /** Removes the smallest entry and returns its value; only valid when size > 0. */
  pop(): number {
    const keys = this.keys;
    const values = this.values;
    const top = values[0];
    const n = --this.size;
    if (n > 0) {
      const key = keys[n];
      const value = values[n];
      let i = 0;
      const half = n >> 1;
      while (i < half) {
        let child = 2 * i + 1;
        const right = child + 1;
        if (right < n && keys[right] < keys[child]) child = right;
        if (keys[child] >= key) break;
        keys[i] = keys[child];
        values[i] = values[child];
        i = child;
      }
      keys[i] = key;
      values[i] = value;
    }
    return top;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    const values = new Uint32Array(this.values.length * 2);
    keys.set(this.keys);
    values.set(this.values);
    this.keys = keys;
    this.values = values;
  }
}

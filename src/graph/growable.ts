type TypedArrayCtor<T> = { new (length: number): T };

/** An append-only typed array that doubles its capacity; `view()` returns the filled part. */
export class Growable<T extends Float64Array | Uint32Array | Int32Array | Uint8Array | Float32Array> {
  private data: T;
  length = 0;

  constructor(private readonly Ctor: TypedArrayCtor<T>, capacity = 1024) {
    this.data = new Ctor(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new this.Ctor(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  get(i: number): number {
    return this.data[i];
  }

  /** A copy trimmed to the filled length. */
  toArray(): T {
    return this.data.slice(0, this.length) as T;
  }
}

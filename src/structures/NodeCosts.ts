/**
 * Costs of the few thousand nodes one bounded search touches, by node id: an open-addressing
 * hash table (linear probing) in typed arrays, grown as needed, cleared in O(touched). For a
 * search that must not hold a word per graph node (NodeRecords) and runs beside one that does.
 */
export class NodeCosts {
  private keys: Int32Array;
  /** Per slot: its node's cost. */
  costs: Float64Array;
  /** Per slot: 1 once its node is settled. */
  done: Uint8Array;
  private bits: number;
  private readonly used: number[] = [];

  constructor(initialBits = 12) {
    this.bits = initialBits;
    this.keys = new Int32Array(1 << initialBits).fill(-1);
    this.costs = new Float64Array(1 << initialBits);
    this.done = new Uint8Array(1 << initialBits);
  }

  /** Nodes held. */
  get size(): number {
    return this.used.length;
  }

  /** v's slot, or -1. */
  find(v: number): number {
    const mask = (1 << this.bits) - 1;
    for (let s = Math.imul(v, 0x9e3779b1) >>> (32 - this.bits); ; s = (s + 1) & mask) {
      const k = this.keys[s];
      if (k === v) return s;
      if (k === -1) return -1;
    }
  }

  /** A new slot for v (not held), its cost and done mark zero. May move every slot (when grown). */
  add(v: number): number {
    if (2 * (this.used.length + 1) > this.keys.length) this.grow();
    const mask = (1 << this.bits) - 1;
    let s = Math.imul(v, 0x9e3779b1) >>> (32 - this.bits);
    while (this.keys[s] !== -1) s = (s + 1) & mask;
    this.keys[s] = v;
    this.costs[s] = 0;
    this.done[s] = 0;
    this.used.push(s);
    return s;
  }

  clear(): void {
    for (const s of this.used) this.keys[s] = -1;
    this.used.length = 0;
  }

  private grow(): void {
    const { keys, costs, done, used } = this;
    const nodes = used.map((s) => keys[s]), held = used.map((s) => costs[s]), settled = used.map((s) => done[s]);
    this.bits++;
    this.keys = new Int32Array(1 << this.bits).fill(-1);
    this.costs = new Float64Array(1 << this.bits);
    this.done = new Uint8Array(1 << this.bits);
    used.length = 0;
    for (let i = 0; i < nodes.length; i++) {
      const s = this.add(nodes[i]);
      this.costs[s] = held[i];
      this.done[s] = settled[i];
    }
  }
}

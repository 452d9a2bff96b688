import { prefault } from './prefault.js';

/** Searches over which NodeRecords watches its largest use before giving room back. */
export const SHRINK_WINDOW = 64;

/**
 * Search state of the nodes one search touches, as a sparse set (Briggs and Torczon, "An
 * efficient representation for sparse sets", 1993): per graph node one word, `entryOf[v]`, and per
 * touched node a 16-byte entry, appended in touch order: `values[2i]` a cost (float64) and, in the
 * int32 view over the same bytes, `words[4i + 2]` the node and `words[4i + 3]` a link (a parent
 * node, arc or edge, or what phase of a search wrote the entry). v's entry is valid when
 * entryOf[v] < count and the entry names v, so clear() is O(1), with no stamps to wrap.
 *
 * Per node 4 bytes instead of a 16-byte record: a search touches a small part of a country (a free
 * CH query a few thousand nodes, a zoned A* and its potential some hundred thousand of 5M), and
 * the entries it touched sit together, a few cache lines where a record per node spread them over
 * the graph's whole range. Entries grow with the largest search (twice the room when full, up to
 * one per node) and are kept for the next; when the largest of the last SHRINK_WINDOW searches
 * used under a quarter of the room, clear() gives back all but twice that (a zoned detour that
 * touched every node of a country does not hold 20 bytes per node until the process ends).
 *
 * Searches that never run at once share records (the hierarchy engine's free query and its
 * CH-potential A*): each clears the ones it uses when it starts.
 */
export class NodeRecords {
  private readonly entryOf: Uint32Array;
  values: Float64Array;
  words: Int32Array;
  /** Entries in use. */
  count = 0;
  /** The room a new record starts with, never shrunk below. */
  private readonly initial: number;
  /** Searches (clears) in the current window, and the most entries one of them used. */
  private cleared = 0;
  private windowPeak = 0;

  /**
   * `prefaulted` (default): the word per node is written over now, so searches never wait for its
   * pages to be mapped; without it they are mapped as searches touch them (a thread that searches
   * seldom holds only what it touched).
   */
  constructor(nodeCount: number, capacity = 4096, prefaulted = true) {
    this.entryOf = prefaulted ? prefault(new Uint32Array(nodeCount)) : new Uint32Array(nodeCount);
    this.initial = capacity;
    this.values = new Float64Array(2 * capacity);
    this.words = new Int32Array(this.values.buffer);
  }

  /** v's entry, or -1 when the search has not touched v since the last clear(). */
  find(v: number): number {
    const i = this.entryOf[v];
    return i < this.count && this.words[4 * i + 2] === v ? i : -1;
  }

  /**
   * A new entry for v (which find() does not know). May replace `values` and `words` (when full):
   * a caller holding them re-reads them after.
   */
  add(v: number): number {
    if (this.count === this.values.length >>> 1) this.grow();
    const i = this.count++;
    this.words[4 * i + 2] = v;
    this.entryOf[v] = i;
    return i;
  }

  /**
   * Offers cost c to node v: its entry (made when v is new) when c is below v's cost, which it then
   * becomes; -1 when v already costs c or less. The relaxation step of every search here.
   */
  improve(v: number, c: number): number {
    let i = this.find(v);
    if (i < 0) i = this.add(v);
    else if (c >= this.values[2 * i]) return -1;
    this.values[2 * i] = c;
    return i;
  }

  /** Forgets every entry (and, after a window of searches that used little of the room, most of the room). */
  clear(): void {
    if (this.count > this.windowPeak) this.windowPeak = this.count;
    this.count = 0;
    if (++this.cleared < SHRINK_WINDOW) return;
    const room = this.values.length >>> 1, keep = Math.max(this.initial, 2 * this.windowPeak);
    if (room > 2 * keep) {
      // Nothing to copy: every entry is forgotten. entryOf may still name entries past the new room; find() checks count first.
      this.values = new Float64Array(2 * keep);
      this.words = new Int32Array(this.values.buffer);
    }
    this.cleared = 0;
    this.windowPeak = 0;
  }

  /** Bytes held: the word per node and the entries' room. */
  get byteSize(): number {
    return this.entryOf.byteLength + this.values.byteLength;
  }

  private grow(): void {
    // A node has one entry at most: never room for more than the node count (a search that
    // touches every node holds 20 bytes per node here).
    const values = new Float64Array(2 * Math.min(this.values.length, this.entryOf.length + 1));
    values.set(this.values);
    this.values = values;
    this.words = new Int32Array(values.buffer);
  }
}

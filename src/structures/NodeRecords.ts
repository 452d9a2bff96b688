/** Searches over which NodeRecords watches its largest use before giving room back. */
export const SHRINK_WINDOW = 64;

/** Most entries per slot of the node table (linear probing stays short at half full). */
const MAX_LOAD = 0.5;

/**
 * Search state of the nodes one search touches: per touched node a 16-byte entry, appended in touch
 * order (`values[2i]` a cost, float64, and in the int32 view over the same bytes `words[4i + 2]` the
 * node and `words[4i + 3]` a link: a parent node, arc or edge, or what phase of a search wrote the
 * entry), found from its node by an open-addressing table (linear probing, at most half full) of
 * entry numbers, each slot stamped with the search that filled it (32 bytes per entry of room in
 * all).
 *
 * Nothing per graph node while searches stay small: a search touches a small part of a country
 * (a free CH query a few thousand nodes, a zoned A* and its potential some hundred thousand of
 * 5M), so its table and entries stay in the caches, where a word per node spread them over the
 * graph's whole range and held 4 bytes per node in every routing thread. Entries and table grow
 * with the largest search (twice the room when full) and are kept for the next; when the largest
 * of the last SHRINK_WINDOW searches used under a quarter of the room, clear() gives back all but
 * twice that. clear() only takes a new stamp: the slots of earlier searches read as
 * empty. Where the table would outgrow a word per node (a search touching a large part of the
 * graph, or a small graph), a word per node serves instead, as a sparse set (an entry is valid when
 * in use and naming the node): never more than 20 bytes per node.
 *
 * Searches that never run at once share records (the hierarchy engine's free query and its
 * CH-potential A*): each clears the ones it uses when it starts.
 */
export class NodeRecords {
  /**
   * Slot h: words 2h, the search (stamp) that filled it, and 2h + 1, the entry whose node hashes
   * to h or probes past it; a slot of an earlier search is empty, so clear() writes nothing.
   */
  private table: Int32Array;
  private shift: number;
  private stamp = 1;
  /**
   * Instead of the table, when it would take more than a word per node (a room near the node
   * count): per node its entry, valid when the entry is in use and names the node (a sparse set).
   */
  private dense?: Uint32Array;
  values: Float64Array;
  words: Int32Array;
  /** Entries in use. */
  count = 0;
  /** The room a new record starts with, never shrunk below. */
  private readonly initial: number;
  /** Searches (clears) in the current window, and the most entries one of them used. */
  private cleared = 0;
  private windowPeak = 0;

  /** `nodeCount`: the graph's nodes (node ids below it); `capacity`: the entries' first room. */
  constructor(readonly nodeCount: number, capacity = 4096) {
    this.initial = capacity;
    this.values = new Float64Array(2 * capacity);
    this.words = new Int32Array(this.values.buffer);
    this.table = new Int32Array(0);
    this.shift = 0;
    this.newTable(capacity);
  }

  /** v's entry, or -1 when the search has not touched v since the last clear(). */
  find(v: number): number {
    const dense = this.dense;
    if (dense !== undefined) {
      const i = dense[v];
      return i < this.count && this.words[4 * i + 2] === v ? i : -1;
    }
    const table = this.table, words = this.words, stamp = this.stamp, mask = (table.length >>> 1) - 1;
    for (let h = Math.imul(v, 0x9e3779b1) >>> this.shift; ; h = (h + 1) & mask) {
      if (table[2 * h] !== stamp) return -1;
      const i = table[2 * h + 1];
      if (words[4 * i + 2] === v) return i;
    }
  }

  /**
   * A new entry for v (which find() does not know). May replace `values` and `words` (when full):
   * a caller holding them re-reads them after.
   */
  add(v: number): number {
    if (this.count === this.values.length >>> 1) this.grow();
    const i = this.count++;
    this.words[4 * i + 2] = v;
    this.place(i, v);
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
    const count = this.count;
    if (count > this.windowPeak) this.windowPeak = count;
    // A new search's stamp; on wrapping, the table's slots forgotten at once.
    if (++this.stamp === 0x7fffffff) {
      this.table.fill(0);
      this.stamp = 1;
    }
    this.count = 0;
    if (++this.cleared < SHRINK_WINDOW) return;
    const room = this.values.length >>> 1, keep = Math.max(this.initial, 2 * this.windowPeak);
    if (room > 2 * keep) {
      // Nothing to copy: every entry is forgotten.
      this.values = new Float64Array(2 * keep);
      this.words = new Int32Array(this.values.buffer);
      this.newTable(keep);
    }
    this.cleared = 0;
    this.windowPeak = 0;
  }

  /** Bytes held: the entries' room and the table (or the word per node). */
  get byteSize(): number {
    return this.values.byteLength + this.table.byteLength + (this.dense?.byteLength ?? 0);
  }

  /** Puts entry i (of node v) in the table's first empty slot from v's hash. */
  private place(i: number, v: number): void {
    if (this.dense !== undefined) {
      this.dense[v] = i;
      return;
    }
    const table = this.table, stamp = this.stamp, mask = (table.length >>> 1) - 1;
    let h = Math.imul(v, 0x9e3779b1) >>> this.shift;
    while (table[2 * h] === stamp) h = (h + 1) & mask;
    table[2 * h] = stamp;
    table[2 * h + 1] = i;
  }

  private grow(): void {
    // A node has one entry at most: never room for more than the node count.
    const room = Math.min(2 * (this.values.length >>> 1), this.nodeCount + 1);
    const values = new Float64Array(2 * room);
    values.set(this.values);
    this.values = values;
    this.words = new Int32Array(values.buffer);
    this.newTable(room);
    for (let i = 0; i < this.count; i++) this.place(i, this.words[4 * i + 2]);
  }

  private newTable(room: number): void {
    const bits = tableBits(room);
    if (8 * 2 ** bits >= 4 * this.nodeCount) {
      this.dense = new Uint32Array(this.nodeCount);
      this.table = new Int32Array(0);
      return;
    }
    this.dense = undefined;
    this.table = new Int32Array(2 << bits);
    this.shift = 32 - bits;
  }
}

/** Bits of a table with room for `entries` at MAX_LOAD. */
function tableBits(entries: number): number {
  return Math.max(4, Math.ceil(Math.log2(Math.max(1, entries) / MAX_LOAD)));
}

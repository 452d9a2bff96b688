import { prefault } from './prefault.js';

/**
 * Per-node search state of 16 bytes, side by side (one cache line per node touched, instead of one
 * per array): `values[2v]` a cost (float64) and, in the int32 view over the same bytes,
 * `words[4v + 2]` the stamp that makes node v's fields valid and `words[4v + 3]` a link (a parent
 * arc or edge). Written over when made (prefault).
 *
 * Searches that never run at once share records: the hierarchy engine's free query and its
 * CH-potential A* use the same two (about 40 bytes per node less). Their stamps then come from one
 * StampClock, so a stamp is never reused while another search's fields may still carry it.
 */
export class NodeRecords {
  readonly values: Float64Array;
  readonly words: Int32Array;

  constructor(nodeCount: number, readonly clock: StampClock) {
    this.values = prefault(new Float64Array(2 * nodeCount));
    this.words = new Int32Array(this.values.buffer);
    clock.watch(this.words);
  }
}

/** Stamps unique across the searches that share NodeRecords; zeroes their stamps when it wraps. */
export class StampClock {
  private value = 0;
  private readonly watched: Int32Array[] = [];

  watch(words: Int32Array): void {
    this.watched.push(words);
  }

  /** `count` consecutive fresh stamps; returns the first. */
  next(count = 1): number {
    if (this.value + count >= 0x7fffffff) {
      // Zero every stamp word (the links are rewritten before they are read).
      for (const words of this.watched) for (let i = 2; i < words.length; i += 4) words[i] = 0;
      this.value = 0;
    }
    const first = this.value + 1;
    this.value += count;
    return first;
  }

  /** Moves the clock (tests: the wrap). */
  advanceTo(value: number): void {
    this.value = value;
  }
}

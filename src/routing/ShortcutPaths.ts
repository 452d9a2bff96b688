import { arcTo, type ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';

/** Shortcuts of fewer edges than this are unpacked every time: they cost a few lookups. */
export const MIN_KEPT_EDGES = 16;

/**
 * Most bytes of unpacked shortcuts one hierarchy keeps: on the 5M-node country, 400 random routes
 * keep about 3 MiB and serve 75-80 % of their edges from it.
 */
export const DEFAULT_SHORTCUT_PATH_BYTES = 8 * 2 ** 20;

/** The bytes a hierarchy of a graph of `edgeCount` directed edges keeps: a byte per edge, DEFAULT_SHORTCUT_PATH_BYTES at most. */
export function shortcutPathBytes(edgeCount: number): number {
  return Math.min(DEFAULT_SHORTCUT_PATH_BYTES, edgeCount);
}

/**
 * Unpacks a hierarchy's arcs into original edges (as unpackArc does) and keeps the edges of the
 * long shortcuts it unpacked, so the next route through them copies the edges instead of
 * finding each shortcut's two halves again (two searches in the middle node's arc ranges, cache
 * misses on a country: about a third of a free route's time there). Routes across a country
 * share their long stretches (motorways, trunk roads); on the 5M-node country 80 % of a route's
 * edges come from kept shortcuts after a hundred routes, and the unpacking of a free route takes
 * about a quarter of the time.
 *
 * Bounded: two generations of at most half of `maxBytes` each; when the current one fills, it
 * becomes the old one and the one before is dropped; a shortcut found in the old generation
 * moves to the current one. Not re-entrant: one per search object (per thread).
 */
export class ShortcutPaths {
  private current = new Map<number, Int32Array>();
  private previous = new Map<number, Int32Array>();
  private currentBytes = 0;
  private previousBytes = 0;
  private readonly stack: number[] = [];

  constructor(readonly ch: ContractionHierarchy, readonly maxBytes = DEFAULT_SHORTCUT_PATH_BYTES) {}

  /**
   * Appends the original edge ids of arc `a`, whose lower end (the node whose range holds it) is
   * `low`, to `out` in driving order. Iterative: an explicit stack, whatever the nesting depth.
   */
  unpack(a: number, low: number, out: number[]): void {
    const { arcMiddle, arcNode, upFirst, downFirst } = this.ch;
    const upCount = downFirst[0];
    const stack = this.stack;
    stack.length = 0;
    // Pairs: (arc, its lower end) to unpack, or (~arc, where its edges start in out) once its halves are done.
    stack.push(a, low);
    while (stack.length > 0) {
      const lowEnd = stack.pop()!, x = stack.pop()!;
      if (x < 0) {
        if (out.length - lowEnd >= MIN_KEPT_EDGES) this.keep(~x, out, lowEnd);
        continue;
      }
      const m = arcMiddle[x];
      if (m < 0) {
        out.push(~m);
        continue;
      }
      const kept = this.find(x);
      if (kept !== undefined) {
        for (let i = 0; i < kept.length; i++) out.push(kept[i]);
        continue;
      }
      const up = x < upCount;
      const first = arcTo(arcNode, downFirst[m], downFirst[m + 1], up ? lowEnd : arcNode[x]);
      const second = arcTo(arcNode, upFirst[m], upFirst[m + 1], up ? arcNode[x] : lowEnd);
      if (first < 0 || second < 0) throw new Error(`${this.ch.metric} hierarchy: arc ${x} has no halves at node ${m}`);
      stack.push(~x, out.length, second, m, first, m);
    }
  }

  /** Bytes of the kept edges. */
  get byteSize(): number {
    return this.currentBytes + this.previousBytes;
  }

  private find(a: number): Int32Array | undefined {
    const kept = this.current.get(a);
    if (kept !== undefined || this.previousBytes === 0) return kept;
    const old = this.previous.get(a);
    if (old !== undefined) {
      this.previous.delete(a);
      this.previousBytes -= old.byteLength;
      this.add(a, old);
    }
    return old;
  }

  private keep(a: number, out: readonly number[], start: number): void {
    const edges = new Int32Array(out.length - start);
    for (let i = 0; i < edges.length; i++) edges[i] = out[start + i];
    this.add(a, edges);
  }

  private add(a: number, edges: Int32Array): void {
    if (edges.byteLength > this.maxBytes / 2) return;
    if (this.currentBytes + edges.byteLength > this.maxBytes / 2) {
      this.previous = this.current;
      this.previousBytes = this.currentBytes;
      this.current = new Map();
      this.currentBytes = 0;
    }
    this.current.set(a, edges);
    this.currentBytes += edges.byteLength;
  }
}

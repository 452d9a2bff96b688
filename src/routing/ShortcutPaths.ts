import type { Metric } from '../graph/RoadGraph.js';
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

/** A ShortcutPaths per metric of a graph's hierarchies, each keeping at most `maxBytes`. */
export function shortcutPathsPerMetric(hierarchies: Record<Metric, ContractionHierarchy>, maxBytes: number): Record<Metric, ShortcutPaths> {
  return { distance: new ShortcutPaths(hierarchies.distance, maxBytes), duration: new ShortcutPaths(hierarchies.duration, maxBytes) };
}

/** Bytes a kept shortcut costs besides its edges: its entry in a generation's map (V8's Map: about 37 B an entry measured). */
const ENTRY_BYTES = 48;

/** One generation of kept shortcuts: their edge lists end to end, each after its length, and where each arc's starts. */
interface Generation {
  edges: Int32Array;
  used: number;
  readonly at: Map<number, number>;
}

function newGeneration(): Generation {
  return { edges: new Int32Array(0), used: 0, at: new Map() };
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
 * Bounded: two generations of at most half of `maxBytes` each (edges and map entries); when the
 * current one fills, it becomes the old one and the one before is dropped; a shortcut found in
 * the old generation is copied to the current one. A generation's edges lie in one array, not an
 * array per shortcut (about 250 B each besides its edges, and garbage for the collector). Not
 * re-entrant: one per search object (per thread).
 */
export class ShortcutPaths {
  private current = newGeneration();
  private previous = newGeneration();
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
        const n = out.length - lowEnd;
        if (n >= MIN_KEPT_EDGES) this.keep(~x, out, lowEnd, n);
        continue;
      }
      const m = arcMiddle[x];
      if (m < 0) {
        out.push(~m);
        continue;
      }
      if (this.appendKept(x, out)) continue;
      const up = x < upCount;
      const first = arcTo(arcNode, downFirst[m], downFirst[m + 1], up ? lowEnd : arcNode[x]);
      const second = arcTo(arcNode, upFirst[m], upFirst[m + 1], up ? arcNode[x] : lowEnd);
      if (first < 0 || second < 0) throw new Error(`${this.ch.metric} hierarchy: arc ${x} has no halves at node ${m}`);
      stack.push(~x, out.length, second, m, first, m);
    }
  }

  /** Bytes held: both generations' edge arrays and map entries. */
  get byteSize(): number {
    return this.bytesOf(this.current) + this.bytesOf(this.previous);
  }

  private bytesOf(g: Generation): number {
    return g.edges.byteLength + ENTRY_BYTES * g.at.size;
  }

  /** Appends a's kept edges to out, when kept (copying them to the current generation from the old one, which goes on holding them until dropped). */
  private appendKept(a: number, out: number[]): boolean {
    let g = this.current, i = g.at.get(a);
    if (i === undefined) {
      g = this.previous;
      i = g.at.get(a);
      if (i === undefined) return false;
    }
    const edges = g.edges, n = edges[i], start = out.length;
    for (let k = i + 1; k <= i + n; k++) out.push(edges[k]);
    if (g === this.previous) this.keep(a, out, start, n);
    return true;
  }

  /** Keeps out[start .. start + n) as a's edges in the current generation (a new one when it is full). */
  private keep(a: number, out: readonly number[], start: number, n: number): void {
    // A generation's share of the bytes: three quarters for its edges' array (its whole room), a quarter for its entries.
    const mostEdges = Math.floor((0.75 * this.maxBytes) / 2 / 4), mostEntries = Math.floor((0.25 * this.maxBytes) / 2 / ENTRY_BYTES);
    if (n + 1 > mostEdges || mostEntries === 0) return;
    let g = this.current;
    if (g.used + n + 1 > mostEdges || g.at.size + 1 > mostEntries) {
      this.previous = g;
      g = this.current = newGeneration();
    }
    if (g.used + n + 1 > g.edges.length) {
      const grown = new Int32Array(Math.min(mostEdges, Math.max(2 * g.edges.length, g.used + n + 1, 1024)));
      grown.set(g.edges.subarray(0, g.used));
      g.edges = grown;
    }
    const edges = g.edges;
    edges[g.used] = n;
    for (let k = 0; k < n; k++) edges[g.used + 1 + k] = out[start + k];
    g.at.set(a, g.used);
    g.used += n + 1;
  }
}

import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { csrRow } from '../graph/csr.js';
import type { CellOverlay } from './CellOverlay.js';

/**
 * A contraction hierarchy (Geisberger et al.) of one metric over a RoadGraph, as plain typed
 * arrays (so it saves, loads and shares between threads like the graph).
 *
 * Arcs are numbered: the upward arcs 0 .. U-1 (CSR by tail: arcs leaving u towards higher-ranked
 * nodes are upFirst[u] .. upFirst[u+1]-1), then the downward arcs U .. U+D-1 stored at their LOWER
 * end (CSR by head: the arcs x -> v with rank[x] > rank[v] are downFirst[v] .. downFirst[v+1]-1,
 * offsets already include U). `arcNode[a]` is the other (higher, or core) end, `arcWeight[a]` the cost;
 * within each node's upward and downward range, arcs are sorted by arcNode.
 * An arc is an original edge (`arcMiddle[a]` = ~edge id, negative) or a shortcut u -> x through
 * the node m contracted below both (`arcMiddle[a]` = m): its halves are the downward arc u -> m
 * and the upward arc m -> x, both stored at m and found there by their other end (shortcutHalves),
 * so every path unpacks to original edge ids. One Int32 per arc where two child arc ids took two.
 */
export interface ContractionHierarchy {
  metric: Metric;
  /**
   * Contraction order, rank[v] = position of v (0 = contracted first), kept only when there is a
   * core (it tells core nodes apart); empty without one, when nothing reads it (the arcs' own
   * direction, lower end to arcNode, is the order the searches need). A graph file stores one
   * either way, to check the arcs against when loading (graphCodec).
   */
  rank: Uint32Array;
  /**
   * One value: nodes ranked at or above it form the uncontracted core (none when it equals the
   * node count). A core node's upward arcs are all its out-arcs to other core nodes and its
   * downward arcs all its in-arcs from them, so the searches run plain Dijkstra inside the core.
   */
  coreRank: Uint32Array;
  /** Length nodeCount + 1; values in [0, U]. */
  upFirst: Uint32Array;
  /** Length nodeCount + 1; values in [U, U + D]. */
  downFirst: Uint32Array;
  /** Per arc: the higher-ranked end. */
  arcNode: Uint32Array;
  /**
   * Per arc: cost in whole steps of the metric (COST_STEP: centimetres, milliseconds), the exact
   * sum of its roads' costs; a search adds `arcWeight[a] * COST_STEP[metric]`.
   */
  arcWeight: Uint32Array;
  /** Per arc: ~(original edge id) (negative), or the middle node of a shortcut. */
  arcMiddle: Int32Array;
}

/** Both metrics' hierarchies of one graph. */
export interface GraphHierarchy {
  duration: ContractionHierarchy;
  distance: ContractionHierarchy;
  /**
   * Cells and their cliques (CellOverlay), made at import beside the hierarchies: routes around
   * zones cross the cells no zone touches by their cliques. Absent in older files (routes around
   * zones then run the CH-potential A* on the roads alone).
   */
  overlay?: CellOverlay;
}

/**
 * A road graph with its hierarchies attached, when it has them (a loaded graph file's, or
 * buildHierarchy's). The graph layer knows nothing of hierarchies; this layer and the ones above
 * read them here.
 */
export type HierarchyGraph = RoadGraph & { hierarchy?: GraphHierarchy };

/** The array members of a ContractionHierarchy, in file order. */
export const HIERARCHY_ARRAY_KEYS = [
  'rank', 'coreRank', 'upFirst', 'downFirst', 'arcNode', 'arcWeight', 'arcMiddle',
] as const satisfies readonly (keyof ContractionHierarchy)[];

/** Bytes held by a hierarchy's arrays. */
export function hierarchyByteSize(ch: ContractionHierarchy): number {
  let bytes = 0;
  for (const key of HIERARCHY_ARRAY_KEYS) bytes += ch[key].byteLength;
  return bytes;
}

/** The number of nodes of a hierarchy's graph. */
export function hierarchyNodeCount(ch: ContractionHierarchy): number {
  return ch.upFirst.length - 1;
}

/** The order a hierarchy's nodes were contracted in (its rank, or one its arcs make) and where its core begins: contractGraph's `order`. */
export function orderOf(ch: ContractionHierarchy): { rank: Uint32Array; coreRank: number } {
  const rank = ch.rank.length ? ch.rank : contractionOrder(ch);
  if (!rank) throw new Error(`${ch.metric} hierarchy: arcs form a cycle outside a core`);
  return { rank, coreRank: ch.coreRank[0] };
}

/**
 * A contraction order of a hierarchy without a core, from its arcs alone (each leads from its
 * lower end to arcNode): per node its position in a topological order (Kahn), or undefined when
 * the arcs form a cycle (a core, or damage).
 */
export function contractionOrder(ch: ContractionHierarchy): Uint32Array | undefined {
  const { upFirst, downFirst, arcNode } = ch;
  const n = upFirst.length - 1;
  const below = new Uint32Array(n);
  for (let a = 0; a < arcNode.length; a++) below[arcNode[a]]++;
  const queue = new Uint32Array(n), order = new Uint32Array(n);
  let head = 0, tail = 0;
  for (let v = 0; v < n; v++) if (below[v] === 0) queue[tail++] = v;
  while (head < tail) {
    const v = queue[head];
    order[v] = head++;
    for (let a = upFirst[v], end = upFirst[v + 1]; a < end; a++) if (--below[arcNode[a]] === 0) queue[tail++] = arcNode[a];
    for (let a = downFirst[v], end = downFirst[v + 1]; a < end; a++) if (--below[arcNode[a]] === 0) queue[tail++] = arcNode[a];
  }
  return tail === n ? order : undefined;
}

/** The arc in the range [lo, hi) (sorted by arcNode) whose other end is `node`, or -1. */
export function arcTo(arcNode: Uint32Array, lo: number, hi: number, node: number): number {
  // Most ranges are short: a scan beats a binary search there.
  if (hi - lo <= 8) {
    for (let a = lo; a < hi; a++) if (arcNode[a] === node) return a;
    return -1;
  }
  hi--;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = arcNode[mid];
    if (x === node) return mid;
    if (x < node) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

/** The tail of arc a whose lower end (the node whose range holds it) is `low`. */
export function arcTail(ch: ContractionHierarchy, a: number, low: number): number {
  return a < ch.downFirst[0] ? low : ch.arcNode[a];
}

/** The head of arc a whose lower end is `low`. */
export function arcHead(ch: ContractionHierarchy, a: number, low: number): number {
  return a < ch.downFirst[0] ? ch.arcNode[a] : low;
}

/** The lower end of arc a: the node whose upward or downward range holds it (binary search). */
export function arcLowerEnd(ch: ContractionHierarchy, a: number): number {
  return a < ch.downFirst[0] ? csrRow(ch.upFirst, a) : csrRow(ch.downFirst, a);
}

/**
 * The two halves of shortcut tail -> head through `middle`, in driving order, into out[0], out[1]:
 * the downward arc tail -> middle and the upward arc middle -> head (both with lower end `middle`).
 */
export function shortcutHalves(ch: ContractionHierarchy, tail: number, head: number, middle: number, out: Int32Array | number[]): void {
  const { arcNode, upFirst, downFirst } = ch;
  const first = arcTo(arcNode, downFirst[middle], downFirst[middle + 1], tail);
  const second = arcTo(arcNode, upFirst[middle], upFirst[middle + 1], head);
  if (first < 0 || second < 0) throw new Error(`${ch.metric} hierarchy: shortcut ${tail} -> ${head} has no halves at node ${middle}`);
  out[0] = first;
  out[1] = second;
}

/**
 * Appends the original edge ids of arc `a` (in driving order) to `out`; iterative, no recursion.
 * `low` is a's lower end when the caller knows it (else it is looked up).
 */
export function unpackArc(ch: ContractionHierarchy, a: number, out: number[], stack: number[] = [], low = arcLowerEnd(ch, a)): void {
  const { arcMiddle, arcNode, upFirst, downFirst } = ch;
  const upCount = downFirst[0];
  stack.length = 0;
  // Walks down first halves, keeping each second half (arc, its lower end) for later.
  let x = a, lowEnd = low;
  for (;;) {
    const m = arcMiddle[x];
    if (m < 0) {
      out.push(~m);
      if (stack.length === 0) return;
      lowEnd = stack.pop()!;
      x = stack.pop()!;
      continue;
    }
    const up = x < upCount;
    const first = arcTo(arcNode, downFirst[m], downFirst[m + 1], up ? lowEnd : arcNode[x]);
    const second = arcTo(arcNode, upFirst[m], upFirst[m + 1], up ? arcNode[x] : lowEnd);
    if (first < 0 || second < 0) throw new Error(`${ch.metric} hierarchy: arc ${x} has no halves at node ${m}`);
    stack.push(second, m);
    x = first;
    lowEnd = m;
  }
}

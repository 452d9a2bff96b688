import type { Metric } from '../graph/RoadGraph.js';

/**
 * A contraction hierarchy (Geisberger et al.) of one metric over a RoadGraph, as plain typed
 * arrays (so it saves, loads and shares between threads like the graph).
 *
 * Arcs are numbered: the upward arcs 0 .. U-1 (CSR by tail: arcs leaving u towards higher-ranked
 * nodes are upFirst[u] .. upFirst[u+1]-1), then the downward arcs U .. U+D-1 stored at their LOWER
 * end (CSR by head: the arcs x -> v with rank[x] > rank[v] are downFirst[v] .. downFirst[v+1]-1,
 * offsets already include U). `arcNode[a]` is the other (higher, or core) end, `arcWeight[a]` the cost.
 * An arc is an original edge (arcSecond = -1, arcFirst = the edge id) or a shortcut of two arcs
 * (arcFirst then arcSecond, in driving order), so every path unpacks to original edge ids.
 */
export interface ContractionHierarchy {
  metric: Metric;
  /** Contraction order: rank[v] = position of v (0 = contracted first, least important). */
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
  /** Per arc: cost in metres (distance) or seconds (duration). */
  arcWeight: Float64Array;
  /** Per arc: original edge id, or the first child arc of a shortcut. */
  arcFirst: Int32Array;
  /** Per arc: -1 for an original edge, else the second child arc. */
  arcSecond: Int32Array;
}

/** Both metrics' hierarchies of one graph. */
export interface GraphHierarchy {
  duration: ContractionHierarchy;
  distance: ContractionHierarchy;
  /**
   * The nested dissection order of the customizable hierarchy (rank per node; see
   * nestedDissection.ts), made at import beside the contraction hierarchies: the costly part of
   * preparing the CCH, so a service builds the rest in seconds. Absent in older files.
   */
  order?: Uint32Array;
}

/** The array members of a ContractionHierarchy, in file order. */
export const HIERARCHY_ARRAY_KEYS = [
  'rank', 'coreRank', 'upFirst', 'downFirst', 'arcNode', 'arcWeight', 'arcFirst', 'arcSecond',
] as const satisfies readonly (keyof ContractionHierarchy)[];

/** Bytes held by a hierarchy's arrays. */
export function hierarchyByteSize(ch: ContractionHierarchy): number {
  let bytes = 0;
  for (const key of HIERARCHY_ARRAY_KEYS) bytes += ch[key].byteLength;
  return bytes;
}

/** Appends the original edge ids of arc `a` (in driving order) to `out`; iterative, no recursion. */
export function unpackArc(ch: ContractionHierarchy, a: number, out: number[], stack: number[] = []): void {
  const { arcFirst, arcSecond } = ch;
  stack.length = 0;
  stack.push(a);
  while (stack.length > 0) {
    const x = stack.pop()!;
    const second = arcSecond[x];
    if (second < 0) {
      out.push(arcFirst[x]);
    } else {
      stack.push(second);
      stack.push(arcFirst[x]);
    }
  }
}

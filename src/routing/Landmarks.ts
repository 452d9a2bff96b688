import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from './MinHeap.js';

/**
 * ALT landmarks (Goldberg & Harrelson): exact costs from and to a few far-apart nodes, giving an
 * A* lower bound by the triangle inequality: cost(v, t) >= max(d(L, t) - d(L, v), d(v, L) - d(t, L)).
 * Much tighter than a straight line for travel times. Removing edges (blocked roads) only makes
 * true costs larger, so the bounds stay valid under any blocked-road mask.
 *
 * Costs are kept as Float32 (half the memory); `lowerBound` subtracts the worst rounding error so
 * the bound stays admissible. Layout: node-major (the L values of one node are adjacent).
 */
export class Landmarks {
  readonly count: number;
  readonly nodes: Uint32Array;
  /** fromLandmark[v * count + i] = cost from landmark i to v (Infinity when unreachable). */
  readonly fromLandmark: Float32Array;
  /** toLandmark[v * count + i] = cost from v to landmark i. */
  readonly toLandmark: Float32Array;

  constructor(readonly graph: RoadGraph, readonly metric: Metric, count = 8) {
    const n = graph.nodeCount;
    this.count = Math.max(1, Math.min(count, n));
    this.nodes = new Uint32Array(this.count);
    this.fromLandmark = new Float32Array(n * this.count);
    this.toLandmark = new Float32Array(n * this.count);
    const heap = new MinHeap(1024);
    const dist = new Float64Array(n);
    // Farthest selection: each landmark is the node farthest (by cost) from those already chosen.
    const nearest = new Float64Array(n).fill(Infinity);
    let next = largestOutDegreeNode(graph);
    for (let i = 0; i < this.count; i++) {
      this.nodes[i] = next;
      this.dijkstra(next, false, heap, dist);
      for (let v = 0; v < n; v++) this.fromLandmark[v * this.count + i] = dist[v];
      this.dijkstra(next, true, heap, dist);
      let far = -1;
      let farCost = -1;
      for (let v = 0; v < n; v++) {
        this.toLandmark[v * this.count + i] = dist[v];
        const both = Math.min(dist[v], this.fromLandmark[v * this.count + i]);
        if (both < nearest[v]) nearest[v] = both;
        if (nearest[v] !== Infinity && nearest[v] > farCost) {
          farCost = nearest[v];
          far = v;
        }
      }
      next = far < 0 ? next : far;
    }
  }

  private static readonly cache = new WeakMap<RoadGraph, Map<string, Landmarks>>();

  /**
   * The landmarks of a graph for a metric, built on first use and shared by every search on that
   * graph (they never change: the graph is immutable and blocked roads keep the bounds valid).
   */
  static for(graph: RoadGraph, metric: Metric, count: number): Landmarks {
    let byKey = Landmarks.cache.get(graph);
    if (!byKey) Landmarks.cache.set(graph, (byKey = new Map()));
    const key = `${metric}:${count}`;
    let lm = byKey.get(key);
    if (!lm) byKey.set(key, (lm = new Landmarks(graph, metric, count)));
    return lm;
  }

  /** Bytes held. */
  byteSize(): number {
    return this.fromLandmark.byteLength + this.toLandmark.byteLength + this.nodes.byteLength;
  }

  private dijkstra(source: number, reverse: boolean, heap: MinHeap, dist: Float64Array): void {
    const g = this.graph;
    const weight = g.edgeCost(this.metric);
    dist.fill(Infinity);
    heap.clear();
    dist[source] = 0;
    heap.push(0, source);
    while (heap.size > 0) {
      const d = heap.peekKey();
      const u = heap.pop();
      if (d > dist[u]) continue;
      if (!reverse) {
        for (let e = g.firstOut[u]; e < g.firstOut[u + 1]; e++) {
          const v = g.edgeHead[e];
          const nd = d + weight[e];
          if (nd < dist[v]) { dist[v] = nd; heap.push(nd, v); }
        }
      } else {
        for (let k = g.firstIn[u]; k < g.firstIn[u + 1]; k++) {
          const e = g.inEdge[k];
          const v = g.edgeTail[e];
          const nd = d + weight[e];
          if (nd < dist[v]) { dist[v] = nd; heap.push(nd, v); }
        }
      }
    }
  }
}

/** A well-connected start for farthest selection (deterministic). */
function largestOutDegreeNode(g: RoadGraph): number {
  let best = 0;
  let bestDegree = -1;
  for (let u = 0; u < g.nodeCount; u++) {
    const d = g.firstOut[u + 1] - g.firstOut[u] + g.firstIn[u + 1] - g.firstIn[u];
    if (d > bestDegree) { bestDegree = d; best = u; }
  }
  return best;
}

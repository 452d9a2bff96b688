import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from '../structures/MinHeap.js';

/** A quantised cost meaning "unreachable"; larger than every finite one (see AStarSearch). */
export const LANDMARK_UNREACHABLE = 0xffff;

/**
 * ALT landmarks (Goldberg & Harrelson): exact costs from and to a few far-apart nodes, giving an
 * A* lower bound by the triangle inequality: cost(v, t) >= max(d(L, t) - d(L, v), d(v, L) - d(t, L)).
 * Much tighter than a straight line for travel times. Removing edges (blocked roads) only makes
 * true costs larger, so the bounds stay valid under any blocked-road mask.
 *
 * Costs are quantised to 16 bits per landmark and direction (a quarter of Float64, so twice the
 * landmarks fit in the memory of Float32 ones): cost ~ value * step, off by at most step / 2;
 * the search widens each bound by one step so it stays admissible. Layout: node-major (the
 * values of one node are adjacent).
 */
export class Landmarks {
  readonly count: number;
  readonly nodes: Uint32Array;
  /** fromLandmark[v * count + i] * fromStep[i] ~ cost from landmark i to v (LANDMARK_UNREACHABLE: none). */
  readonly fromLandmark: Uint16Array;
  /** toLandmark[v * count + i] * toStep[i] ~ cost from v to landmark i. */
  readonly toLandmark: Uint16Array;
  /** Cost per unit of fromLandmark, per landmark (metres or seconds). */
  readonly fromStep: Float64Array;
  /** Cost per unit of toLandmark, per landmark. */
  readonly toStep: Float64Array;

  constructor(readonly graph: RoadGraph, readonly metric: Metric, count = 16) {
    const n = graph.nodeCount;
    this.count = Math.max(1, Math.min(count, n));
    this.nodes = new Uint32Array(this.count);
    this.fromLandmark = new Uint16Array(n * this.count);
    this.toLandmark = new Uint16Array(n * this.count);
    this.fromStep = new Float64Array(this.count);
    this.toStep = new Float64Array(this.count);
    const heap = new MinHeap(1024);
    const dist = new Float64Array(n);
    // Planar selection (Goldberg & Harrelson): split the plane around a central node into `count`
    // equal sectors and take, in each, the node farthest by cost from the centre, so landmarks sit
    // on the rim in every direction (a target behind a landmark gets a tight bound).
    const centre = centralNode(graph);
    this.dijkstra(centre, false, heap, dist);
    const outward = Float64Array.from(dist);
    this.dijkstra(centre, true, heap, dist);
    const cLat = graph.nodeLatitude(centre), cLon = graph.nodeLongitude(centre);
    const cosLat = Math.cos((cLat * Math.PI) / 180);
    const best = new Float64Array(this.count).fill(-1);
    const pick = new Int32Array(this.count).fill(-1);
    for (let v = 0; v < n; v++) {
      const reach = Math.min(outward[v], dist[v]);
      if (reach === Infinity) continue;
      const angle = Math.atan2(graph.nodeLatitude(v) - cLat, (graph.nodeLongitude(v) - cLon) * cosLat) + Math.PI;
      const sector = Math.min(this.count - 1, Math.floor((angle / (2 * Math.PI)) * this.count));
      if (reach > best[sector]) {
        best[sector] = reach;
        pick[sector] = v;
      }
    }
    let chosen = 0;
    for (let i = 0; i < this.count; i++) if (pick[i] >= 0) this.nodes[chosen++] = pick[i];
    for (; chosen < this.count; chosen++) this.nodes[chosen] = centre; // tiny graphs: empty sectors
    for (let i = 0; i < this.count; i++) {
      this.dijkstra(this.nodes[i], false, heap, dist);
      this.fromStep[i] = quantise(dist, this.fromLandmark, i, this.count);
      this.dijkstra(this.nodes[i], true, heap, dist);
      this.toStep[i] = quantise(dist, this.toLandmark, i, this.count);
    }
  }

  private static readonly cache = new WeakMap<RoadGraph, Map<string, Landmarks>>();

  /**
   * The landmarks of a graph for a metric, built on first use and shared by every search on that
   * graph (they never change: the graph is immutable and blocked roads keep the bounds valid).
   */
  static for(graph: RoadGraph, metric: Metric, count = 16): Landmarks {
    let byKey = Landmarks.cache.get(graph);
    if (!byKey) Landmarks.cache.set(graph, (byKey = new Map()));
    const key = `${metric}:${count}`;
    let lm = byKey.get(key);
    if (!lm) byKey.set(key, (lm = new Landmarks(graph, metric, count)));
    return lm;
  }

  /**
   * A lower bound of the cost from v to t over all landmarks (what the search computes for its
   * active ones, inlined there): never more than the true cost, whatever roads are blocked.
   */
  lowerBound(v: number, t: number): number {
    const L = this.count;
    let bound = 0;
    for (let i = 0; i < L; i++) {
      const b1 = (this.fromLandmark[t * L + i] - 1 - this.fromLandmark[v * L + i]) * this.fromStep[i];
      const b2 = (this.toLandmark[v * L + i] - this.toLandmark[t * L + i] - 1) * this.toStep[i];
      if (b1 > bound) bound = b1;
      if (b2 > bound) bound = b2;
    }
    return bound;
  }

  /** Bytes held. */
  byteSize(): number {
    return this.fromLandmark.byteLength + this.toLandmark.byteLength + this.nodes.byteLength + this.fromStep.byteLength + this.toStep.byteLength;
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

/**
 * Writes costs as 16-bit steps of (largest finite cost) / 65534 into column `i` of a node-major
 * table; returns the step. Infinity becomes LANDMARK_UNREACHABLE.
 */
function quantise(costs: Float64Array, out: Uint16Array, i: number, stride: number): number {
  let max = 0;
  for (let v = 0; v < costs.length; v++) if (costs[v] !== Infinity && costs[v] > max) max = costs[v];
  const step = max > 0 ? max / (LANDMARK_UNREACHABLE - 1) : 1;
  for (let v = 0; v < costs.length; v++) {
    out[v * stride + i] = costs[v] === Infinity ? LANDMARK_UNREACHABLE : Math.min(LANDMARK_UNREACHABLE - 1, Math.round(costs[v] / step));
  }
  return step;
}

/** The best-connected node near the middle of the graph's bounding box (deterministic). */
function centralNode(g: RoadGraph): number {
  let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity;
  for (let u = 0; u < g.nodeCount; u++) {
    minLat = Math.min(minLat, g.nodeLatitude(u)); maxLat = Math.max(maxLat, g.nodeLatitude(u));
    minLon = Math.min(minLon, g.nodeLongitude(u)); maxLon = Math.max(maxLon, g.nodeLongitude(u));
  }
  const midLat = (minLat + maxLat) / 2, midLon = (minLon + maxLon) / 2;
  let best = 0;
  let bestScore = Infinity;
  for (let u = 0; u < g.nodeCount; u++) {
    const degree = g.firstOut[u + 1] - g.firstOut[u] + g.firstIn[u + 1] - g.firstIn[u];
    if (degree < 3) continue;
    const score = (g.nodeLatitude(u) - midLat) ** 2 + (g.nodeLongitude(u) - midLon) ** 2;
    if (score < bestScore) { bestScore = score; best = u; }
  }
  return best;
}

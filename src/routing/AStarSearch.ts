import { haversineMetresCos, cosLatitude } from '../geo/haversine.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from './MinHeap.js';
import type { PathQuery, PathResult, PathSearch } from './PathSearch.js';

/**
 * Shrinks the heuristic a hair below the straight-line bound so floating-point rounding in
 * haversine sums can never make it overestimate (which would cost optimality).
 */
const HEURISTIC_SLACK = 1 - 1e-9;

/**
 * A* over the graph's CSR arrays with a haversine heuristic (divided by the graph's top speed for
 * durations), consistent, so each node is settled once. Search state is typed arrays stamped with
 * a query number: starting a query costs O(1), not O(nodes). Not re-entrant: one search object per
 * concurrent query (they are cheap next to the graph).
 */
export class AStarSearch implements PathSearch {
  readonly name = 'astar';
  private readonly cost: Float64Array;
  private readonly heuristic: Float64Array;
  private readonly parentEdge: Int32Array;
  private readonly seen: Uint32Array;
  private readonly done: Uint32Array;
  private readonly heap = new MinHeap(4096);
  private stamp = 0;
  /** Nodes settled by the last query (for benchmarks and tests). */
  settledCount = 0;

  constructor(private readonly graph: RoadGraph) {
    const n = graph.nodeCount;
    this.cost = new Float64Array(n);
    this.heuristic = new Float64Array(n);
    this.parentEdge = new Int32Array(n);
    this.seen = new Uint32Array(n);
    this.done = new Uint32Array(n);
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad, nodeLat, nodeLon, nodeCosLat } = g;
    const weight = g.edgeCost(query.metric);
    const blocked = query.blockedRoads;
    const { cost, heuristic, parentEdge, seen, done, heap } = this;
    const tLat = query.targetLatitude;
    const tLon = query.targetLongitude;
    const tCos = cosLatitude(tLat);
    const hScale = (query.metric === 'distance' ? 1 : 1 / g.maxSpeedMps) * HEURISTIC_SLACK;

    if (++this.stamp === 0xffffffff) {
      seen.fill(0);
      done.fill(0);
      this.stamp = 1;
    }
    const stamp = this.stamp;
    heap.clear();
    this.settledCount = 0;

    // Extra cost to finish at each node that is a target (two at most).
    const targets = query.targets;
    for (const s of query.sources) {
      const u = s.node;
      if (seen[u] === stamp && cost[u] <= s.cost) continue;
      if (seen[u] !== stamp) {
        heuristic[u] = haversineMetresCos(nodeLat[u], nodeLon[u], nodeCosLat[u], tLat, tLon, tCos) * hScale;
        seen[u] = stamp;
      }
      cost[u] = s.cost;
      parentEdge[u] = -1;
      heap.push(s.cost + heuristic[u], u);
    }

    let best = Infinity;
    let bestTarget = -1;
    while (heap.size > 0) {
      if (heap.peekKey() >= best) break;
      const u = heap.pop();
      if (done[u] === stamp) continue;
      done[u] = stamp;
      this.settledCount++;
      const cu = cost[u];
      for (let t = 0; t < targets.length; t++) {
        if (targets[t].node === u && cu + targets[t].cost < best) {
          best = cu + targets[t].cost;
          bestTarget = t;
        }
      }
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        if (blocked !== undefined && blocked[edgeRoad[e]] !== 0) continue;
        const v = edgeHead[e];
        const cv = cu + weight[e];
        if (seen[v] !== stamp) {
          seen[v] = stamp;
          heuristic[v] = haversineMetresCos(nodeLat[v], nodeLon[v], nodeCosLat[v], tLat, tLon, tCos) * hScale;
        } else if (cv >= cost[v] || done[v] === stamp) {
          continue;
        }
        cost[v] = cv;
        parentEdge[v] = e;
        heap.push(cv + heuristic[v], v);
      }
    }
    if (bestTarget < 0) return null;

    const edges: number[] = [];
    let node = targets[bestTarget].node;
    while (parentEdge[node] !== -1) {
      const e = parentEdge[node];
      edges.push(e);
      node = g.edgeTail[e];
    }
    edges.reverse();
    const source = query.sources.findIndex((s) => s.node === node && s.cost === cost[node]);
    return { cost: best, source, target: bestTarget, edges };
  }
}

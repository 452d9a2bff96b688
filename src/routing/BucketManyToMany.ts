import { COST_STEP, ROAD_COST_UNIT, type RoadGraph } from '../graph/RoadGraph.js';
import { otherMetric } from '../hierarchy/otherMetricArcCosts.js';
import type { ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { BucketIndex, meetInBuckets, type SettlingSearch } from './BucketIndex.js';
import { MinHeap } from '../structures/MinHeap.js';

/** A search endpoint with its cost in the searched metric and in the other one. */
export interface CostedEndpoint {
  node: number;
  cost: number;
  /** Cost of the same partial road in the other metric. */
  second: number;
  /** The searched metric without penalties, when `cost` includes some. */
  plain?: number;
}

/**
 * Many-to-many costs on a contraction hierarchy with buckets (Knopp, Sanders, Schultes, Schulz,
 * Wagner, ALENEX 2007): one backward upward search per target leaves (target, cost) entries in a
 * bucket at every node it settles; one forward upward search per source then scans the buckets
 * of the nodes it settles. The best up-down path of every pair meets at its highest node, which
 * both searches settle, so |S| + |T| small searches replace |S| x |T| queries. Both searches
 * stall on demand (a node reached more cheaply from above lies on no shortest up-down path).
 * Carries the other metric along (otherMetricArcCosts) so each pair gets both values of its
 * optimal path. Knows no blocked roads. Scratch stamped per search; not re-entrant.
 */
export class BucketManyToMany {
  private readonly cost: Float64Array;
  private readonly second: Float64Array;
  private readonly seen: Uint32Array;
  private readonly heap = new MinHeap(256);
  private stamp = 0;
  private readonly buckets: BucketIndex;
  /** Nodes settled by the last run, all searches together. */
  settledCount = 0;

  constructor(graph: RoadGraph) {
    const n = graph.nodeCount;
    this.cost = new Float64Array(n);
    this.second = new Float64Array(n);
    this.seen = new Uint32Array(n);
    this.buckets = new BucketIndex(n);
  }

  /**
   * Fills `outCost[s * targets.length + t]` (and `outSecond`) with the cheapest cost from any
   * endpoint of source s to any endpoint of target t, endpoint costs included; Infinity where
   * none connects. Empty endpoint lists leave their row or column at Infinity.
   */
  run(
    ch: ContractionHierarchy, secondArc: Uint32Array, sources: CostedEndpoint[][], targets: CostedEndpoint[][],
    outCost: Float64Array, outSecond: Float64Array,
  ): void {
    this.settledCount = 0;
    const searchFrom = (from: CostedEndpoint[], forward: boolean): SettlingSearch => (settled) => this.search(ch, secondArc, from, forward, settled);
    meetInBuckets(this.buckets, sources.length, targets.length, (s) => searchFrom(sources[s], true), (t) => searchFrom(targets[t], false), outCost, outSecond);
  }

  /**
   * One upward search (forward over upward arcs, or backward over downward ones) with stall-on-
   * demand, calling `settled` for every node it settles. One closure per search, not per edge.
   */
  private search(
    ch: ContractionHierarchy, secondArc: Uint32Array, from: CostedEndpoint[], forward: boolean,
    settled: (node: number, cost: number, second: number, plain: number) => void,
  ): void {
    if (++this.stamp === 0xffffffff) { this.seen.fill(0); this.stamp = 1; }
    const stamp = this.stamp;
    const { cost, second, seen, heap } = this;
    const { upFirst, downFirst, arcNode, arcWeight } = ch;
    const step = COST_STEP[ch.metric];
    const secondStep = ROAD_COST_UNIT[otherMetric(ch.metric)];
    const relaxFirst = forward ? upFirst : downFirst;
    const stallFirst = forward ? downFirst : upFirst;
    heap.clear();
    for (const e of from) {
      if (seen[e.node] === stamp && cost[e.node] <= e.cost) continue;
      seen[e.node] = stamp;
      cost[e.node] = e.cost;
      second[e.node] = e.second;
      heap.push(e.cost, e.node);
    }
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      if (key !== cost[u]) continue; // stale
      let stalled = false;
      for (let a = stallFirst[u], end = stallFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        if (seen[x] === stamp && cost[x] + arcWeight[a] * step < key) { stalled = true; break; }
      }
      if (stalled) continue;
      this.settledCount++;
      settled(u, key, second[u], key);
      const s2 = second[u];
      for (let a = relaxFirst[u], end = relaxFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a] * step;
        if (seen[x] !== stamp || c < cost[x]) {
          seen[x] = stamp;
          cost[x] = c;
          second[x] = s2 + secondArc[a] * secondStep;
          heap.push(c, x);
        }
      }
    }
  }
}

import { COST_STEP, ROAD_COST_UNIT, type RoadGraph } from '../graph/RoadGraph.js';
import { otherArcCost, otherMetric, type OtherMetricArcCosts } from '../hierarchy/otherMetricArcCosts.js';
import type { ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { BucketIndex, meetInBuckets, type SettlingSearch } from './BucketIndex.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';

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
 * optimal path. Knows no blocked roads. Not re-entrant.
 */
export class BucketManyToMany {
  /** Per node a search touches its cost (NodeRecords), and beside each entry the other metric's value. */
  private readonly records: NodeRecords;
  private secondOf = new Float64Array(4096);
  private readonly heap = new MinHeap(256);
  private readonly buckets: BucketIndex;
  /** Nodes settled by the last run, all searches together. */
  settledCount = 0;

  /**
   * `records` and `buckets`: lent by searches on the same thread that never run at the same time
   * (the overlay's many-to-many, a router's route search), so a matrix thread holds one of each.
   */
  constructor(graph: RoadGraph, records = new NodeRecords(graph.nodeCount), buckets = new BucketIndex(graph.nodeCount)) {
    this.records = records;
    this.buckets = buckets;
  }

  /**
   * Fills `outCost[s * targets.length + t]` (and `outSecond`) with the cheapest cost from any
   * endpoint of source s to any endpoint of target t, endpoint costs included; Infinity where
   * none connects. Empty endpoint lists leave their row or column at Infinity.
   */
  run(
    ch: ContractionHierarchy, secondArc: OtherMetricArcCosts, sources: CostedEndpoint[][], targets: CostedEndpoint[][],
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
    ch: ContractionHierarchy, secondArc: OtherMetricArcCosts, from: CostedEndpoint[], forward: boolean,
    settled: (node: number, cost: number, second: number, plain: number) => void,
  ): void {
    const { records, heap } = this;
    const { upFirst, downFirst, arcNode, arcWeight } = ch;
    const step = COST_STEP[ch.metric];
    const secondStep = ROAD_COST_UNIT[otherMetric(ch.metric)];
    const relaxFirst = forward ? upFirst : downFirst;
    const stallFirst = forward ? downFirst : upFirst;
    records.clear();
    heap.clear();
    let secondOf = this.secondOf;
    const keep = (i: number, s2: number) => {
      if (i >= secondOf.length) {
        const grown = new Float64Array(Math.max(2 * secondOf.length, i + 1));
        grown.set(secondOf);
        secondOf = this.secondOf = grown;
      }
      secondOf[i] = s2;
    };
    for (const e of from) {
      const i = records.improve(e.node, e.cost);
      if (i < 0) continue;
      keep(i, e.second);
      heap.push(e.cost, e.node);
    }
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      const values = records.values;
      const iu = records.find(u);
      if (key !== values[2 * iu]) continue; // stale
      let stalled = false;
      for (let a = stallFirst[u], end = stallFirst[u + 1]; a < end; a++) {
        const ix = records.find(arcNode[a]);
        if (ix >= 0 && values[2 * ix] + arcWeight[a] * step < key) { stalled = true; break; }
      }
      if (stalled) continue;
      this.settledCount++;
      const s2 = secondOf[iu];
      settled(u, key, s2, key);
      for (let a = relaxFirst[u], end = relaxFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a] * step;
        const ix = records.improve(x, c);
        if (ix < 0) continue;
        keep(ix, s2 + otherArcCost(secondArc, a) * secondStep);
        heap.push(c, x);
      }
    }
  }
}

import type { CCHTopology } from '../hierarchy/CustomizableHierarchy.js';
import type { CostedEndpoint } from './BucketManyToMany.js';
import type { CCHBlockedMetric } from './CCHBlockedMetric.js';
import { BucketIndex } from './BucketIndex.js';
import { MinHeap } from './MinHeap.js';

/**
 * Many-to-many costs on a customizable contraction hierarchy with buckets (Knopp et al. 2007, as
 * BucketManyToMany does on the plain CH), with elimination-tree searches (Bauer, Columbus, Rutter,
 * Wagner 2016): a search from a node relaxes the upward arcs of every ancestor in the elimination
 * tree in rank order, no priority queue by cost, because every upper neighbour of a node is one of
 * its ancestors. The metric is a CCHBlockedMetric, so a request's closed roads are already in the
 * arc values and the costs are exact around them. Scratch stamped per search; not re-entrant.
 */
export class CCHManyToMany {
  private readonly cost: Float64Array;
  private readonly second: Float64Array;
  private readonly plain: Float64Array;
  private readonly seen: Uint32Array;
  private readonly queued: Uint32Array;
  private stamp = 0;
  private readonly heap = new MinHeap(64);
  private readonly buckets: BucketIndex;
  /** Nodes visited by the last run, all searches together. */
  visitedCount = 0;

  constructor(private readonly topology: CCHTopology) {
    const n = topology.nodeCount;
    this.cost = new Float64Array(n);
    this.second = new Float64Array(n);
    this.plain = new Float64Array(n);
    this.seen = new Uint32Array(n);
    this.queued = new Uint32Array(n);
    this.buckets = new BucketIndex(n);
  }

  /**
   * Fills `outCost[s * targets.length + t]` (and `outSecond`) with the cheapest cost from any
   * endpoint of source s to any endpoint of target t under `metric`, endpoint costs included;
   * Infinity where none connects. Endpoint nodes are graph node ids. With `outPlain`, also the
   * cost of the same path without the metric's penalty (endpoints' `plain` included).
   */
  run(
    metric: CCHBlockedMetric, sources: CostedEndpoint[][], targets: CostedEndpoint[][], outCost: Float64Array, outSecond: Float64Array, outPlain?: Float64Array,
  ): void {
    const T = targets.length;
    outCost.fill(Infinity);
    outSecond.fill(Infinity);
    outPlain?.fill(Infinity);
    this.visitedCount = 0;
    const entryNode: number[] = [], entryTarget: number[] = [], entryCost: number[] = [], entrySecond: number[] = [], entryPlain: number[] = [];
    for (let t = 0; t < T; t++) {
      this.search(metric, targets[t], false, (r, c, s2, p) => {
        entryNode.push(r); entryTarget.push(t); entryCost.push(c); entrySecond.push(s2); entryPlain.push(p);
      });
    }
    const buckets = this.buckets;
    buckets.group(entryNode);
    const { first, order } = buckets;
    const E = entryNode.length;
    const bTarget = new Uint32Array(E), bCost = new Float64Array(E), bSecond = new Float64Array(E), bPlain = new Float64Array(E);
    for (let k = 0; k < E; k++) {
      const i = order[k];
      bTarget[k] = entryTarget[i]; bCost[k] = entryCost[i]; bSecond[k] = entrySecond[i]; bPlain[k] = entryPlain[i];
    }
    for (let s = 0; s < sources.length; s++) {
      const row = s * T;
      this.search(metric, sources[s], true, (r, c, s2, p) => {
        const b = buckets.bucket(r);
        if (b < 0) return;
        for (let k = first[b], end = first[b + 1]; k < end; k++) {
          const total = c + bCost[k];
          const i = row + bTarget[k];
          if (total < outCost[i] || (total === outCost[i] && s2 + bSecond[k] < outSecond[i])) {
            outCost[i] = total;
            outSecond[i] = s2 + bSecond[k];
            if (outPlain) outPlain[i] = p + bPlain[k];
          }
        }
      });
    }
  }

  /**
   * One elimination-tree search: from the endpoints' ranks up to the root, in rank order,
   * relaxing each visited node's upward arcs (forward: tail to head costs; backward: head to
   * tail), calling `reached` for every node with a finite cost.
   */
  private search(
    metric: CCHBlockedMetric, from: CostedEndpoint[], forward: boolean, reached: (rank: number, cost: number, second: number, plain: number) => void,
  ): void {
    if (++this.stamp === 0xffffffff) { this.seen.fill(0); this.queued.fill(0); this.stamp = 1; }
    const stamp = this.stamp;
    const { cost, second, plain, seen, queued, heap } = this;
    const { rank, upFirst, upHead } = this.topology;
    const base = metric.base;
    const w = forward ? base.up : base.down, w2 = forward ? base.upSecond : base.downSecond;
    const ow = forward ? metric.oUp : metric.oDown, ow2 = forward ? metric.oUpSecond : metric.oDownSecond;
    const owp = forward ? metric.oUpPlain : metric.oDownPlain;
    const changed = metric.changedStamp, slot = metric.slot, mstamp = metric.stamp;
    heap.clear();
    for (const e of from) {
      const r = rank[e.node];
      if (seen[r] === stamp && cost[r] <= e.cost) continue;
      seen[r] = stamp; cost[r] = e.cost; second[r] = e.second; plain[r] = e.plain ?? e.cost;
      if (queued[r] !== stamp) { queued[r] = stamp; heap.push(r, r); }
    }
    while (heap.size > 0) {
      const r = heap.pop();
      this.visitedCount++;
      const end = upFirst[r + 1];
      if (upFirst[r] === end) {
        if (seen[r] === stamp && cost[r] < Infinity) reached(r, cost[r], second[r], plain[r]);
        continue;
      }
      const parent = upHead[upFirst[r]];
      if (queued[parent] !== stamp) { queued[parent] = stamp; heap.push(parent, parent); }
      if (seen[r] !== stamp) continue;
      const c = cost[r];
      if (c === Infinity) continue;
      const s = second[r], pl = plain[r];
      reached(r, c, s, pl);
      for (let a = upFirst[r]; a < end; a++) {
        let wa: number, wa2: number, wap: number;
        if (changed[a] === mstamp) { const k = slot[a]; wa = ow[k]; wa2 = ow2[k]; wap = owp[k]; } else { wa = w[a]; wa2 = w2[a]; wap = wa; }
        const nc = c + wa;
        if (nc === Infinity) continue;
        const h = upHead[a];
        if (seen[h] !== stamp || nc < cost[h] || (nc === cost[h] && s + wa2 < second[h])) {
          seen[h] = stamp; cost[h] = nc; second[h] = s + wa2; plain[h] = pl + wap;
        }
      }
    }
  }
}

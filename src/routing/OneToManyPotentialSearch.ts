import { COST_STEP, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import type { CostedEndpoint } from './BucketManyToMany.js';
import type { Penalty } from './PathSearch.js';
import { CHPotential } from './CHPotential.js';
import { MinHeap } from './MinHeap.js';

/**
 * Exact costs from one source to many targets around blocked roads: A* on the original graph
 * whose potential is the unblocked cost to the NEAREST target (one CHPotential aimed at all of
 * them; a min of consistent potentials is consistent, and blocking only lengthens paths, so it
 * stays admissible for every target). A settled node's cost is final, so a target's cost is
 * known once its endpoints are settled; the search stops when the smallest key reaches the worst
 * target cost found (no unsettled node can improve any target: key <= cost + cost to any target).
 * The potential depends only on the targets, so a matrix aims it once and runs every source
 * against it: potentials computed for one source serve the next.
 */
export class OneToManyPotentialSearch {
  private readonly cost: Float64Array;
  private readonly second: Float64Array;
  /** The searched metric without penalties (equals cost when there are none). */
  private readonly plain: Float64Array;
  private readonly seen: Uint32Array;
  private readonly heap = new MinHeap(4096);
  private stamp = 0;
  private readonly toTargets: CHPotential;
  /** Per node: its first entry in the target-endpoint CSR, valid where targetSeen is targetStamp. */
  private readonly targetSlot: Uint32Array;
  private readonly targetSeen: Uint32Array;
  private targetStamp = 0;
  private slotFirst = new Uint32Array(1);
  private slotTarget = new Uint32Array(0);
  private slotCost = new Float64Array(0);
  private slotSecond = new Float64Array(0);
  private slotPlain = new Float64Array(0);
  /** Per target: the best search cost (penalties included) of the current run. */
  private targetKey = new Float64Array(0);
  private targetCount = 0;
  private metric: Metric = 'duration';
  /** Nodes settled by the runs since aim(). */
  settledCount = 0;

  constructor(private readonly graph: RoadGraph) {
    const n = graph.nodeCount;
    this.cost = new Float64Array(n);
    this.second = new Float64Array(n);
    this.plain = new Float64Array(n);
    this.seen = new Uint32Array(n);
    this.toTargets = new CHPotential(n);
    this.targetSlot = new Uint32Array(n);
    this.targetSeen = new Uint32Array(n);
  }

  /** Sets the targets (each a list of endpoints) and the metric for the following runs. */
  aim(metric: Metric, targets: CostedEndpoint[][]): void {
    const ch = this.graph.hierarchy![metric];
    this.metric = metric;
    this.targetCount = targets.length;
    this.settledCount = 0;
    this.toTargets.reset(ch, targets.flat());
    if (++this.targetStamp === 0xffffffff) { this.targetSeen.fill(0); this.targetStamp = 1; }
    const tstamp = this.targetStamp;
    const { targetSlot, targetSeen } = this;
    let slots = 0;
    for (const list of targets) for (const e of list) {
      if (targetSeen[e.node] !== tstamp) { targetSeen[e.node] = tstamp; targetSlot[e.node] = slots++; }
    }
    const first = new Uint32Array(slots + 1);
    for (const list of targets) for (const e of list) first[targetSlot[e.node] + 1]++;
    for (let i = 0; i < slots; i++) first[i + 1] += first[i];
    const fill = first.slice(0, slots);
    const total = first[slots];
    this.slotTarget = new Uint32Array(total);
    this.slotCost = new Float64Array(total);
    this.slotSecond = new Float64Array(total);
    this.slotPlain = new Float64Array(total);
    this.targetKey = new Float64Array(targets.length);
    targets.forEach((list, t) => {
      for (const e of list) {
        const k = fill[targetSlot[e.node]]++;
        this.slotTarget[k] = t; this.slotCost[k] = e.cost; this.slotSecond[k] = e.second; this.slotPlain[k] = e.plain ?? e.cost;
      }
    });
    this.slotFirst = first;
  }

  /**
   * Costs from `sources` to the aimed targets, skipping roads with blocked[road] !== 0 and adding
   * the penalty per metre on penalised roads, into outCost[offset + t] (the metric without
   * penalties) and outSecond[offset + t] (the other metric); Infinity where none is reachable.
   * With `wanted`, only targets t with wanted[t] !== 0 are waited for (others may stay Infinity).
   */
  run(
    sources: CostedEndpoint[], blocked: Uint8Array | undefined, penalty: Penalty | undefined, wanted: Uint8Array | undefined,
    outCost: Float64Array, outSecond: Float64Array, offset: number,
  ): void {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad, roadLengthCm } = g;
    // Per road: an edge costs its road's.
    // Per road: an edge costs its road's; metres and milliseconds read at separate sites (see CHPotentialSearch.find).
    const millis = g.roadMillis, byTime = this.metric === 'duration', step = COST_STEP.duration;
    const penalised = penalty?.roads;
    const perMetre = penalty?.costPerMetre;
    const { cost, second, plain, seen, heap, toTargets, targetSlot, targetSeen, slotFirst, slotTarget, slotCost, slotSecond, slotPlain, targetKey } = this;
    const tstamp = this.targetStamp;
    const T = this.targetCount;
    let unreached = 0;
    for (let t = 0; t < T; t++) {
      outCost[offset + t] = Infinity;
      outSecond[offset + t] = Infinity;
      targetKey[t] = Infinity;
      if (!wanted || wanted[t] !== 0) unreached++;
    }
    if (unreached === 0) return;
    if (++this.stamp === 0xffffffff) { seen.fill(0); this.stamp = 1; }
    const stamp = this.stamp;
    heap.clear();
    for (const s of sources) {
      const u = s.node;
      if (seen[u] === stamp && cost[u] <= s.cost) continue;
      seen[u] = stamp;
      cost[u] = s.cost;
      plain[u] = s.plain ?? s.cost;
      second[u] = s.second;
      const h = toTargets.pi(u);
      if (h !== Infinity) heap.push(s.cost + h, u);
    }
    let worst = Infinity; // the largest wanted target cost, once every wanted target has one
    while (heap.size > 0) {
      const key = heap.peekKey();
      if (key >= worst) break;
      const u = heap.pop();
      const cu = cost[u];
      if (key !== cu + toTargets.pi(u)) continue; // stale entry (pi(u) is memoised)
      this.settledCount++;
      if (targetSeen[u] === tstamp) {
        const slot = targetSlot[u];
        let improved = false;
        for (let k = slotFirst[slot], end = slotFirst[slot + 1]; k < end; k++) {
          const t = slotTarget[k];
          const c = cu + slotCost[k];
          if (c < targetKey[t]) {
            if (targetKey[t] === Infinity && (!wanted || wanted[t] !== 0)) unreached--;
            targetKey[t] = c;
            outCost[offset + t] = plain[u] + slotPlain[k];
            outSecond[offset + t] = second[u] + slotSecond[k];
            improved = true;
          }
        }
        if (improved && unreached === 0) {
          worst = 0;
          for (let t = 0; t < T; t++) if ((!wanted || wanted[t] !== 0) && targetKey[t] > worst) worst = targetKey[t];
        }
      }
      const su = second[u], pu = plain[u];
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        const v = edgeHead[e];
        const w = byTime ? millis[road] * step : roadLengthCm[road] * COST_STEP.distance;
        let cv = cu + w;
        if (penalised !== undefined) cv += perMetre![penalised[road]] * (roadLengthCm[road] * COST_STEP.distance);
        if (seen[v] === stamp && cv >= cost[v]) continue;
        seen[v] = stamp;
        cost[v] = cv;
        plain[v] = pu + w;
        second[v] = su + (byTime ? roadLengthCm[road] * COST_STEP.distance : millis[road] * step);
        const h = toTargets.pi(v);
        if (h !== Infinity) heap.push(cv + h, v); // Infinity: no target is reachable from v
      }
    }
  }
}

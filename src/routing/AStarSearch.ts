import { unitVectors } from '../geo/chord.js';
import { EARTH_RADIUS_M } from '../geo/haversine.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { Landmarks } from './Landmarks.js';
import { MinHeap } from '../structures/MinHeap.js';
import type { PathQuery, PathResult, PathSearch } from './PathSearch.js';
import { PenaltyBound } from './PenaltyBound.js';
import { prefault } from '../structures/prefault.js';

/**
 * Shrinks the straight-line bound a hair so floating-point rounding in haversine sums can never
 * make it overestimate (which would cost optimality).
 */
const HEURISTIC_SLACK = 1 - 1e-9;

export interface AStarOptions {
  /**
   * ALT landmarks: a count (built on first use per metric and shared per graph; 0 turns ALT off,
   * leaving the straight-line bound), or prebuilt Landmarks per metric. Default 16.
   */
  landmarks?: number | Landmarks[];
  /**
   * How many landmarks a query uses: those giving the best bound at its sources (Goldberg and
   * Harrelson's "active landmarks"); fewer is cheaper per node, more prunes more. Default 4.
   */
  activeLandmarks?: number;
}

/**
 * A* over the graph's CSR arrays. The heuristic is the larger of two lower bounds: the
 * straight-line (chord) distance to the target point (over the top speed for durations) and, when
 * landmarks are given, the ALT bound. Search state is typed arrays stamped with a query number:
 * starting a query costs O(1), not O(nodes). Not re-entrant: one search object per concurrent
 * query (they are small next to the graph).
 */
export class AStarSearch implements PathSearch {
  readonly name = 'astar';
  private readonly cost: Float64Array;
  private readonly heuristic: Float64Array;
  private readonly parentEdge: Int32Array;
  private readonly seen: Uint32Array;
  private readonly heap = new MinHeap(4096);
  private penaltyLeft?: PenaltyBound;
  private readonly landmarks: number | Landmarks[];
  private readonly activeLandmarks: number;
  private stamp = 0;
  /** Nodes expanded by the last query (for benchmarks and tests). */
  settledCount = 0;

  constructor(private readonly graph: RoadGraph, options: AStarOptions = {}) {
    const n = graph.nodeCount;
    this.cost = prefault(new Float64Array(n));
    this.heuristic = prefault(new Float64Array(n));
    this.parentEdge = prefault(new Int32Array(n));
    this.seen = prefault(new Uint32Array(n));
    this.landmarks = options.landmarks ?? 16;
    this.activeLandmarks = Math.max(1, options.activeLandmarks ?? 4);
    if (Array.isArray(this.landmarks) && this.landmarks.some((lm) => lm.graph !== graph)) {
      throw new Error('landmarks were built for another graph');
    }
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad, nodeXYZ } = g;
    const weight = g.edgeCost(query.metric);
    const blocked = query.blockedRoads;
    const penalised = query.penalty?.roads;
    const perMetre = query.penalty?.costPerMetre;
    const schedule = query.schedule, timed = schedule?.roads;
    // With a penalty, the penalty still to pay joins the bound (PenaltyBound).
    const left = query.penalty === undefined ? undefined : (this.penaltyLeft ??= new PenaltyBound(g));
    left?.reset(query.targets, query.penalty!, blocked);
    const edgeDistance = g.edgeDistance;
    const { cost, heuristic, parentEdge, seen, heap } = this;
    const targets = query.targets;

    const target = unitVectors(Float64Array.of(query.targetLatitude), Float64Array.of(query.targetLongitude));
    const tx = target[0], ty = target[1], tz = target[2];
    const hScale = (query.metric === 'distance' ? 1 : 1 / g.maxSpeedMps) * EARTH_RADIUS_M * HEURISTIC_SLACK;

    // ALT: the active landmarks, and per target endpoint their quantised costs. A bound is
    // (difference of two quantised values - 1) * step: each value is off by at most step / 2, so
    // the bound stays a lower bound. LANDMARK_UNREACHABLE is larger than any finite value, which
    // gives the right answer without a test: a node the landmark reaches but the target does not
    // (or the reverse) cannot reach the target at all, so any bound is valid there.
    const lm = typeof this.landmarks === 'number'
      ? this.landmarks > 0 ? Landmarks.for(g, query.metric, this.landmarks) : undefined
      : this.landmarks.find((l) => l.metric === query.metric);
    const active = lm ? this.chooseLandmarks(lm, query) : new Uint32Array(0);
    const A = active.length;
    const LC = lm ? lm.count : 0;
    const T = targets.length;
    const tFrom = new Float64Array(A * T);
    const tTo = new Float64Array(A * T);
    const tExtra = new Float64Array(T);
    const fromStep = new Float64Array(A);
    const toStep = new Float64Array(A);
    if (lm) {
      for (let a = 0; a < A; a++) {
        fromStep[a] = lm.fromStep[active[a]];
        toStep[a] = lm.toStep[active[a]];
      }
      for (let j = 0; j < T; j++) {
        const t = targets[j].node;
        tExtra[j] = targets[j].cost;
        for (let a = 0; a < A; a++) {
          tFrom[j * A + a] = lm.fromLandmark[t * LC + active[a]] - 1;
          tTo[j * A + a] = lm.toLandmark[t * LC + active[a]] + 1;
        }
      }
    }
    const fromL = lm?.fromLandmark;
    const toL = lm?.toLandmark;
    const estimate = (v: number): number => {
      const dx = nodeXYZ[3 * v] - tx, dy = nodeXYZ[3 * v + 1] - ty, dz = nodeXYZ[3 * v + 2] - tz;
      const straight = Math.sqrt(dx * dx + dy * dy + dz * dz) * hScale;
      if (A === 0) return straight;
      let alt = Infinity;
      for (let j = 0; j < T; j++) {
        // Lower bound of cost(v, target j).
        let b = 0;
        for (let a = 0; a < A; a++) {
          const k = v * LC + active[a];
          const b1 = (tFrom[j * A + a] - fromL![k]) * fromStep[a];
          const b2 = (toL![k] - tTo[j * A + a]) * toStep[a];
          if (b1 > b) b = b1;
          if (b2 > b) b = b2;
        }
        b += tExtra[j];
        if (b < alt) alt = b;
      }
      return alt > straight ? alt : straight;
    };

    if (++this.stamp === 0xffffffff) {
      seen.fill(0);
      this.stamp = 1;
    }
    const stamp = this.stamp;
    heap.clear();
    this.settledCount = 0;

    for (const s of query.sources) {
      const u = s.node;
      if (seen[u] === stamp && cost[u] <= s.cost) continue;
      if (seen[u] !== stamp) {
        heuristic[u] = estimate(u) + (left === undefined ? 0 : left.of(u));
        seen[u] = stamp;
      }
      cost[u] = s.cost;
      parentEdge[u] = -1;
      if (heuristic[u] !== Infinity) heap.push(s.cost + heuristic[u], u);
    }

    let best = Infinity;
    let bestTarget = -1;
    while (heap.size > 0) {
      const key = heap.peekKey();
      if (key >= best) break;
      const u = heap.pop();
      const cu = cost[u];
      // Stale entry: u was reached more cheaply after this one was pushed.
      if (key !== cu + heuristic[u]) continue;
      this.settledCount++;
      for (let t = 0; t < T; t++) {
        if (targets[t].node === u && cu + targets[t].cost < best) {
          best = cu + targets[t].cost;
          bestTarget = t;
        }
      }
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        if (blocked !== undefined && blocked[edgeRoad[e]] !== 0) continue;
        const v = edgeHead[e];
        let cv = cu + weight[e];
        if (penalised !== undefined) cv += perMetre![penalised[edgeRoad[e]]] * edgeDistance[e];
        if (timed !== undefined && timed[edgeRoad[e]] !== 0) {
          const wait = schedule!.wait(timed[edgeRoad[e]], cu, weight[e]);
          if (wait === Infinity) continue;
          cv += wait;
        }
        if (seen[v] !== stamp) {
          seen[v] = stamp;
          heuristic[v] = estimate(v) + (left === undefined ? 0 : left.of(v));
        } else if (cv >= cost[v]) {
          continue;
        }
        cost[v] = cv;
        parentEdge[v] = e;
        const h = heuristic[v];
        if (h !== Infinity) heap.push(cv + h, v); // Infinity: no target is reachable from v
      }
    }
    if (bestTarget < 0) return null;
    return this.path(query, bestTarget, best);
  }

  /** The landmarks whose bound from the first source to the first target is largest. */
  private chooseLandmarks(lm: Landmarks, query: PathQuery): Uint32Array {
    const L = lm.count;
    if (L <= this.activeLandmarks) return Uint32Array.from({ length: L }, (_, i) => i);
    const s = query.sources[0]?.node ?? 0;
    const t = query.targets[0]?.node ?? 0;
    const score = (i: number) => {
      const b1 = (lm.fromLandmark[t * L + i] - lm.fromLandmark[s * L + i]) * lm.fromStep[i];
      const b2 = (lm.toLandmark[s * L + i] - lm.toLandmark[t * L + i]) * lm.toStep[i];
      return Math.max(b1 > 0 ? b1 : 0, b2 > 0 ? b2 : 0);
    };
    const order = Array.from({ length: L }, (_, i) => i).sort((a, b) => score(b) - score(a));
    return Uint32Array.from(order.slice(0, this.activeLandmarks));
  }

  private path(query: PathQuery, bestTarget: number, best: number): PathResult {
    const g = this.graph;
    const { cost, parentEdge } = this;
    const targets = query.targets;
    const edges: number[] = [];
    let node = targets[bestTarget].node;
    while (parentEdge[node] !== -1) {
      const e = parentEdge[node];
      edges.push(e);
      node = g.edgeTailOf(e);
    }
    edges.reverse();
    const source = query.sources.findIndex((s) => s.node === node && s.cost === cost[node]);
    return { cost: best, source, target: bestTarget, edges };
  }
}

import { DetourError, ErrorCode } from '../errors.js';
import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';
import { CHPotential } from './CHPotential.js';
import { MinHeap } from './MinHeap.js';
import { NodeRecords } from './NodeRecords.js';
import { PenaltyBound } from './PenaltyBound.js';
import type { PathQuery, PathResult, PathSearch } from './PathSearch.js';

/**
 * A* on the original graph whose potential is the exact unblocked cost to the target set, read
 * lazily from the contraction hierarchy (CHPotential, reset per query). Blocked
 * roads and penalties only make paths dearer, so pi stays admissible and consistent; the search
 * explores only where blocked roads force a detour. Honours blocked roads and the zone penalty
 * exactly like AStarSearch; with a penalty the potential adds the penalty still to pay
 * (PenaltyBound), else a target inside a zone drew the search over every node outside the zones
 * first. State per touched node in sparse sets, cleared per query in O(1); not
 * re-entrant. `records` lends it the state of a search that never runs at the same time
 * (NodeRecords): its own and the potential's.
 */
export class CHPotentialSearch implements PathSearch {
  readonly name = 'ch-astar';
  /** Per touched node (entry i): values[2i] its cost, words[4i + 3] the edge it was reached by (-1 at a source). */
  private readonly records: NodeRecords;
  /** Per entry of records: the potential its heap key was made with (a stale key is told without a lookup of pi). */
  private pushedPi: Float64Array = new Float64Array(4096);
  private readonly toTargets: CHPotential;
  private readonly heap = new MinHeap(4096);
  /** With a penalty: the penalty still to pay, added to the potential (made at the first such query). */
  private penaltyLeft?: PenaltyBound;
  /** Nodes expanded by the last query's A*. */
  settledCount = 0;
  /** Nodes whose potential the last query computed. */
  potentialCount = 0;

  constructor(private readonly graph: RoadGraph, records?: readonly [search: NodeRecords, potential: NodeRecords]) {
    if (!graph.hierarchy) throw noHierarchy();
    const n = graph.nodeCount;
    const [search, potential] = records ?? [new NodeRecords(n), new NodeRecords(n)];
    this.records = search;
    this.toTargets = new CHPotential(n, potential);
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad, roadLengthCm } = g;
    // Per road: an edge costs its road's. Centimetres and milliseconds each read at their own site
    // (when one site read both float64 metres and uint32 milliseconds, the city's zoned searches
    // ran 15-40 % slower once both metrics had been routed).
    const millis = g.roadMillis, byTime = query.metric === 'duration';
    const blocked = query.blockedRoads;
    const penalised = query.penalty?.roads;
    const perMetre = query.penalty?.costPerMetre;
    const { records, heap, toTargets } = this;
    const targets = query.targets;
    const T = targets.length;

    records.clear();
    // The records may have given room back (NodeRecords.clear): so does the pushed potential beside them.
    if (this.pushedPi.length > records.values.length >>> 1) this.pushedPi = new Float64Array(records.values.length >>> 1);
    toTargets.reset(g.hierarchy![query.metric], targets);
    const left = query.penalty === undefined ? undefined : (this.penaltyLeft ??= new PenaltyBound(g));
    left?.reset(targets, query.penalty!, blocked);
    heap.clear();
    this.settledCount = 0;

    for (const s of query.sources) {
      const i = records.improve(s.node, s.cost);
      if (i < 0) continue;
      records.words[4 * i + 3] = -1;
      let h = toTargets.pi(s.node);
      if (left !== undefined) h += left.of(s.node);
      if (i >= this.pushedPi.length) this.growPushedPi();
      this.pushedPi[i] = h;
      if (h !== Infinity) heap.push(s.cost + h, s.node);
    }

    let best = Infinity;
    let bestTarget = -1;
    let pushedPi = this.pushedPi;
    while (heap.size > 0) {
      const key = heap.peekKey();
      if (key >= best) break;
      const u = heap.pop();
      const iu = records.find(u);
      const cu = records.values[2 * iu];
      if (key !== cu + pushedPi[iu]) continue; // stale entry
      this.settledCount++;
      for (let t = 0; t < T; t++) {
        if (targets[t].node === u && cu + targets[t].cost < best) {
          best = cu + targets[t].cost;
          bestTarget = t;
        }
      }
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        const v = edgeHead[e];
        let cv = cu + (byTime ? millis[road] * COST_STEP.duration : roadLengthCm[road] * COST_STEP.distance);
        if (penalised !== undefined) cv += perMetre![penalised[road]] * (roadLengthCm[road] * COST_STEP.distance);
        const i = records.improve(v, cv);
        if (i < 0) continue;
        records.words[4 * i + 3] = e;
        if (i >= pushedPi.length) pushedPi = this.growPushedPi();
        let h = toTargets.pi(v);
        if (left !== undefined) h += left.of(v);
        pushedPi[i] = h;
        if (h !== Infinity) heap.push(cv + h, v); // Infinity: no target is reachable from v
      }
    }
    this.potentialCount = toTargets.computed;
    if (bestTarget < 0) return null;
    const edges: number[] = [];
    let node = targets[bestTarget].node;
    const words = records.words;
    while (words[4 * records.find(node) + 3] !== -1) {
      const e = words[4 * records.find(node) + 3];
      edges.push(e);
      node = g.edgeTailOf(e);
    }
    edges.reverse();
    const source = query.sources.findIndex((s) => s.node === node && s.cost === records.values[2 * records.find(node)]);
    return { cost: best, source, target: bestTarget, edges };
  }

  /** Bytes of its search state (its records' and the potential's: see NodeRecords). */
  get stateBytes(): number {
    return this.records.byteSize + this.toTargets.records.byteSize + this.pushedPi.byteLength;
  }

  private growPushedPi(): Float64Array {
    const grown = new Float64Array(this.records.values.length >>> 1); // as much room as the entries
    grown.set(this.pushedPi);
    return (this.pushedPi = grown);
  }
}

/** Whether none of the edges lies on a road marked in `blocked`. */
export function drivesNone(edgeRoad: Uint32Array, edges: readonly number[], blocked: Uint8Array): boolean {
  for (let i = 0; i < edges.length; i++) if (blocked[edgeRoad[edges[i]]] !== 0) return false;
  return true;
}

export function noHierarchy(): DetourError {
  return new DetourError(
    ErrorCode.INVALID_INPUT,
    'the graph has no contraction hierarchy: re-import it with detour import (or call buildHierarchy), or use the astar engine',
  );
}

import { DetourError, ErrorCode } from '../errors.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { CHPotential } from './CHPotential.js';
import { CHQuery } from './CHQuery.js';
import { MinHeap } from './MinHeap.js';
import type { PathQuery, PathResult, PathSearch } from './PathSearch.js';
import { prefault } from './prefault.js';

/**
 * A* on the original graph whose potential is the exact unblocked cost to the target set, read
 * lazily from the contraction hierarchy (CHPotential, reset per query). Blocked
 * roads and penalties only make paths dearer, so pi stays admissible and consistent; the search
 * explores only where blocked roads force a detour. Honours blocked roads and the zone penalty
 * exactly like AStarSearch. Scratch arrays stamped per query; not re-entrant.
 */
export class CHPotentialSearch implements PathSearch {
  readonly name = 'ch-astar';
  /**
   * Per node v, 16 bytes side by side (one cache line per relaxed node instead of three):
   * state[2v] = cost; in the i32 view over the same bytes, words[4v + 2] = the query stamp that
   * makes it valid and words[4v + 3] = the edge it was reached by (-1 at a source).
   */
  private readonly state: Float64Array;
  private readonly words: Int32Array;
  private readonly toTargets: CHPotential;
  private readonly heap = new MinHeap(4096);
  private stamp = 0;
  /** Nodes expanded by the last query's A*. */
  settledCount = 0;
  /** Nodes whose potential the last query computed. */
  potentialCount = 0;

  constructor(private readonly graph: RoadGraph) {
    if (!graph.hierarchy) throw noHierarchy();
    const n = graph.nodeCount;
    this.state = prefault(new Float64Array(2 * n));
    this.words = new Int32Array(this.state.buffer);
    this.toTargets = new CHPotential(n);
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad, edgeDistance } = g;
    const weight = g.edgeCost(query.metric);
    const blocked = query.blockedRoads;
    const penalised = query.penalty?.roads;
    const perMetre = query.penalty?.costPerMetre;
    const { state, words, heap, toTargets } = this;
    const targets = query.targets;
    const T = targets.length;

    // Stamps live in an i32 view: wrap before they turn negative.
    if (++this.stamp === 0x7fffffff) {
      words.fill(0);
      this.stamp = 1;
    }
    const stamp = this.stamp;
    toTargets.reset(g.hierarchy![query.metric], targets);
    heap.clear();
    this.settledCount = 0;

    for (const s of query.sources) {
      const u = s.node;
      if (words[4 * u + 2] === stamp && state[2 * u] <= s.cost) continue;
      words[4 * u + 2] = stamp;
      state[2 * u] = s.cost;
      words[4 * u + 3] = -1;
      const h = toTargets.pi(u);
      if (h !== Infinity) heap.push(s.cost + h, u);
    }

    let best = Infinity;
    let bestTarget = -1;
    const potentialRecord = toTargets.record;
    while (heap.size > 0) {
      const key = heap.peekKey();
      if (key >= best) break;
      const u = heap.pop();
      const cu = state[2 * u];
      if (key !== cu + potentialRecord[3 * u]) continue; // stale entry
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
        if (words[4 * v + 2] === stamp && cv >= state[2 * v]) continue;
        words[4 * v + 2] = stamp;
        state[2 * v] = cv;
        words[4 * v + 3] = e;
        const h = toTargets.pi(v);
        if (h !== Infinity) heap.push(cv + h, v); // Infinity: no target is reachable from v
      }
    }
    this.potentialCount = toTargets.computed;
    if (bestTarget < 0) return null;
    const edges: number[] = [];
    let node = targets[bestTarget].node;
    while (words[4 * node + 3] !== -1) {
      const e = words[4 * node + 3];
      edges.push(e);
      node = g.edgeTail[e];
    }
    edges.reverse();
    const source = query.sources.findIndex((s) => s.node === node && s.cost === state[2 * node]);
    return { cost: best, source, target: bestTarget, edges };
  }
}

/**
 * The hierarchy engine: the CH query for routes with nothing penalised whose cheapest path drives
 * no blocked road (that path is then also the cheapest around them: blocking only removes paths),
 * the CH-potential A* otherwise. Both exact; `settledCount` is the last query's expanded nodes.
 */
export class HierarchySearch implements PathSearch {
  readonly name = 'ch';
  readonly free: CHQuery;
  readonly constrained: CHPotentialSearch;
  settledCount = 0;

  constructor(private readonly graph: RoadGraph) {
    if (!graph.hierarchy) throw noHierarchy();
    this.free = new CHQuery(graph, graph.hierarchy);
    this.constrained = new CHPotentialSearch(graph);
  }

  find(query: PathQuery): PathResult | null {
    let settled = 0;
    const blocked = query.blockedRoads;
    if (query.penalty === undefined) {
      // Most routes miss most zones: a free query (about a millisecond on a country) settles it.
      const found = this.free.find(query.sources, query.targets, query.metric);
      settled = this.free.settledCount;
      if (blocked === undefined || found === null || drivesNone(this.graph.edgeRoad, found.edges, blocked)) {
        this.settledCount = settled;
        return found;
      }
    }
    const found = this.constrained.find(query);
    this.settledCount = settled + this.constrained.settledCount;
    return found;
  }
}

/** Whether none of the edges lies on a road marked in `blocked`. */
function drivesNone(edgeRoad: Uint32Array, edges: readonly number[], blocked: Uint8Array): boolean {
  for (let i = 0; i < edges.length; i++) if (blocked[edgeRoad[edges[i]]] !== 0) return false;
  return true;
}

function noHierarchy(): DetourError {
  return new DetourError(
    ErrorCode.INVALID_INPUT,
    'the graph has no contraction hierarchy: re-import it with detour import (or call buildHierarchy), or use the astar engine',
  );
}

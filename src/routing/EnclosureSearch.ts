import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeCosts } from '../structures/NodeCosts.js';
import type { CHQuery } from './CHQuery.js';
import type { Endpoint, PathQuery, PathResult, PathSearch } from './PathSearch.js';

/**
 * Most nodes one side settles inside its stop's enclosure before the leg is left to the fallback:
 * the overlay's cliques cross a bigger enclosure faster than a Dijkstra walks it.
 */
export const ENCLOSURE_BUDGET = 4096;

/**
 * A vehicle class's legs whose stops lie behind its destination-only roads (or on them), without
 * zones: the fewest metres on those roads, then the cheapest, as the penalised search finds, from
 * two small searches and one query of the class's own hierarchies.
 *
 * Nodes outside the largest strongly connected component of the class's graph without its closed
 * and destination-only roads (`enclosed`) are what such roads enclose. A path's first node in that
 * component (x) is reached through enclosed nodes only, and so is its last (y) left: a Dijkstra
 * from the sources that expands enclosed nodes only (the penalty charged) knows the cost of every
 * prefix up to x, one backward from the targets every suffix from y. Between x and y a path that
 * drives no destination-only road stays in the component (a node it left through open roads would
 * belong to it), where the class's hierarchies know its cheapest cost: one query from the exits x
 * to the entries y, their costs as the endpoints', gives the cheapest path of that form; a path
 * that never reaches the component is found by the first search meeting a target. A path that
 * drives a destination-only road between x and y costs at least the cheapest exit, the cheapest
 * entry and the charge of the shortest such road: when the path found costs no more, it is the
 * cheapest of all; else (and beyond ENCLOSURE_BUDGET) the leg goes to `fallback`.
 */
export class EnclosureSearch implements PathSearch {
  readonly name = 'enclosure';
  settledCount = 0;
  private readonly forward = new EnclosureSide();
  private readonly backward = new EnclosureSide();

  /**
   * `graph`: the class's graph (its topology; times come with each query's roadMillis).
   * `minCharge`: the penalty of the shortest road a query's penalty charges.
   */
  constructor(
    private readonly graph: RoadGraph, private readonly enclosed: Uint8Array, private readonly free: CHQuery,
    private readonly fallback: PathSearch, private readonly minCharge: number,
  ) {}

  find(query: PathQuery): PathResult | null {
    const found = this.decompose(query);
    if (found !== undefined) return found;
    // The penalty is unavoidable near the targets only when they are enclosed; else the fallback's
    // bound of it (PenaltyBound) is zero where the targets lie, and not worth walking their surroundings.
    const enclosed = this.enclosed;
    const penalty = query.penalty && { ...query.penalty, unavoidable: query.targets.every((t) => enclosed[t.node] === 1) };
    const fallen = this.fallback.find({ ...query, penalty });
    this.settledCount += this.fallback.settledCount ?? 0;
    return fallen;
  }

  /** The cheapest path by exits, entries and the class's hierarchies; undefined where that is not proven cheapest. */
  private decompose(query: PathQuery): PathResult | null | undefined {
    const { sources, targets, metric } = query;
    const f = this.forward, b = this.backward;
    let direct = Infinity, directTarget = -1, directNode = -1;
    const reached = f.explore(this.graph, query, sources, true, this.enclosed, (node, cost) => {
      for (let t = 0; t < targets.length; t++) {
        if (targets[t].node === node && cost + targets[t].cost < direct) { direct = cost + targets[t].cost; directTarget = t; directNode = node; }
      }
    });
    this.settledCount = f.settled;
    if (!reached) return undefined;
    if (!b.explore(this.graph, query, targets, false, this.enclosed)) return undefined;
    this.settledCount += b.settled;
    const exits = f.border, entries = b.border;
    const middle = exits.length > 0 && entries.length > 0 ? this.free.find(exits, entries, metric) : null;
    this.settledCount += this.free.settledCount;
    const cost = Math.min(direct, middle?.cost ?? Infinity);
    // Proven cheapest: no other path reaches the component; or one driving a destination-only road in it costs at least this.
    if (exits.length > 0 && entries.length > 0 && cost > minCost(exits) + minCost(entries) + this.minCharge) return undefined;
    if (cost === Infinity) return null;
    if (middle === null || direct <= middle.cost) {
      const edges = f.pathTo(this.graph, directNode, true);
      return { cost, source: endpointAt(sources, f.rootNode), target: directTarget, edges };
    }
    const x = exits[middle.source].node, y = entries[middle.target].node;
    const edges = f.pathTo(this.graph, x, true);
    const first = endpointAt(sources, f.rootNode);
    for (const e of middle.edges) edges.push(e);
    for (const e of b.pathTo(this.graph, y, false)) edges.push(e);
    return { cost, source: first, target: endpointAt(targets, b.rootNode), edges };
  }
}

function minCost(list: readonly Endpoint[]): number {
  let m = Infinity;
  for (const e of list) if (e.cost < m) m = e.cost;
  return m;
}

/** The index of the cheapest endpoint at `node` (the one a side's search started from there). */
function endpointAt(endpoints: readonly Endpoint[], node: number): number {
  let best = -1;
  for (let i = 0; i < endpoints.length; i++) if (endpoints[i].node === node && (best < 0 || endpoints[i].cost < endpoints[best].cost)) best = i;
  if (best < 0) throw new Error(`no endpoint at node ${node}`);
  return best;
}

/**
 * One side's Dijkstra from a stop's endpoints that expands enclosed nodes only: the nodes of the
 * largest component it reaches are its border (costs as endpoints of the class's hierarchies' query).
 */
class EnclosureSide {
  private readonly costs = new NodeCosts();
  /** Per node reached: the edge it was reached by (-1 at an endpoint), in `costs` of a table of its own. */
  private readonly parents = new NodeCosts();
  private readonly heap = new MinHeap(256);
  readonly border: Endpoint[] = [];
  settled = 0;
  /** The endpoint node the last pathTo() led back to. */
  rootNode = -1;

  /** Settles the enclosure of `from`; false when it passed ENCLOSURE_BUDGET nodes. */
  explore(graph: RoadGraph, query: PathQuery, from: readonly Endpoint[], forward: boolean, enclosed: Uint8Array, onSettled?: (node: number, cost: number) => void): boolean {
    const { costs, parents, heap, border } = this;
    costs.clear();
    parents.clear();
    heap.clear();
    border.length = 0;
    this.settled = 0;
    const { firstOut, edgeHead, edgeRoad, roadLengthCm } = graph;
    const inward = forward ? undefined : graph.reverseAdjacency();
    const byTime = query.metric === 'duration';
    const millis = query.roadMillis ?? graph.roadMillis;
    const blocked = query.blockedRoads, penalised = query.penalty?.roads, perMetre = query.penalty?.costPerMetre;
    const reach = (v: number, c: number, edge: number) => {
      let s = costs.find(v);
      if (s >= 0 && (costs.done[s] === 1 || costs.costs[s] <= c)) return;
      if (s < 0) s = costs.add(v);
      costs.costs[s] = c;
      let p = parents.find(v);
      if (p < 0) p = parents.add(v);
      parents.costs[p] = edge;
      heap.push(c, v);
    };
    for (const e of from) reach(e.node, e.cost, -1);
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      const su = costs.find(u);
      if (costs.done[su] === 1) continue;
      costs.done[su] = 1;
      if (++this.settled > ENCLOSURE_BUDGET) return false;
      onSettled?.(u, key);
      if (enclosed[u] === 0) {
        border.push({ node: u, cost: key, reversed: false });
        continue;
      }
      const first = forward ? firstOut[u] : inward!.firstIn[u], end = forward ? firstOut[u + 1] : inward!.firstIn[u + 1];
      for (let k = first; k < end; k++) {
        const e = forward ? k : inward!.inEdge[k];
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        let c = key + (byTime ? millis[road] * COST_STEP.duration : roadLengthCm[road] * COST_STEP.distance);
        if (penalised !== undefined) c += perMetre![penalised[road]] * (roadLengthCm[road] * COST_STEP.distance);
        reach(forward ? edgeHead[e] : graph.edgeTailOf(e), c, e);
      }
    }
    return true;
  }

  /** The edges from this side's endpoint to `node` (forward), or from `node` to it (backward), in driving order. */
  pathTo(graph: RoadGraph, node: number, forward: boolean): number[] {
    const edges: number[] = [];
    let v = node;
    for (;;) {
      const e = this.parents.costs[this.parents.find(v)];
      if (e < 0) break;
      edges.push(e);
      v = forward ? graph.edgeTailOf(e) : graph.edgeHead[e];
    }
    this.rootNode = v;
    if (forward) edges.reverse();
    return edges;
  }
}

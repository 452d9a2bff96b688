import { COST_STEP, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from '../structures/MinHeap.js';
import type { NodeRecords } from '../structures/NodeRecords.js';
import type { CHQuery } from './CHQuery.js';
import { junctionEnd } from './OverlaySearch.js';
import type { Endpoint, PathQuery, PathResult, PathSearch } from './PathSearch.js';

/**
 * A leg around zones: the class's own search (its hierarchies, its overlay) and the members of
 * the query that keeps its routes off the zones (their roads blocked, their cells' cliques), as
 * the leg's first search had them.
 */
export interface AroundZones {
  search: PathSearch;
  members: Pick<PathQuery, 'blockedRoads' | 'blockedRoadLists' | 'blockedCellCliques' | 'sharedCellCliques' | 'bigCellCliques'>;
}

/**
 * Most nodes one side settles inside its stop's enclosure (a bound on a leg's work here) before the
 * leg is left to the fallback, which crosses the cells of a bigger one by cliques.
 */
export const ENCLOSURE_BUDGET = 1 << 18;
/** Most exits (or entries) one side hands the hierarchies' query. */
const MAX_BORDER = 1024;
/** How many of the shortest destination-only roads the proof bounds one by one (EnclosureSearch.proven). */
export const SHORT_ROADS = 8;

/**
 * A vehicle class's legs whose stops lie behind its destination-only roads (or on them): the
 * fewest metres on those roads (and on zones' roads), then the cheapest, as the penalised search
 * finds, from two small searches and one query of the class's own hierarchies (or, around zones,
 * of its own search that avoids them).
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
 * drives a destination-only road between x and y costs at least the exits and entries joined by a
 * lower bound of the class's costs (a car's hierarchies) plus that road's charge (proven): when
 * the path found costs no more, it is the cheapest of all; else (and beyond ENCLOSURE_BUDGET) the
 * leg goes to `fallback`. Around zones (`around`) the stretch between x and y must keep off the
 * zones' roads too, which the penalty charges as it charges destination-only ones: the class's
 * search that avoids them joins the exits to the entries, and the proof bounds a stretch that
 * drives a zone's road as one that drives a destination-only road, by the least charge of the
 * zones' roads.
 */
export class EnclosureSearch implements PathSearch {
  readonly name = 'enclosure';
  settledCount = 0;
  private readonly forward: EnclosureSide;
  private readonly backward: EnclosureSide;

  /** The edges of the SHORT_ROADS shortest destination-only roads, and each one's charge. */
  private readonly shortEdges: number[] = [];
  private readonly shortCharges: number[] = [];
  /** The charge of the shortest destination-only road, and of the shortest one not among those. */
  private readonly minCharge: number;
  private readonly longCharge: number;

  /**
   * `graph`: the class's graph (its topology; times come with each query's roadMillis). `free`:
   * the query of the class's hierarchies, and `records` the node records it uses (the two sides'
   * searches use them first). `lower`: a query of hierarchies whose costs are at most the class's
   * over every road (a car's, closed roads open). `destinationOnly`: the roads a query's penalty
   * charges, `costPerMetre` each. `shortRoads`: how many of the shortest are bounded one by one.
   */
  constructor(
    private readonly graph: RoadGraph, private readonly enclosed: Uint8Array, private readonly free: CHQuery, private readonly lower: CHQuery,
    records: readonly [NodeRecords, NodeRecords], private readonly fallback: PathSearch, destinationOnly: ArrayLike<number>, costPerMetre: number,
    shortRoads = SHORT_ROADS,
  ) {
    this.forward = new EnclosureSide(records[0], true);
    this.backward = new EnclosureSide(records[1], false);
    const { roadLengthCm, roadFrom, roadTo, firstOut, edgeRoad } = graph;
    const charged = Array.from(destinationOnly, (road) => ({ road, charge: costPerMetre * (roadLengthCm[road] * COST_STEP.distance) })).sort((a, b) => a.charge - b.charge);
    this.minCharge = charged[0]?.charge ?? Infinity;
    this.longCharge = charged[shortRoads]?.charge ?? Infinity;
    for (const { road, charge } of charged.slice(0, shortRoads)) {
      // Its edges leave its end junctions or their turn restrictions' copies.
      const edges = new Set<number>();
      for (const end of [roadFrom[road], roadTo[road]]) {
        for (let v = end, last = junctionEnd(graph, end); v < last; v++) for (let e = firstOut[v]; e < firstOut[v + 1]; e++) if (edgeRoad[e] === road) edges.add(e);
      }
      for (const e of edges) { this.shortEdges.push(e); this.shortCharges.push(charge); }
    }
  }

  find(query: PathQuery): PathResult | null {
    return this.findAround(query, undefined);
  }

  /** This search for legs around zones: the class's search and the zones' members of its query (AroundZones). */
  around(zones: AroundZones): PathSearch {
    return { name: this.name, find: (query) => this.findAround(query, zones) };
  }

  private findAround(query: PathQuery, zones: AroundZones | undefined): PathResult | null {
    const found = this.decompose(query, zones);
    if (found !== undefined) return found;
    // Without zones the penalty is unavoidable near the targets only when they are enclosed; else
    // the fallback's bound of it (PenaltyBound) is zero where they lie, and not worth walking
    // their surroundings. Zones around the targets may make it so: the caller's word stands.
    const enclosed = this.enclosed;
    const penalty = query.penalty && !zones ? { ...query.penalty, unavoidable: query.targets.every((t) => enclosed[t.node] !== 0) } : query.penalty;
    const fallen = this.fallback.find({ ...query, penalty });
    this.settledCount += this.fallback.settledCount ?? 0;
    return fallen;
  }

  /** The cheapest path by exits, entries and the class's hierarchies; undefined where that is not proven cheapest. */
  private decompose(query: PathQuery, zones: AroundZones | undefined): PathResult | null | undefined {
    const { sources, targets, metric } = query;
    const f = this.forward, b = this.backward;
    let direct = Infinity, directTarget = -1, directNode = -1;
    const reached = f.explore(this.graph, query, sources, this.enclosed, (node, cost) => {
      for (let t = 0; t < targets.length; t++) {
        if (targets[t].node === node && cost + targets[t].cost < direct) { direct = cost + targets[t].cost; directTarget = t; directNode = node; }
      }
    });
    this.settledCount = f.settled;
    if (!reached || !b.explore(this.graph, query, targets, this.enclosed)) return undefined;
    this.settledCount += b.settled;
    const exits = f.border, entries = b.border;
    if (exits.length > MAX_BORDER || entries.length > MAX_BORDER) return undefined;
    // The paths to the border, read before the hierarchies' query takes the records.
    const directPath = direct < Infinity ? f.pathTo(this.graph, directNode) : undefined;
    const directSource = f.root;
    const exitPaths = exits.map((x) => ({ edges: f.pathTo(this.graph, x.node), root: f.root }));
    const entryPaths = entries.map((y) => ({ edges: b.pathTo(this.graph, y.node), root: b.root }));
    let middle: PathResult | null = null;
    if (exits.length > 0 && entries.length > 0) {
      if (zones) {
        middle = zones.search.find({ sources: exits, targets: entries, metric, targetLatitude: query.targetLatitude, targetLongitude: query.targetLongitude, ...zones.members });
        this.settledCount += zones.search.settledCount ?? 0;
      } else {
        middle = this.free.find(exits, entries, metric);
        this.settledCount += this.free.settledCount;
      }
    }
    const cost = Math.min(direct, middle?.cost ?? Infinity);
    if (exits.length > 0 && entries.length > 0 && !this.proven(cost, exits, entries, metric, zones ? leastZoneCharge(this.graph, query, zones) : Infinity)) return undefined;
    if (cost === Infinity) return null;
    if (middle === null || direct <= middle.cost) return { cost, source: endpointAt(sources, directSource), target: directTarget, edges: directPath! };
    const start = exitPaths[middle.source], end = entryPaths[middle.target];
    return { cost, source: endpointAt(sources, start.root), target: endpointAt(targets, end.root), edges: [...start.edges, ...middle.edges, ...end.edges] };
  }

  /**
   * Whether no path driving a destination-only road between its first and last node in the
   * component costs less than `cost`. Such a path costs at least the cheapest exit and entry plus
   * that road's charge; through one other than the shortest few, at least the exits and entries
   * joined by the lower bound's hierarchies plus the least of those charges; through one of the
   * shortest few, at least the exits joined to its edge's tail and that edge's head to the entries
   * by those hierarchies, plus its charge. Through a
   * zone's road, at least the exits and entries joined plus `zoneCharge`, the least of those roads'.
   */
  private proven(cost: number, exits: Endpoint[], entries: Endpoint[], metric: Metric, zoneCharge: number): boolean {
    const lower = this.lower, graph = this.graph;
    const entry = minCost(entries), least = minCost(exits) + entry;
    if (cost <= least + Math.min(this.minCharge, zoneCharge)) return true;
    const joined = (from: Endpoint[], to: Endpoint[]) => {
      const found = lower.find(from, to, metric);
      this.settledCount += lower.settledCount;
      return found?.cost ?? Infinity;
    };
    let both: number | undefined;
    const exitsToEntries = () => (both ??= joined(exits, entries));
    if (cost > least + zoneCharge && cost > exitsToEntries() + zoneCharge) return false;
    if (cost > least + this.longCharge && cost > exitsToEntries() + this.longCharge) return false;
    for (let i = 0; i < this.shortEdges.length; i++) {
      const e = this.shortEdges[i], charge = this.shortCharges[i];
      if (cost <= least + charge) continue;
      const into = joined(exits, [{ node: graph.edgeTailOf(e), cost: 0, reversed: false }]);
      if (cost <= into + charge + entry) continue;
      if (cost > into + charge + joined([{ node: graph.edgeHead[e], cost: 0, reversed: false }], entries)) return false;
    }
    return true;
  }
}

/** The least charge of a road of the zones (the lists of their blocked roads), by the query's penalty. */
function leastZoneCharge(graph: RoadGraph, query: PathQuery, zones: AroundZones): number {
  const penalty = query.penalty, lists = zones.members.blockedRoadLists;
  if (!penalty || !lists) return 0;
  const { roads, costPerMetre } = penalty, { roadLengthCm } = graph;
  let least = Infinity;
  for (const list of lists) {
    for (let i = 0; i < list.length; i++) {
      const r = list[i], charge = costPerMetre[roads[r]] * (roadLengthCm[r] * COST_STEP.distance);
      if (charge < least) least = charge;
    }
  }
  return least;
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
 * One side's Dijkstra from a stop's endpoints (forward from sources, backward from targets) that
 * expands enclosed nodes only: the nodes of the largest component it reaches are its border (their
 * costs the endpoints of the class's hierarchies' query). Its state is NodeRecords entries, the
 * link of each the edge that reached it (-1 at an endpoint).
 */
class EnclosureSide {
  private readonly heap = new MinHeap(256);
  readonly border: Endpoint[] = [];
  settled = 0;
  /** The endpoint node the last pathTo() led back to. */
  root = -1;

  constructor(private readonly records: NodeRecords, private readonly forward: boolean) {}

  /** Settles the enclosure of `from`; false when it passed ENCLOSURE_BUDGET nodes. */
  explore(graph: RoadGraph, query: PathQuery, from: readonly Endpoint[], enclosed: Uint8Array, onSettled?: (node: number, cost: number) => void): boolean {
    const { records, heap, border, forward } = this;
    records.clear();
    heap.clear();
    border.length = 0;
    this.settled = 0;
    const { firstOut, edgeHead, edgeRoad, roadLengthCm } = graph;
    const inward = forward ? undefined : graph.reverseAdjacency();
    const byTime = query.metric === 'duration';
    const millis = query.roadMillis ?? graph.roadMillis;
    const blocked = query.blockedRoads, penalised = query.penalty?.roads, perMetre = query.penalty?.costPerMetre;
    // A stop in a component bigger than the budget: its enclosure is too.
    for (const e of from) if (enclosed[e.node] > 0 && 2 ** (enclosed[e.node] - 1) > ENCLOSURE_BUDGET) return false;
    for (const e of from) {
      const i = records.improve(e.node, e.cost);
      if (i < 0) continue;
      records.words[4 * i + 3] = -1;
      heap.push(e.cost, e.node);
    }
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      // Each node is pushed once per improvement: an entry above its cost is stale.
      if (key > records.values[2 * records.find(u)]) continue;
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
        const v = forward ? edgeHead[e] : graph.edgeTailOf(e);
        const i = records.improve(v, c);
        if (i < 0) continue;
        records.words[4 * i + 3] = e;
        heap.push(c, v);
      }
    }
    return true;
  }

  /** The edges from this side's endpoint to `node` (forward), or from `node` to it (backward), in driving order; `root` then names that endpoint's node. */
  pathTo(graph: RoadGraph, node: number): number[] {
    const { records, forward } = this;
    const edges: number[] = [];
    let v = node;
    for (;;) {
      const e = records.words[4 * records.find(v) + 3];
      if (e < 0) break;
      edges.push(e);
      v = forward ? graph.edgeTailOf(e) : graph.edgeHead[e];
    }
    this.root = v;
    if (forward) edges.reverse();
    return edges;
  }
}

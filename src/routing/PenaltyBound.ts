import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import type { Endpoint, Penalty } from './PathSearch.js';

/** Most nodes the backward search settles (a bound on its cost per query). */
export const PENALTY_BOUND_BUDGET = 1 << 16;
/**
 * Nodes settled in a row at one key after which the search stops: at a positive key it has left
 * the penalised roads (everything beyond costs the same); at key 0 the targets are reached without
 * a penalty from far around (a stop outside the zones: the metric's potential is all there is).
 */
const PLATEAU = 1024;

/**
 * A lower bound of the penalty a path still pays from each node to the nearest target, to add to
 * an A*'s potential when roads cost extra per metre (a stop inside a zone). Without it the A*
 * settles, before it pays the first penalised metre, every node it can reach without one: with a
 * target inside a zone, everything outside the zones (a whole country, seconds).
 *
 * A Dijkstra backward from the targets over the in-edges, with a road's penalty as its only cost
 * (0 on roads without one), stopped once it has settled PENALTY_BOUND_BUDGET nodes or a plateau
 * of nodes in a row at one key (at key 0 only when the penalty is not known to be unavoidable).
 * Settled nodes keep their exact backward penalty; every other node costs at least the key the
 * search stopped at (`rest`; Infinity when it ran dry: no target is reachable from them). A
 * truncated Dijkstra's labels are consistent: on an edge from v to w, bound(v) <= penalty(v, w) +
 * bound(w). So the sum with a consistent potential of the metric stays consistent.
 */
export class PenaltyBound {
  /** Nodes touched: settled ones (link 1) with their backward penalty, the others tentative (link 0). */
  private readonly nodes: NodeRecords;
  private readonly heap = new MinHeap(1024);
  private settled = 0;
  /** The bound of every node not settled. */
  rest = 0;
  /** Whether the bound is 0 everywhere (the targets reached from far around without a penalty). */
  private zero = false;

  constructor(private readonly graph: RoadGraph) {
    this.nodes = new NodeRecords(graph.nodeCount);
  }

  /** Aims at new targets, with roads `blocked` closed and `penalty` on the rest. */
  reset(targets: readonly Endpoint[], penalty: Penalty, blocked?: Uint8Array): void {
    const g = this.graph;
    // The reverse adjacency is derived on first use (4 bytes per edge and per node, once per graph).
    const { firstIn, inEdge, edgeRoad, roadLengthCm } = g;
    const { roads, costPerMetre } = penalty;
    const { nodes, heap } = this;
    nodes.clear();
    heap.clear();
    this.settled = 0;
    for (const t of targets) {
      if (nodes.find(t.node) >= 0) continue;
      const i = nodes.add(t.node);
      nodes.values[2 * i] = 0;
      nodes.words[4 * i + 3] = 0;
      heap.push(0, t.node);
    }
    // At key 0 the plateau is the targets' surroundings without a penalty: stopped early unless
    // the penalty is known to be unavoidable (those surroundings are enclosed, and the A* would
    // otherwise walk everything outside them).
    const zeroPlateau = penalty.unavoidable ? Infinity : PLATEAU;
    let plateauKey = -1, plateau = 0;
    this.rest = Infinity;
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      const iu = nodes.find(u);
      if (nodes.words[4 * iu + 3] === 1) continue;
      if (this.settled >= PENALTY_BOUND_BUDGET || (key === plateauKey && plateau >= (key > 0 ? PLATEAU : zeroPlateau))) {
        this.rest = key;
        break;
      }
      if (key !== plateauKey) { plateauKey = key; plateau = 0; }
      plateau++;
      nodes.words[4 * iu + 3] = 1;
      nodes.values[2 * iu] = key;
      this.settled++;
      for (let k = firstIn[u], end = firstIn[u + 1]; k < end; k++) {
        const e = inEdge[k];
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        const x = g.edgeTailOf(e);
        const c = key + costPerMetre[roads[road]] * (roadLengthCm[road] * COST_STEP.distance);
        let ix = nodes.find(x);
        if (ix >= 0 && (nodes.words[4 * ix + 3] === 1 || nodes.values[2 * ix] <= c)) continue;
        if (ix < 0) {
          ix = nodes.add(x);
          nodes.words[4 * ix + 3] = 0;
        }
        nodes.values[2 * ix] = c;
        heap.push(c, x);
      }
    }
    // Keys settle in ascending order: stopped at 0, every settled node's bound is 0 too.
    this.zero = this.rest === 0;
  }

  /** The lower bound for node v. */
  of(v: number): number {
    if (this.zero) return 0;
    const i = this.nodes.find(v);
    return i >= 0 && this.nodes.words[4 * i + 3] === 1 ? this.nodes.values[2 * i] : this.rest;
  }

  /** Nodes the last reset settled. */
  get settledCount(): number {
    return this.settled;
  }
}

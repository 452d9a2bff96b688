import { COST_STEP, type RoadGraph, type Metric } from '../graph/RoadGraph.js';
import { arcTo, unpackArc, type ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import type { Endpoint } from './endpoints.js';
import { MinHeap } from './MinHeap.js';
import { NodeRecords, StampClock } from './NodeRecords.js';
import type { PathResult } from './PathSearch.js';

/** Search state of one direction: per node its cost, stamp and the node it was reached from (NodeRecords). */
class Side {
  readonly cost: Float64Array;
  readonly words: Int32Array;
  readonly heap = new MinHeap(256);
  settled = 0;

  constructor(records: NodeRecords) {
    this.cost = records.values;
    this.words = records.words;
  }
}

/**
 * Exact shortest paths on a contraction hierarchy: a forward search from the sources over upward
 * arcs and a backward search from the targets over downward arcs meet at the highest node of the
 * best path. Stall-on-demand prunes nodes that a higher node reaches more cheaply. Supports
 * several weighted sources and targets (the phantom endpoints of snapped stops). Scratch arrays
 * are stamped per query (O(touched) reset); not re-entrant: one object per concurrent query.
 * Ignores blocked roads and penalties: use CHPotentialSearch for those. `records` lends it the
 * forward and backward state of a search that never runs at the same time (NodeRecords).
 */
export class CHQuery {
  private readonly forward: Side;
  private readonly backward: Side;
  private readonly clock: StampClock;
  private readonly stack: number[] = [];
  /** Nodes settled by the last query, both directions together. */
  settledCount = 0;

  constructor(
    readonly graph: RoadGraph, private readonly hierarchies: Record<Metric, ContractionHierarchy>,
    records?: readonly [NodeRecords, NodeRecords],
  ) {
    const n = graph.nodeCount;
    this.clock = records ? records[0].clock : new StampClock();
    const [forward, backward] = records ?? [new NodeRecords(n, this.clock), new NodeRecords(n, this.clock)];
    if (backward.clock !== this.clock) throw new Error('both sides of a CH query keep one stamp clock');
    this.forward = new Side(forward);
    this.backward = new Side(backward);
  }

  /** Cheapest path from any source to any target (endpoint costs included), or null. */
  find(sources: Endpoint[], targets: Endpoint[], metric: Metric): PathResult | null {
    const ch = this.hierarchies[metric];
    const stamp = this.clock.next();
    const f = this.forward, b = this.backward;
    init(f, sources, stamp);
    init(b, targets, stamp);
    let best = Infinity;
    let meet = -1;
    const { upFirst, downFirst, arcNode, arcWeight } = ch;
    const step = COST_STEP[metric];
    let forwardTurn = true;
    for (;;) {
      const fDone = f.heap.size === 0 || f.heap.peekKey() >= best;
      const bDone = b.heap.size === 0 || b.heap.peekKey() >= best;
      if (fDone && bDone) break;
      const side = fDone ? b : bDone ? f : forwardTurn ? f : b;
      forwardTurn = !forwardTurn;
      const other = side === f ? b : f;
      const key = side.heap.peekKey();
      const u = side.heap.pop();
      if (key !== side.cost[2 * u]) continue; // stale
      if (other.words[4 * u + 2] === stamp && key + other.cost[2 * u] < best) {
        best = key + other.cost[2 * u];
        meet = u;
      }
      // Forward relaxes upward arcs and stalls over downward ones into u; backward the reverse.
      const relaxFrom = side === f ? upFirst[u] : downFirst[u];
      const relaxTo = side === f ? upFirst[u + 1] : downFirst[u + 1];
      const stallFrom = side === f ? downFirst[u] : upFirst[u];
      const stallTo = side === f ? downFirst[u + 1] : upFirst[u + 1];
      const cost = side.cost, words = side.words;
      let stalled = false;
      for (let a = stallFrom; a < stallTo; a++) {
        const x = arcNode[a];
        if (words[4 * x + 2] === stamp && cost[2 * x] + arcWeight[a] * step < key) { stalled = true; break; }
      }
      if (stalled) continue;
      side.settled++;
      for (let a = relaxFrom; a < relaxTo; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a] * step;
        if (words[4 * x + 2] !== stamp || c < cost[2 * x]) {
          words[4 * x + 2] = stamp;
          cost[2 * x] = c;
          words[4 * x + 3] = u; // the arc is found again in u's range at the end: no search for its tail
          side.heap.push(c, x);
        }
      }
    }
    this.settledCount = f.settled + b.settled;
    if (meet < 0) return null;
    return this.path(ch, sources, targets, meet, best);
  }

  private path(ch: ContractionHierarchy, sources: Endpoint[], targets: Endpoint[], meet: number, best: number): PathResult {
    const f = this.forward, b = this.backward;
    // Forward arcs from the meeting node down to the source, then reversed.
    // Each node's link is the node it was reached from: the lower end of the arc between them,
    // whose range holds one arc to each other end.
    const { upFirst, downFirst, arcNode } = ch;
    const up: number[] = [];
    let node = meet;
    while (f.words[4 * node + 3] !== -1) {
      const low = f.words[4 * node + 3];
      up.push(arcTo(arcNode, upFirst[low], upFirst[low + 1], node), low);
      node = low;
    }
    const sourceNode = node;
    const edges: number[] = [];
    for (let i = up.length - 2; i >= 0; i -= 2) unpackArc(ch, up[i], edges, this.stack, up[i + 1]);
    node = meet;
    while (b.words[4 * node + 3] !== -1) {
      const low = b.words[4 * node + 3];
      unpackArc(ch, arcTo(arcNode, downFirst[low], downFirst[low + 1], node), edges, this.stack, low);
      node = low;
    }
    const targetNode = node;
    const source = sources.findIndex((s) => s.node === sourceNode && s.cost === f.cost[2 * sourceNode]);
    const target = targets.findIndex((t) => t.node === targetNode && t.cost === b.cost[2 * targetNode]);
    return { cost: best, source, target, edges };
  }
}

function init(side: Side, endpoints: Endpoint[], stamp: number): void {
  side.heap.clear();
  side.settled = 0;
  for (const e of endpoints) {
    const v = e.node;
    if (side.words[4 * v + 2] === stamp && side.cost[2 * v] <= e.cost) continue;
    side.words[4 * v + 2] = stamp;
    side.cost[2 * v] = e.cost;
    side.words[4 * v + 3] = -1;
    side.heap.push(e.cost, v);
  }
}

import { COST_STEP, type RoadGraph, type Metric } from '../graph/RoadGraph.js';
import { arcTo, type ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import type { Endpoint, PathResult } from './PathSearch.js';
import { shortcutPathBytes, shortcutPathsPerMetric, type ShortcutPaths } from './ShortcutPaths.js';

/** Search state of one direction: per touched node its cost and the node it was reached from (NodeRecords). */
class Side {
  readonly heap = new MinHeap(256);
  settled = 0;

  constructor(readonly records: NodeRecords) {}
}

/**
 * Exact shortest paths on a contraction hierarchy: a forward search from the sources over upward
 * arcs and a backward search from the targets over downward arcs meet at the highest node of the
 * best path. Stall-on-demand prunes nodes that a higher node reaches more cheaply. Supports
 * several weighted sources and targets (the phantom endpoints of snapped stops). Search state is
 * a sparse set per side (NodeRecords: O(1) reset); not re-entrant: one object per concurrent query.
 * Ignores blocked roads and penalties: OverlaySearch handles those. `records` lends it the
 * forward and backward state of a search that never runs at the same time (NodeRecords), and
 * `paths` the unpacked shortcuts another user of the same hierarchies keeps (ShortcutPaths).
 */
export class CHQuery {
  private readonly forward: Side;
  private readonly backward: Side;
  /** Per metric, the long shortcuts unpacked so far (ShortcutPaths). */
  readonly paths: Record<Metric, ShortcutPaths>;
  /** Nodes settled by the last query, both directions together. */
  settledCount = 0;

  constructor(
    readonly graph: RoadGraph, private readonly hierarchies: Record<Metric, ContractionHierarchy>,
    records?: readonly [NodeRecords, NodeRecords], paths?: Record<Metric, ShortcutPaths>,
  ) {
    const n = graph.nodeCount;
    this.paths = paths ?? shortcutPathsPerMetric(hierarchies, shortcutPathBytes(graph.edgeCount));
    const [forward, backward] = records ?? [new NodeRecords(n), new NodeRecords(n)];
    this.forward = new Side(forward);
    this.backward = new Side(backward);
  }

  /** Cheapest path from any source to any target (endpoint costs included), or null. */
  find(sources: Endpoint[], targets: Endpoint[], metric: Metric): PathResult | null {
    const ch = this.hierarchies[metric];
    const f = this.forward, b = this.backward;
    init(f, sources);
    init(b, targets);
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
      const rs = side.records;
      if (key !== rs.values[2 * rs.find(u)]) continue; // stale
      const ro = other.records, iu = ro.find(u);
      if (iu >= 0 && key + ro.values[2 * iu] < best) {
        best = key + ro.values[2 * iu];
        meet = u;
      }
      // Forward relaxes upward arcs and stalls over downward ones into u; backward the reverse.
      const relaxFrom = side === f ? upFirst[u] : downFirst[u];
      const relaxTo = side === f ? upFirst[u + 1] : downFirst[u + 1];
      const stallFrom = side === f ? downFirst[u] : upFirst[u];
      const stallTo = side === f ? downFirst[u + 1] : upFirst[u + 1];
      const values = rs.values;
      let stalled = false;
      for (let a = stallFrom; a < stallTo; a++) {
        const ix = rs.find(arcNode[a]);
        if (ix >= 0 && values[2 * ix] + arcWeight[a] * step < key) { stalled = true; break; }
      }
      if (stalled) continue;
      side.settled++;
      for (let a = relaxFrom; a < relaxTo; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a] * step;
        const ix = rs.improve(x, c);
        if (ix < 0) continue;
        rs.words[4 * ix + 3] = u; // the arc is found again in u's range at the end: no search for its tail
        side.heap.push(c, x);
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
    const rf = f.records, rb = b.records;
    const up: number[] = [];
    let node = meet;
    while (rf.words[4 * rf.find(node) + 3] !== -1) {
      const low = rf.words[4 * rf.find(node) + 3];
      up.push(arcTo(arcNode, upFirst[low], upFirst[low + 1], node), low);
      node = low;
    }
    const sourceNode = node;
    const edges: number[] = [];
    const paths = this.paths[ch.metric];
    for (let i = up.length - 2; i >= 0; i -= 2) paths.unpack(up[i], up[i + 1], edges);
    node = meet;
    while (rb.words[4 * rb.find(node) + 3] !== -1) {
      const low = rb.words[4 * rb.find(node) + 3];
      paths.unpack(arcTo(arcNode, downFirst[low], downFirst[low + 1], node), low, edges);
      node = low;
    }
    const targetNode = node;
    const source = sources.findIndex((s) => s.node === sourceNode && s.cost === rf.values[2 * rf.find(sourceNode)]);
    const target = targets.findIndex((t) => t.node === targetNode && t.cost === rb.values[2 * rb.find(targetNode)]);
    return { cost: best, source, target, edges };
  }
}

function init(side: Side, endpoints: Endpoint[]): void {
  side.heap.clear();
  side.settled = 0;
  const r = side.records;
  r.clear();
  for (const e of endpoints) {
    const i = r.improve(e.node, e.cost);
    if (i < 0) continue;
    r.words[4 * i + 3] = -1;
    side.heap.push(e.cost, e.node);
  }
}

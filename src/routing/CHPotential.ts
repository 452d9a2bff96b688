import { COST_STEP } from '../graph/RoadGraph.js';
import type { ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { MinHeap } from './MinHeap.js';
import { NodeRecords, StampClock } from './NodeRecords.js';

/**
 * The exact unblocked cost from any node to the nearest of a set of weighted targets, read lazily
 * from a contraction hierarchy (CH-Potentials: Strasser and Zeitz, SEA 2021). reset() runs one
 * backward search from the targets over downward arcs (dBack); pi(v) = min(dBack(v), min over
 * upward arcs (v, w) of weight + pi(w)), memoised until the next reset (in an uncontracted core
 * dBack is already exact: the backward search runs plain Dijkstra there). A min over targets of
 * consistent potentials is consistent, so one potential serves a search towards many targets.
 * Per node 16 bytes (NodeRecords, possibly lent by a search that never runs at the same time):
 * one value, the backward cost until pi is computed and pi after, told apart by the stamp word
 * (the reset's first stamp: backward cost; its second: pi). Stamped per reset (O(touched)); not
 * re-entrant.
 */
export class CHPotential {
  /** values[2v]: the backward cost of v, or pi(v) once computed (see words). */
  readonly values: Float64Array;
  /** words[4v + 2]: backStamp when values[2v] is v's backward cost, piStamp when it is pi(v). */
  private readonly words: Int32Array;
  private readonly clock: StampClock;
  private backStamp = 0;
  private piStamp = 0;
  private readonly backHeap = new MinHeap(256);
  private stack = new Int32Array(256);
  private ch?: ContractionHierarchy;
  /** Nodes whose potential was computed since the last reset. */
  computed = 0;

  constructor(nodeCount: number, records?: NodeRecords) {
    const own = records ?? new NodeRecords(nodeCount, new StampClock());
    this.values = own.values;
    this.words = own.words;
    this.clock = own.clock;
  }

  /** Forgets every potential and aims at new targets (node ids with a cost added on arrival). */
  reset(ch: ContractionHierarchy, targets: readonly { node: number; cost: number }[]): void {
    const { values, words, backHeap } = this;
    this.backStamp = this.clock.next(2);
    this.piStamp = this.backStamp + 1;
    this.ch = ch;
    this.computed = 0;
    const back = this.backStamp;
    const { downFirst, arcNode, arcWeight } = ch;
    const step = COST_STEP[ch.metric];
    backHeap.clear();
    for (const t of targets) {
      const v = t.node;
      if (words[4 * v + 2] === back && values[2 * v] <= t.cost) continue;
      words[4 * v + 2] = back;
      values[2 * v] = t.cost;
      backHeap.push(t.cost, v);
    }
    // No stalling: pi needs the exact backward cost of every node the downward arcs lead from.
    while (backHeap.size > 0) {
      const key = backHeap.peekKey();
      const u = backHeap.pop();
      if (key !== values[2 * u]) continue;
      for (let a = downFirst[u], end = downFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a] * step;
        if (words[4 * x + 2] !== back || c < values[2 * x]) {
          words[4 * x + 2] = back;
          values[2 * x] = c;
          backHeap.push(c, x);
        }
      }
    }
  }

  /** pi(v): the cost from v to the nearest target (Infinity when none is reachable). */
  pi(v: number): number {
    const { values, words } = this;
    const done = this.piStamp, back = this.backStamp;
    if (words[4 * v + 2] === done) return values[2 * v];
    const { upFirst, arcNode, arcWeight, rank } = this.ch!;
    const coreRank = this.ch!.coreRank[0];
    const step = COST_STEP[this.ch!.metric];
    // Without a core (the usual case) no rank is read (the hierarchy keeps none then): one cache miss less per node.
    const hasCore = coreRank < upFirst.length - 1;
    // Explicit stack: the hierarchy can be deeper than the call stack.
    let stack = this.stack;
    let top = 0;
    stack[top++] = v;
    while (top > 0) {
      const x = stack[top - 1];
      if (words[4 * x + 2] === done) { top--; continue; }
      const own = words[4 * x + 2] === back ? values[2 * x] : Infinity;
      if (hasCore && rank[x] >= coreRank) {
        // The backward search ran plain Dijkstra through the core: its cost is exact there.
        top--;
        values[2 * x] = own;
        words[4 * x + 2] = done;
        this.computed++;
        continue;
      }
      let ready = true;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        const y = arcNode[a];
        if (words[4 * y + 2] !== done) {
          if (top === stack.length) {
            const grown = new Int32Array(2 * top);
            grown.set(stack);
            this.stack = stack = grown;
          }
          stack[top++] = y;
          ready = false;
        }
      }
      if (!ready) continue;
      top--;
      let p = own;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        const c = arcWeight[a] * step + values[2 * arcNode[a]];
        if (c < p) p = c;
      }
      values[2 * x] = p;
      words[4 * x + 2] = done;
      this.computed++;
    }
    return values[2 * v];
  }
}

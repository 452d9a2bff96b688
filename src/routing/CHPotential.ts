import { COST_STEP } from '../graph/RoadGraph.js';
import type { ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';

/** An entry's link word: the node's backward cost is known (BACK), or its potential (DONE). */
const BACK = 1, DONE = 2;

/**
 * The exact unblocked cost from any node to the nearest of a set of weighted targets, read lazily
 * from a contraction hierarchy (CH-Potentials: Strasser and Zeitz, SEA 2021). reset() runs one
 * backward search from the targets over downward arcs (dBack); pi(v) = min(dBack(v), min over
 * upward arcs (v, w) of weight + pi(w)), memoised until the next reset (in an uncontracted core
 * dBack is already exact: the backward search runs plain Dijkstra there). A min over targets of
 * consistent potentials is consistent, so one potential serves a search towards many targets.
 * State per touched node in a sparse set (NodeRecords, possibly lent by a search that never runs
 * at the same time): one value, the backward cost until pi is computed and pi after, told apart by
 * the entry's link word (BACK, DONE). Cleared per reset in O(1); not re-entrant.
 */
export class CHPotential {
  readonly records: NodeRecords;
  private readonly backHeap = new MinHeap(256);
  private stack = new Int32Array(256);
  private ch?: ContractionHierarchy;
  /** Nodes whose potential was computed since the last reset. */
  computed = 0;

  constructor(nodeCount: number, records?: NodeRecords) {
    this.records = records ?? new NodeRecords(nodeCount);
  }

  /** Forgets every potential and aims at new targets (node ids with a cost added on arrival). */
  reset(ch: ContractionHierarchy, targets: readonly { node: number; cost: number }[]): void {
    const { records, backHeap } = this;
    records.clear();
    this.ch = ch;
    this.computed = 0;
    const { downFirst, arcNode, arcWeight } = ch;
    const step = COST_STEP[ch.metric];
    backHeap.clear();
    for (const t of targets) {
      const i = records.improve(t.node, t.cost);
      if (i < 0) continue;
      records.words[4 * i + 3] = BACK;
      backHeap.push(t.cost, t.node);
    }
    // No stalling: pi needs the exact backward cost of every node the downward arcs lead from.
    while (backHeap.size > 0) {
      const key = backHeap.peekKey();
      const u = backHeap.pop();
      if (key !== records.values[2 * records.find(u)]) continue;
      for (let a = downFirst[u], end = downFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a] * step;
        const i = records.improve(x, c);
        if (i < 0) continue;
        records.words[4 * i + 3] = BACK;
        backHeap.push(c, x);
      }
    }
  }

  /** pi(v): the cost from v to the nearest target (Infinity when none is reachable). */
  pi(v: number): number {
    const records = this.records;
    const known = records.find(v);
    if (known >= 0 && records.words[4 * known + 3] === DONE) return records.values[2 * known];
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
      let i = records.find(x);
      if (i >= 0 && records.words[4 * i + 3] === DONE) { top--; continue; }
      const own = i >= 0 ? records.values[2 * i] : Infinity; // an entry not DONE holds the backward cost
      let p = own;
      // A core node keeps its backward cost: the backward search ran plain Dijkstra through the core, so it is exact there.
      if (!hasCore || rank[x] < coreRank) {
        let ready = true;
        for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
          const y = arcNode[a];
          const j = records.find(y);
          if (j < 0 || records.words[4 * j + 3] !== DONE) {
            if (top === stack.length) {
              const grown = new Int32Array(2 * top);
              grown.set(stack);
              this.stack = stack = grown;
            }
            stack[top++] = y;
            ready = false;
          } else {
            const c = arcWeight[a] * step + records.values[2 * j];
            if (c < p) p = c;
          }
        }
        if (!ready) continue;
      }
      top--;
      if (i < 0) i = records.add(x);
      records.values[2 * i] = p;
      records.words[4 * i + 3] = DONE;
      this.computed++;
    }
    return records.values[2 * records.find(v)];
  }
}

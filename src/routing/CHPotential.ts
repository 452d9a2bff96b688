import type { ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { MinHeap } from './MinHeap.js';
import { prefault } from './prefault.js';

/**
 * The exact unblocked cost from any node to the nearest of a set of weighted targets, read lazily
 * from a contraction hierarchy (CH-Potentials: Strasser and Zeitz, SEA 2021). reset() runs one
 * backward search from the targets over downward arcs (dBack); pi(v) = min(dBack(v), min over
 * upward arcs (v, w) of weight + pi(w)), memoised until the next reset (in an uncontracted core
 * dBack is already exact: the backward search runs plain Dijkstra there). A min over targets of
 * consistent potentials is consistent, so one potential serves a search towards many targets.
 * Scratch arrays stamped per reset (O(touched)); not re-entrant.
 */
export class CHPotential {
  /**
   * Per node v, 24 bytes side by side (one cache line for what pi reads of a node, instead of one
   * per array): record[3v] = pi(v), record[3v + 1] = the backward cost, and in the u32 view over the
   * same bytes, stamps[6v + 4] and stamps[6v + 5] = the reset stamps that make them valid.
   */
  readonly record: Float64Array;
  private readonly stamps: Uint32Array;
  private readonly backHeap = new MinHeap(256);
  private stack = new Int32Array(256);
  private stamp = 0;
  private ch?: ContractionHierarchy;
  /** Nodes whose potential was computed since the last reset. */
  computed = 0;

  constructor(nodeCount: number) {
    this.record = prefault(new Float64Array(3 * nodeCount));
    this.stamps = new Uint32Array(this.record.buffer);
  }

  /** Forgets every potential and aims at new targets (node ids with a cost added on arrival). */
  reset(ch: ContractionHierarchy, targets: readonly { node: number; cost: number }[]): void {
    const { record, stamps, backHeap } = this;
    if (++this.stamp === 0xffffffff) {
      stamps.fill(0);
      this.stamp = 1;
    }
    this.ch = ch;
    this.computed = 0;
    const stamp = this.stamp;
    const { downFirst, arcNode, arcWeight } = ch;
    backHeap.clear();
    for (const t of targets) {
      const v = t.node;
      if (stamps[6 * v + 5] === stamp && record[3 * v + 1] <= t.cost) continue;
      stamps[6 * v + 5] = stamp;
      record[3 * v + 1] = t.cost;
      backHeap.push(t.cost, v);
    }
    // No stalling: pi needs the exact backward cost of every node the downward arcs lead from.
    while (backHeap.size > 0) {
      const key = backHeap.peekKey();
      const u = backHeap.pop();
      if (key !== record[3 * u + 1]) continue;
      for (let a = downFirst[u], end = downFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a];
        if (stamps[6 * x + 5] !== stamp || c < record[3 * x + 1]) {
          stamps[6 * x + 5] = stamp;
          record[3 * x + 1] = c;
          backHeap.push(c, x);
        }
      }
    }
  }

  /** pi(v): the cost from v to the nearest target (Infinity when none is reachable). */
  pi(v: number): number {
    const { record, stamps } = this;
    const stamp = this.stamp;
    if (stamps[6 * v + 4] === stamp) return record[3 * v];
    const { upFirst, arcNode, arcWeight, rank } = this.ch!;
    const coreRank = this.ch!.coreRank[0];
    // Without a core (the usual case) no rank is read: one cache miss less per node.
    const hasCore = coreRank < rank.length;
    // Explicit stack: the hierarchy can be deeper than the call stack.
    let stack = this.stack;
    let top = 0;
    stack[top++] = v;
    while (top > 0) {
      const x = stack[top - 1];
      if (stamps[6 * x + 4] === stamp) { top--; continue; }
      const back = stamps[6 * x + 5] === stamp ? record[3 * x + 1] : Infinity;
      if (hasCore && rank[x] >= coreRank) {
        // The backward search ran plain Dijkstra through the core: its cost is exact there.
        top--;
        record[3 * x] = back;
        stamps[6 * x + 4] = stamp;
        this.computed++;
        continue;
      }
      let ready = true;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        const y = arcNode[a];
        if (stamps[6 * y + 4] !== stamp) {
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
      let p = back;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        const c = arcWeight[a] + record[3 * arcNode[a]];
        if (c < p) p = c;
      }
      record[3 * x] = p;
      stamps[6 * x + 4] = stamp;
      this.computed++;
    }
    return record[3 * v];
  }
}

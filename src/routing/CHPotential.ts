import type { ContractionHierarchy } from '../hierarchy/ContractionHierarchy.js';
import { MinHeap } from './MinHeap.js';

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
  readonly potential: Float64Array;
  private readonly potentialSeen: Uint32Array;
  private readonly back: Float64Array;
  private readonly backSeen: Uint32Array;
  private readonly backHeap = new MinHeap(256);
  private readonly stack: number[] = [];
  private stamp = 0;
  private ch?: ContractionHierarchy;
  /** Nodes whose potential was computed since the last reset. */
  computed = 0;

  constructor(nodeCount: number) {
    this.potential = new Float64Array(nodeCount);
    this.potentialSeen = new Uint32Array(nodeCount);
    this.back = new Float64Array(nodeCount);
    this.backSeen = new Uint32Array(nodeCount);
  }

  /** Forgets every potential and aims at new targets (node ids with a cost added on arrival). */
  reset(ch: ContractionHierarchy, targets: readonly { node: number; cost: number }[]): void {
    if (++this.stamp === 0xffffffff) {
      this.potentialSeen.fill(0);
      this.backSeen.fill(0);
      this.stamp = 1;
    }
    this.ch = ch;
    this.computed = 0;
    const stamp = this.stamp;
    const { back, backSeen, backHeap } = this;
    const { downFirst, arcNode, arcWeight } = ch;
    backHeap.clear();
    for (const t of targets) {
      if (backSeen[t.node] === stamp && back[t.node] <= t.cost) continue;
      backSeen[t.node] = stamp;
      back[t.node] = t.cost;
      backHeap.push(t.cost, t.node);
    }
    // No stalling: pi needs the exact backward cost of every node the downward arcs lead from.
    while (backHeap.size > 0) {
      const key = backHeap.peekKey();
      const u = backHeap.pop();
      if (key !== back[u]) continue;
      for (let a = downFirst[u], end = downFirst[u + 1]; a < end; a++) {
        const x = arcNode[a];
        const c = key + arcWeight[a];
        if (backSeen[x] !== stamp || c < back[x]) {
          backSeen[x] = stamp;
          back[x] = c;
          backHeap.push(c, x);
        }
      }
    }
  }

  /** pi(v): the cost from v to the nearest target (Infinity when none is reachable). */
  pi(v: number): number {
    const { potential, potentialSeen, back, backSeen, stack } = this;
    const stamp = this.stamp;
    if (potentialSeen[v] === stamp) return potential[v];
    const { upFirst, arcNode, arcWeight, rank } = this.ch!;
    const coreRank = this.ch!.coreRank[0];
    // Explicit stack: the hierarchy can be deeper than the call stack.
    stack.length = 0;
    stack.push(v);
    while (stack.length > 0) {
      const x = stack[stack.length - 1];
      if (potentialSeen[x] === stamp) { stack.pop(); continue; }
      if (rank[x] >= coreRank) {
        // The backward search ran plain Dijkstra through the core: its cost is exact there.
        stack.pop();
        potential[x] = backSeen[x] === stamp ? back[x] : Infinity;
        potentialSeen[x] = stamp;
        this.computed++;
        continue;
      }
      let ready = true;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        const y = arcNode[a];
        if (potentialSeen[y] !== stamp) { stack.push(y); ready = false; }
      }
      if (!ready) continue;
      stack.pop();
      let p = backSeen[x] === stamp ? back[x] : Infinity;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        const c = arcWeight[a] + potential[arcNode[a]];
        if (c < p) p = c;
      }
      potential[x] = p;
      potentialSeen[x] = stamp;
      this.computed++;
    }
    return potential[v];
  }
}

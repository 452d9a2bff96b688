import type { CCHMetric, CCHTopology } from '../hierarchy/CustomizableHierarchy.js';
import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';
import { NO_ARC, customizeInto, findArc } from '../hierarchy/CustomizableHierarchy.js';
import { csrRow } from '../graph/csr.js';
import { MinHeap } from './MinHeap.js';
import type { Penalty } from './PathSearch.js';

/**
 * A customized CCH metric with some roads closed, for one request: the base metric's arrays plus
 * the arcs whose value the closed roads change, stamped per request (arc a is changed when
 * `changedStamp[a] === stamp`; its values are then at `slot[a]` in the o* arrays). Nothing of
 * size of the graph is written per request; the work follows the arcs the closures reach.
 *
 * Partial re-customization: the arcs carrying a closed road's edges are recomputed first
 * (their remaining edges and their lower triangles); an arc whose value rises passes the change
 * to the arcs above it whose value it made (the triangles it is tight in: closures only raise
 * costs, so an arc whose best triangle or edge is untouched keeps its value); arcs are taken
 * lowest tail first, so every arc is recomputed from final values below it. A penalty per metre
 * on some roads (a request whose stops lie inside zones) raises costs the same way, and each arc
 * then also carries its cost without the penalty (`upPlain`, `downPlain`). Not re-entrant.
 */
export class CCHBlockedMetric {
  /** Per arc: equal to `stamp` when the arc's values live in the overlay. */
  readonly changedStamp: Uint32Array;
  readonly slot: Uint32Array;
  private readonly queuedStamp: Uint32Array;
  /** Starts above the arrays' zeros: a new metric has no arc changed. */
  stamp = 1;
  oUp = new Float64Array(1024);
  oDown = new Float64Array(1024);
  oUpSecond = new Float64Array(1024);
  oDownSecond = new Float64Array(1024);
  /** The metric without penalties along the same paths (equal to oUp / oDown without a penalty). */
  oUpPlain = new Float64Array(1024);
  oDownPlain = new Float64Array(1024);
  /** Arcs in the overlay now. */
  changed = 0;
  /** Arcs recomputed by the last apply (changed or not). */
  recomputed = 0;
  /** Whether the last apply re-customized every arc (its closures reached too much of the graph). */
  full = false;
  private readonly heap = new MinHeap(1024);
  private blocked: Uint8Array = new Uint8Array(0);
  private penalty?: Penalty;

  private readonly edgeRoad: Uint32Array;
  /** Per road, in milliseconds; whether the base metric is time (metres and milliseconds read at separate sites: see CHPotentialSearch.find). */
  private readonly millis: Uint32Array;
  private readonly byTime: boolean;
  private readonly lengthCm: Uint32Array;

  constructor(readonly topology: CCHTopology, readonly base: CCHMetric, private readonly graph: RoadGraph) {
    this.edgeRoad = graph.edgeRoad;
    // Per road: an edge costs its road's.
    this.millis = graph.roadMillis;
    this.byTime = base.metric === 'duration';
    this.lengthCm = graph.roadLengthCm;
    const M = topology.upHead.length;
    this.changedStamp = new Uint32Array(M);
    this.slot = new Uint32Array(M);
    this.queuedStamp = new Uint32Array(M);
  }

  /**
   * Closes the roads listed in `roads` that are marked 1 in `blockedMask` (per road), and with a
   * `penalty` makes the listed roads it marks cost more per metre (soft avoidance: a stop inside
   * a zone). Every road closed or penalised must be listed. Replaces the previous request's.
   */
  apply(roads: ArrayLike<number>, blockedMask: Uint8Array, penalty?: Penalty): void {
    this.clear();
    this.recomputed = 0;
    this.blocked = blockedMask;
    this.penalty = penalty;
    const { roadEdgeFirst, roadEdge, edgeArc, upHead } = this.topology;
    const heap = this.heap;
    heap.clear();
    const stamp = this.stamp;
    for (let i = 0; i < roads.length; i++) {
      const r = roads[i];
      for (let k = roadEdgeFirst[r]; k < roadEdgeFirst[r + 1]; k++) {
        const a = edgeArc[roadEdge[k]];
        if (a === NO_ARC || this.queuedStamp[a] === stamp) continue;
        this.queuedStamp[a] = stamp;
        heap.push(csrRow(this.topology.upFirst, a), a); // the arc's tail rank
      }
    }
    // Recomputing one arc costs about 8 times an arc's share of a full customization (measured
    // on the 5M-node country: 2 us vs 0.25 us), so past an eighth of the arcs the full one is
    // cheaper: give up there (at most twice the better cost). The closures' own arcs grow 3-6
    // times on their way up, so when they alone pass 1/32 of the arcs (a city with zones over a
    // good part of it), customize fully at once.
    const M = upHead.length;
    if (heap.size > M >>> 5) { this.customizeAll(); return; }
    const giveUpAt = M >>> 3;
    while (heap.size > 0) {
      const tail = heap.peekKey();
      const a = heap.pop();
      this.recompute(a, tail, upHead[a]);
      if (this.recomputed > giveUpAt) { this.customizeAll(); return; }
    }
  }

  /** Every arc into the overlay, customized again with the closed roads (slot[a] = a). */
  private customizeAll(): void {
    this.heap.clear();
    const M = this.topology.upHead.length;
    if (this.oUp.length < M) {
      this.oUp = new Float64Array(M); this.oDown = new Float64Array(M); this.oUpSecond = new Float64Array(M); this.oDownSecond = new Float64Array(M);
      this.oUpPlain = new Float64Array(M); this.oDownPlain = new Float64Array(M);
    }
    customizeInto(this.topology, this.graph, {
      metric: this.base.metric, up: this.oUp, down: this.oDown, upSecond: this.oUpSecond, downSecond: this.oDownSecond,
    }, this.blocked, this.penalty, { up: this.oUpPlain, down: this.oDownPlain });
    const { slot, changedStamp } = this;
    for (let a = 0; a < M; a++) slot[a] = a;
    changedStamp.fill(this.stamp);
    this.changed = M;
    this.full = true;
  }

  /** Forgets the closures: every arc reads the base metric again. */
  clear(): void {
    if (++this.stamp === 0xffffffff) {
      this.changedStamp.fill(0); this.queuedStamp.fill(0); this.stamp = 1;
    }
    this.changed = 0;
    this.full = false;
  }

  up(a: number): number {
    return this.changedStamp[a] === this.stamp ? this.oUp[this.slot[a]] : this.base.up[a];
  }

  down(a: number): number {
    return this.changedStamp[a] === this.stamp ? this.oDown[this.slot[a]] : this.base.down[a];
  }

  upSecond(a: number): number {
    return this.changedStamp[a] === this.stamp ? this.oUpSecond[this.slot[a]] : this.base.upSecond[a];
  }

  downSecond(a: number): number {
    return this.changedStamp[a] === this.stamp ? this.oDownSecond[this.slot[a]] : this.base.downSecond[a];
  }

  /** The metric without penalties along the path of up(a); the base metric has none. */
  upPlain(a: number): number {
    return this.changedStamp[a] === this.stamp ? this.oUpPlain[this.slot[a]] : this.base.up[a];
  }

  downPlain(a: number): number {
    return this.changedStamp[a] === this.stamp ? this.oDownPlain[this.slot[a]] : this.base.down[a];
  }


  /** Recomputes arc a (tail p, head q) from its open edges and its lower triangles. */
  private recompute(a: number, p: number, q: number): void {
    this.recomputed++;
    const t = this.topology, base = this.base, blocked = this.blocked;
    const { millis, byTime, edgeRoad, lengthCm } = this;
    const step = COST_STEP.duration;
    const penalised = this.penalty?.roads, perMetre = this.penalty?.costPerMetre;
    let up = Infinity, down = Infinity, upSecond = Infinity, downSecond = Infinity, upPlain = Infinity, downPlain = Infinity;
    for (let k = t.arcEdgeFirst[a]; k < t.arcEdgeFirst[a + 1]; k++) {
      const e = t.arcEdge[k];
      const road = edgeRoad[e];
      if (blocked[road]) continue;
      const seconds = millis[road] * step, metres = lengthCm[road] * COST_STEP.distance;
      const plain = byTime ? seconds : metres, c2 = byTime ? metres : seconds;
      const c = penalised && penalised[road] ? plain + perMetre![penalised[road]] * metres : plain;
      if (t.edgeUp[e]) {
        if (c < up || (c === up && c2 < upSecond)) { up = c; upSecond = c2; upPlain = plain; }
      } else if (c < down || (c === down && c2 < downSecond)) { down = c; downSecond = c2; downPlain = plain; }
    }
    // Lower triangles: nodes v joined to both p and q below them (merge of their sorted lists;
    // a list much longer than the other is skipped through by binary search).
    const { downFirst, downTail, downArc } = t;
    let i = downFirst[p], j = downFirst[q];
    const iEnd = downFirst[p + 1], jEnd = downFirst[q + 1];
    const skipJ = jEnd - j > 8 * (iEnd - i), skipI = iEnd - i > 8 * (jEnd - j);
    while (i < iEnd && j < jEnd) {
      const vi = downTail[i], vj = downTail[j];
      if (vi < vj) { i = skipI ? lowerBound(downTail, vj, i + 1, iEnd) : i + 1; continue; }
      if (vj < vi) { j = skipJ ? lowerBound(downTail, vi, j + 1, jEnd) : j + 1; continue; }
      const b1 = downArc[i], b2 = downArc[j]; // v-p and v-q
      const c1 = this.down(b1) + this.up(b2);
      if (c1 <= up) {
        const s1 = this.downSecond(b1) + this.upSecond(b2);
        if (c1 < up || s1 < upSecond) { up = c1; upSecond = s1; upPlain = this.downPlain(b1) + this.upPlain(b2); }
      }
      const c2 = this.down(b2) + this.up(b1);
      if (c2 <= down) {
        const s2 = this.downSecond(b2) + this.upSecond(b1);
        if (c2 < down || s2 < downSecond) { down = c2; downSecond = s2; downPlain = this.downPlain(b2) + this.upPlain(b1); }
      }
      i++; j++;
    }
    if (up === base.up[a] && down === base.down[a] && upSecond === base.upSecond[a] && downSecond === base.downSecond[a] && upPlain === up && downPlain === down) return;
    this.store(a, up, down, upSecond, downSecond, upPlain, downPlain);
    // Arcs above whose value went through p and this arc: q-y for every other upper neighbour y of p.
    const { upFirst, upHead } = t;
    const stamp = this.stamp;
    // The heads of p above q are heads of q too, in the same order: walk q's arcs alongside.
    let qk = upFirst[q];
    for (let k = upFirst[p]; k < upFirst[p + 1]; k++) {
      const y = upHead[k];
      if (y === q) continue;
      let c: number, tight: boolean;
      if (q < y) {
        while (upHead[qk] !== y) qk++;
        c = qk; // q -> p -> y and y -> p -> q
        tight = tightIn(base.up[c], base.down[a] + base.up[k]) || tightIn(base.down[c], base.down[k] + base.up[a]);
      } else {
        c = findArc(t, y, q); // y -> p -> q and q -> p -> y
        tight = tightIn(base.up[c], base.down[k] + base.up[a]) || tightIn(base.down[c], base.down[a] + base.up[k]);
      }
      if (!tight || this.queuedStamp[c] === stamp) continue;
      this.queuedStamp[c] = stamp;
      this.heap.push(q < y ? q : y, c);
    }
  }

  private store(a: number, up: number, down: number, upSecond: number, downSecond: number, upPlain: number, downPlain: number): void {
    if (this.changed === this.oUp.length) this.grow();
    const s = this.changed++;
    this.changedStamp[a] = this.stamp;
    this.slot[a] = s;
    this.oUp[s] = up; this.oDown[s] = down; this.oUpSecond[s] = upSecond; this.oDownSecond[s] = downSecond;
    this.oUpPlain[s] = upPlain; this.oDownPlain[s] = downPlain;
  }

  private grow(): void {
    const size = this.oUp.length * 2;
    const f = (a: Float64Array) => { const b = new Float64Array(size); b.set(a); return b; };
    this.oUp = f(this.oUp); this.oDown = f(this.oDown); this.oUpSecond = f(this.oUpSecond); this.oDownSecond = f(this.oDownSecond);
    this.oUpPlain = f(this.oUpPlain); this.oDownPlain = f(this.oDownPlain);
  }
}

/** The first index in [lo, hi) of the ascending `list` whose value is at least `value` (hi if none). */
function lowerBound(list: Uint32Array, value: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Whether a finite arc value was made by this triangle (closures can then raise it). */
function tightIn(value: number, viaTriangle: number): boolean {
  return value !== Infinity && value === viaTriangle;
}

import { COST_STEP, costSteps, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { Growable } from '../graph/growable.js';
import { MinHeap } from '../structures/MinHeap.js';
import type { ContractionHierarchy } from './ContractionHierarchy.js';

/** What contraction reads of a graph (a RoadGraph has all of it; a worker builds just this). */
export type ContractionInput = Pick<RoadGraph, 'nodeCount' | 'edgeCount' | 'firstOut' | 'firstIn' | 'edgeTail' | 'edgeHead' | 'edgeCost'>;

export interface ContractOptions {
  /** Called now and then with (nodes contracted so far, node count). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Arcs a witness search may scan when contracting (default 2,000). A work bound rather than a
   * settled-node bound, so searches stay cheap where the remaining graph gets dense (the top of
   * the hierarchy of grid-like networks); a missed witness only costs a superfluous shortcut.
   */
  witnessWorkLimit?: number;
  /** Arcs a witness search may scan when only estimating a node's priority (default 500). */
  simulationWorkLimit?: number;
  /**
   * Stop contracting when the nodes left have more than this many arcs each on average (default
   * 32) and leave them as an uncontracted core searched like a plain graph. Real road networks
   * rarely get there before their last few dozen nodes; uniform grids (no road hierarchy) get a
   * dense core of separator nodes whose contraction would cost cubic time in its degree.
   */
  coreDegree?: number;
  /**
   * Re-estimate the neighbours of each contracted node at once (default false: lazy updates only,
   * measured 2-2.5x faster on grids for about 1-3 % more arcs and the same query search spaces).
   */
  updateNeighbours?: boolean;
  /**
   * Contract in this order instead of choosing one (`order[v]` = v's position; a hierarchy's
   * contractionOrder), the nodes from `coreRank` on left as the core: the order of another
   * metric's hierarchy over the same roads, so a vehicle's slower times get their own hierarchy
   * with no importance estimates (the witness searches alone).
   */
  order?: { rank: Uint32Array; coreRank: number };
}

/**
 * The graph while it is being contracted: per node an out-list and an in-list of (neighbour,
 * weight, arc) entries among the nodes not yet contracted. Lists live in one pool of typed arrays;
 * list l is out(v) for l = 2v and in(v) for l = 2v + 1; a full list moves to the pool's end with
 * twice the room (amortised O(1) appends, no object per node or edge).
 */
class DynamicGraph {
  start: Int32Array;
  len: Int32Array;
  cap: Int32Array;
  node: Uint32Array;
  weight: Float64Array;
  arc: Uint32Array;
  used = 0;

  constructor(nodeCount: number, outDegree: (v: number) => number, inDegree: (v: number) => number) {
    this.start = new Int32Array(2 * nodeCount);
    this.len = new Int32Array(2 * nodeCount);
    this.cap = new Int32Array(2 * nodeCount);
    let total = 0;
    for (let v = 0; v < nodeCount; v++) {
      const o = outDegree(v) + 1, i = inDegree(v) + 1;
      this.start[2 * v] = total; this.cap[2 * v] = o; total += o;
      this.start[2 * v + 1] = total; this.cap[2 * v + 1] = i; total += i;
    }
    this.used = total;
    const room = Math.max(1024, Math.ceil(total * 1.5));
    this.node = new Uint32Array(room);
    this.weight = new Float64Array(room);
    this.arc = new Uint32Array(room);
  }

  /** Index in the pool of neighbour x in list l, or -1. */
  find(l: number, x: number): number {
    const node = this.node;
    for (let i = this.start[l], end = i + this.len[l]; i < end; i++) if (node[i] === x) return i;
    return -1;
  }

  append(l: number, x: number, w: number, a: number): void {
    if (this.len[l] === this.cap[l]) this.move(l);
    const i = this.start[l] + this.len[l]++;
    this.node[i] = x;
    this.weight[i] = w;
    this.arc[i] = a;
  }

  /** Removes neighbour x from list l (order is not kept). */
  remove(l: number, x: number): void {
    const i = this.find(l, x);
    if (i < 0) return;
    const last = this.start[l] + --this.len[l];
    this.node[i] = this.node[last];
    this.weight[i] = this.weight[last];
    this.arc[i] = this.arc[last];
  }

  private move(l: number): void {
    const newCap = Math.max(4, this.cap[l] * 2);
    if (this.used + newCap > this.node.length) {
      const size = Math.max(this.node.length * 2, this.used + newCap);
      const node = new Uint32Array(size); node.set(this.node); this.node = node;
      const weight = new Float64Array(size); weight.set(this.weight); this.weight = weight;
      const arc = new Uint32Array(size); arc.set(this.arc); this.arc = arc;
    }
    const from = this.start[l];
    this.node.copyWithin(this.used, from, from + this.len[l]);
    this.weight.copyWithin(this.used, from, from + this.len[l]);
    this.arc.copyWithin(this.used, from, from + this.len[l]);
    this.start[l] = this.used;
    this.cap[l] = newCap;
    this.used += newCap;
  }
}

/**
 * Builds a contraction hierarchy of one metric (Geisberger, Sanders, Schultes, Delling 2008).
 * Nodes are contracted least important first; contracting v adds a shortcut u -> x for each
 * in-neighbour u and out-neighbour x unless a bounded witness search finds a path u -> x avoiding
 * v that is no longer (a missed witness only adds a superfluous shortcut, never a wrong cost).
 * Importance: 1000 * level (depth in the hierarchy so far) + 1000 * added/removed arcs + 1000 *
 * added/removed hops (original edges the arcs stand for), re-estimated lazily (when a node comes
 * first, it is contracted only if its fresh importance still beats the next one). Parallel edges keep the cheapest; self-loops never help a shortest path.
 * Time: seconds per million nodes on road networks; memory: typed arrays only.
 */
export function contractGraph(graph: ContractionInput, metric: Metric, options: ContractOptions = {}): ContractionHierarchy {
  const n = graph.nodeCount;
  // Whole steps of the metric (COST_STEP): every sum below is an exact integer, stored as uint32.
  const costs = graph.edgeCost(metric);
  const weightOf = new Float64Array(costs.length);
  for (let e = 0; e < costs.length; e++) {
    // An edge of infinite cost is closed: the hierarchy is of the graph without it.
    if (costs[e] === Infinity) { weightOf[e] = Infinity; continue; }
    const steps = costSteps(costs[e], metric);
    if (!(Math.abs(costs[e] / COST_STEP[metric] - steps) <= 1e-6)) {
      throw new Error(`${metric} cost ${costs[e]} of edge ${e} is not a whole number of ${COST_STEP[metric]} steps`);
    }
    weightOf[e] = steps;
  }
  const settleLimit = options.witnessWorkLimit ?? 2000;
  const simulationLimit = options.simulationWorkLimit ?? 500;
  const updateNeighbours = options.updateNeighbours ?? false;
  let liveArcs = 0;
  const coreDegree = options.coreDegree ?? 32;
  const dyn = new DynamicGraph(
    n,
    (v) => graph.firstOut[v + 1] - graph.firstOut[v],
    (v) => graph.firstIn[v + 1] - graph.firstIn[v],
  );

  // Every arc ever created: an original edge (~edge id) or a shortcut (the node contracted to make it).
  const arcMiddle = new Growable(Int32Array, Math.max(1024, graph.edgeCount * 2));
  const arcHops = new Growable(Uint32Array, Math.max(1024, graph.edgeCount * 2));

  /** Adds arc u -> x of weight w unless a parallel one is as cheap; replaces a dearer one. */
  const setArc = (u: number, x: number, w: number, middle: number, hops: number): void => {
    const i = dyn.find(2 * u, x);
    if (i >= 0 && dyn.weight[i] <= w) return;
    const a = arcMiddle.length;
    arcMiddle.push(middle);
    arcHops.push(hops);
    if (i >= 0) {
      dyn.weight[i] = w;
      dyn.arc[i] = a;
      const j = dyn.find(2 * x + 1, u);
      dyn.weight[j] = w;
      dyn.arc[j] = a;
    } else {
      dyn.append(2 * u, x, w, a);
      liveArcs++;
      dyn.append(2 * x + 1, u, w, a);
    }
  };
  for (let e = 0; e < graph.edgeCount; e++) {
    const u = graph.edgeTail[e], x = graph.edgeHead[e];
    if (u !== x && weightOf[e] !== Infinity) setArc(u, x, weightOf[e], ~e, 1);
  }

  // Witness search state, stamped so each search starts in O(1).
  const dist = new Float64Array(n);
  const seen = new Uint32Array(n);
  const targetMark = new Uint32Array(n);
  let stamp = 0;
  const heap = new MinHeap(1024);

  /** Dijkstra from u avoiding `skip`, until every marked target is settled or a limit is hit. */
  const witness = (u: number, skip: number, maxCost: number, limit: number, targets: number): void => {
    stamp++;
    heap.clear();
    dist[u] = 0;
    seen[u] = stamp;
    heap.push(0, u);
    let work = 0;
    let left = targets;
    const { start, len, node, weight } = dyn;
    while (heap.size > 0) {
      const d = heap.peekKey();
      if (d > maxCost) break;
      const y = heap.pop();
      if (d > dist[y]) continue;
      if (targetMark[y] === targetStamp && --left === 0) break;
      const l = 2 * y;
      work += len[l];
      if (work > limit) break;
      for (let i = start[l], end = i + len[l]; i < end; i++) {
        const z = node[i];
        if (z === skip) continue;
        const nd = d + weight[i];
        if (seen[z] !== stamp || nd < dist[z]) {
          seen[z] = stamp;
          dist[z] = nd;
          heap.push(nd, z);
        }
      }
    }
  };
  let targetStamp = 0;

  /**
   * Shortcuts contracting v needs. With `apply`, adds them; returns the count, and the hops they
   * stand for in `addedHops`.
   */
  let addedHops = 0;
  const shortcuts = (v: number, limit: number, apply: boolean): number => {
    let added = 0;
    addedHops = 0;
    const inL = 2 * v + 1, outL = 2 * v;
    const inCount = dyn.len[inL], outCount = dyn.len[outL];
    if (inCount === 0 || outCount === 0) return 0;
    for (let k = 0; k < inCount; k++) {
      // Re-read the pool by index each time: applying shortcuts may reallocate it.
      const i = dyn.start[inL] + k;
      const u = dyn.node[i], w1 = dyn.weight[i], a1 = dyn.arc[i];
      let maxCost = 0;
      let targets = 0;
      targetStamp++;
      for (let j = dyn.start[outL], end = j + outCount; j < end; j++) {
        const x = dyn.node[j];
        if (x === u) continue;
        if (targetMark[x] !== targetStamp) { targetMark[x] = targetStamp; targets++; }
        if (w1 + dyn.weight[j] > maxCost) maxCost = w1 + dyn.weight[j];
      }
      if (targets === 0) continue;
      witness(u, v, maxCost, limit, targets);
      for (let m = 0; m < outCount; m++) {
        const j = dyn.start[outL] + m;
        const x = dyn.node[j];
        if (x === u) continue;
        const c = w1 + dyn.weight[j];
        if (seen[x] === stamp && dist[x] <= c) continue;
        added++;
        const a2 = dyn.arc[j];
        const hops = arcHops.get(a1) + arcHops.get(a2);
        addedHops += hops;
        if (apply) setArc(u, x, c, v, hops);
      }
    }
    return added;
  };

  const level = new Uint32Array(n);
  const contracted = new Uint8Array(n);
  const priority = new Float64Array(n);
  const priorityOf = (v: number): number => {
    const added = shortcuts(v, simulationLimit, false);
    const hopsAdded = addedHops;
    let removed = 0;
    let removedHops = 0;
    for (let l = 2 * v; l <= 2 * v + 1; l++) {
      for (let i = dyn.start[l], end = i + dyn.len[l]; i < end; i++) {
        removed++;
        removedHops += arcHops.get(dyn.arc[i]);
      }
    }
    return 1 + 1000 * level[v] + (1000 * added) / Math.max(1, removed) + (1000 * hopsAdded) / Math.max(1, removedHops);
  };

  const fixed = options.order;
  if (fixed && fixed.rank.length !== n) throw new Error(`a contraction order of ${fixed.rank.length} nodes for a graph of ${n}`);
  const queue = new MinHeap(Math.max(16, fixed ? 0 : n));
  if (!fixed) {
    for (let v = 0; v < n; v++) {
      priority[v] = priorityOf(v);
      queue.push(priority[v], v);
    }
  }
  // A fixed order's nodes by position, the core's last.
  const byRank = fixed ? new Uint32Array(n) : undefined;
  if (fixed) for (let v = 0; v < n; v++) byRank![fixed.rank[v]] = v;
  let next = 0;

  // Final arcs, recorded when their lower end is contracted: (lower, higher, weight, arc, up?).
  const recLow = new Growable(Uint32Array, Math.max(1024, graph.edgeCount * 2));
  const recHigh = new Growable(Uint32Array, Math.max(1024, graph.edgeCount * 2));
  const recWeight = new Growable(Float64Array, Math.max(1024, graph.edgeCount * 2));
  const recArc = new Growable(Uint32Array, Math.max(1024, graph.edgeCount * 2));
  const recUp = new Growable(Uint8Array, Math.max(1024, graph.edgeCount * 2));
  const rank = new Uint32Array(n);
  const neighbourMark = new Uint32Array(n);
  const neighbours: number[] = [];
  let done = 0;
  const progressStep = Math.max(1, Math.floor(n / 100));

  while (fixed ? next < fixed.coreRank : queue.size > 0) {
    let v: number;
    if (fixed) {
      v = byRank![next++];
    } else {
      if (liveArcs > coreDegree * (n - done)) break; // the rest is the core
      const key = queue.peekKey();
      v = queue.pop();
      if (contracted[v] || key !== priority[v]) continue; // stale entry
      const fresh = priorityOf(v);
      if (queue.size > 0 && fresh > queue.peekKey()) {
        priority[v] = fresh;
        queue.push(fresh, v);
        continue;
      }
    }
    for (let l = 2 * v; l <= 2 * v + 1; l++) {
      const up = l === 2 * v ? 1 : 0; // out-arcs of v lead up, in-arcs come down to it
      for (let i = dyn.start[l], end = i + dyn.len[l]; i < end; i++) {
        recLow.push(v);
        recHigh.push(dyn.node[i]);
        recWeight.push(dyn.weight[i]);
        recArc.push(dyn.arc[i]);
        recUp.push(up);
      }
    }
    shortcuts(v, settleLimit, true);
    neighbours.length = 0;
    for (let l = 2 * v; l <= 2 * v + 1; l++) {
      for (let i = dyn.start[l], end = i + dyn.len[l]; i < end; i++) {
        const x = dyn.node[i];
        if (neighbourMark[x] !== v + 1) { neighbourMark[x] = v + 1; neighbours.push(x); }
      }
    }
    for (let i = dyn.start[2 * v], end = i + dyn.len[2 * v]; i < end; i++) dyn.remove(2 * dyn.node[i] + 1, v);
    for (let i = dyn.start[2 * v + 1], end = i + dyn.len[2 * v + 1]; i < end; i++) dyn.remove(2 * dyn.node[i], v);
    liveArcs -= dyn.len[2 * v] + dyn.len[2 * v + 1];
    dyn.len[2 * v] = 0;
    dyn.len[2 * v + 1] = 0;
    contracted[v] = 1;
    rank[v] = done++;
    for (const x of neighbours) {
      if (level[x] < level[v] + 1) level[x] = level[v] + 1;
      if (updateNeighbours && !fixed) {
        priority[x] = priorityOf(x);
        queue.push(priority[x], x);
      }
    }
    if (options.onProgress && done % progressStep === 0) options.onProgress(done, n);
  }
  // The core: the nodes left keep all their arcs among themselves, out-arcs as upward arcs and
  // in-arcs as downward ones, so searches run plain Dijkstra inside it.
  const coreRank = done;
  for (let k = 0; k < n; k++) {
    const v = byRank ? byRank[k] : k;
    if (contracted[v]) continue;
    rank[v] = done++;
    for (let l = 2 * v; l <= 2 * v + 1; l++) {
      const up = l === 2 * v ? 1 : 0;
      for (let i = dyn.start[l], end = i + dyn.len[l]; i < end; i++) {
        recLow.push(v);
        recHigh.push(dyn.node[i]);
        recWeight.push(dyn.weight[i]);
        recArc.push(dyn.arc[i]);
        recUp.push(up);
      }
    }
  }
  options.onProgress?.(n, n);
  return assemble(n, rank, coreRank, recLow, recHigh, recWeight, recArc, recUp, arcMiddle, metric);
}

/**
 * Lays the recorded final arcs out as the upward and downward CSR, each node's ranges sorted by
 * their other end (so a shortcut's halves are found at its middle node by binary search).
 */
function assemble(
  n: number, rank: Uint32Array, coreRank: number,
  recLow: Growable<Uint32Array>, recHigh: Growable<Uint32Array>, recWeight: Growable<Float64Array>,
  recArc: Growable<Uint32Array>, recUp: Growable<Uint8Array>,
  arcMiddleAll: Growable<Int32Array>, metric: Metric,
): ContractionHierarchy {
  const total = recLow.length;
  const upFirst = new Uint32Array(n + 1);
  const downFirst = new Uint32Array(n + 1);
  let upCount = 0;
  for (let k = 0; k < total; k++) {
    if (recUp.get(k)) { upFirst[recLow.get(k) + 1]++; upCount++; } else downFirst[recLow.get(k) + 1]++;
  }
  downFirst[0] = upCount;
  for (let v = 0; v < n; v++) {
    upFirst[v + 1] += upFirst[v];
    downFirst[v + 1] += downFirst[v];
  }
  const upNext = upFirst.slice(0, n);
  const downNext = downFirst.slice(0, n);
  const arcNode = new Uint32Array(total);
  const arcWeight = new Uint32Array(total);
  const arcMiddle = new Int32Array(total);
  for (let k = 0; k < total; k++) {
    const low = recLow.get(k);
    const p = recUp.get(k) ? upNext[low]++ : downNext[low]++;
    arcNode[p] = recHigh.get(k);
    const w = recWeight.get(k);
    if (w > 0xffffffff) throw new Error(`${metric} hierarchy: an arc of ${w} steps does not fit 32 bits`);
    arcWeight[p] = w;
    arcMiddle[p] = arcMiddleAll.get(recArc.get(k));
  }
  sortRanges(upFirst, arcNode, arcWeight, arcMiddle);
  sortRanges(downFirst, arcNode, arcWeight, arcMiddle);
  // Without a core nothing reads the rank (a file stores an order its arcs make: graphCodec).
  return {
    metric, rank: coreRank < n ? rank : new Uint32Array(0), coreRank: Uint32Array.of(coreRank),
    upFirst, downFirst, arcNode, arcWeight, arcMiddle,
  };
}

/** Sorts every range first[v] .. first[v+1]-1 of the three per-arc arrays by arcNode. */
function sortRanges(first: Uint32Array, arcNode: Uint32Array, arcWeight: Uint32Array, arcMiddle: Int32Array): void {
  const order: number[] = [];
  const node: number[] = [], weight: number[] = [], middle: number[] = [];
  for (let v = 0; v + 1 < first.length; v++) {
    const lo = first[v], hi = first[v + 1];
    let sorted = true;
    for (let a = lo + 1; a < hi; a++) if (arcNode[a - 1] > arcNode[a]) { sorted = false; break; }
    if (sorted) continue;
    order.length = 0; node.length = 0; weight.length = 0; middle.length = 0;
    for (let a = lo; a < hi; a++) { order.push(a); node.push(arcNode[a]); weight.push(arcWeight[a]); middle.push(arcMiddle[a]); }
    order.sort((x, y) => arcNode[x] - arcNode[y]);
    for (let i = 0; i < order.length; i++) {
      const from = order[i] - lo;
      arcNode[lo + i] = node[from]; arcWeight[lo + i] = weight[from]; arcMiddle[lo + i] = middle[from];
    }
  }
}

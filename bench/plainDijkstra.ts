import type { Metric, RoadGraph } from '../src/index.js';
import type { Endpoint } from '../src/routing/PathSearch.js';

/**
 * Plain Dijkstra over the CSR arrays (binary heap with lazy deletion, no heuristic, no hierarchy):
 * the exactness oracle of the scale bench. Typed arrays sized once per graph, reset in O(touched),
 * so a full search of a 1M-node graph takes well under a second. Returns the cheapest cost
 * (metres or seconds) from any source endpoint to any target endpoint, Infinity when none.
 */
export class PlainDijkstra {
  private readonly dist: Float64Array;
  private readonly touched: Uint32Array;
  private touchedCount = 0;
  private heapKey = new Float64Array(1 << 16);
  private heapNode = new Uint32Array(1 << 16);
  private heapSize = 0;

  constructor(private readonly graph: RoadGraph) {
    this.dist = new Float64Array(graph.nodeCount).fill(Infinity);
    this.touched = new Uint32Array(graph.nodeCount);
  }

  /**
   * Cheapest cost, skipping every road with blockedRoads[road] === 1. With `wait` (seconds before
   * driving a road for `c` seconds from `t`), the earliest arrival waiting anywhere: a
   * time-dependent Dijkstra, exact as waits keep the network FIFO.
   */
  cost(sources: Endpoint[], targets: Endpoint[], metric: Metric, blockedRoads?: Uint8Array, wait?: (road: number, t: number, c: number) => number): number {
    const g = this.graph;
    const weight = g.edgeCost(metric);
    const { firstOut, edgeHead, edgeRoad } = g;
    const dist = this.dist;
    for (let i = 0; i < this.touchedCount; i++) dist[this.touched[i]] = Infinity;
    this.touchedCount = 0;
    this.heapSize = 0;
    for (const s of sources) this.relax(s.node, s.cost);
    // Stop once the smallest key cannot improve on the best target reached so far.
    const targetCost = new Map<number, number>();
    for (const t of targets) targetCost.set(t.node, Math.min(t.cost, targetCost.get(t.node) ?? Infinity));
    let best = Infinity;
    while (this.heapSize > 0) {
      const d = this.heapKey[0], u = this.heapNode[0];
      this.pop();
      if (d > dist[u]) continue;
      if (d >= best) break;
      const tc = targetCost.get(u);
      if (tc !== undefined && d + tc < best) best = d + tc;
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        if (blockedRoads && blockedRoads[edgeRoad[e]]) continue;
        this.relax(edgeHead[e], wait === undefined ? d + weight[e] : d + wait(edgeRoad[e], d, weight[e]) + weight[e]);
      }
    }
    return best;
  }

  private relax(v: number, d: number): void {
    if (d >= this.dist[v]) return;
    if (this.dist[v] === Infinity) this.touched[this.touchedCount++] = v;
    this.dist[v] = d;
    this.push(d, v);
  }

  private push(key: number, node: number): void {
    if (this.heapSize === this.heapKey.length) {
      const k = new Float64Array(this.heapKey.length * 2); k.set(this.heapKey); this.heapKey = k;
      const n = new Uint32Array(this.heapNode.length * 2); n.set(this.heapNode); this.heapNode = n;
    }
    let i = this.heapSize++;
    const keys = this.heapKey, nodes = this.heapNode;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent]; nodes[i] = nodes[parent];
      i = parent;
    }
    keys[i] = key; nodes[i] = node;
  }

  private pop(): void {
    const keys = this.heapKey, nodes = this.heapNode;
    const n = --this.heapSize;
    if (n === 0) return;
    const key = keys[n], node = nodes[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && keys[c + 1] < keys[c]) c++;
      if (keys[c] >= key) break;
      keys[i] = keys[c]; nodes[i] = nodes[c];
      i = c;
    }
    keys[i] = key; nodes[i] = node;
  }
}

import { COST_STEP, ROAD_COST_UNIT, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { Growable } from '../graph/growable.js';
import { outAdjacency } from '../graph/turnExpansion.js';
import { nestedDissectionOrder, undirectedAdjacency } from './nestedDissection.js';
import { otherMetric } from './otherMetricArcCosts.js';

/** edgeArc of an edge whose two ends are one node (a loop never lies on a cheapest path). */
export const NO_ARC = 0xffffffff;

/**
 * The metric-independent part of a customizable contraction hierarchy (CCH; Dibbelt, Strasser,
 * Wagner, "Customizable Contraction Hierarchies", 2016): a nested dissection order and the
 * graph it makes chordal, contracting the nodes in that order and keeping every fill-in link,
 * whatever the costs. Because no link is left out on the strength of a witness path, any metric
 * (and any set of closed roads) is put on it by customization alone, exactly.
 *
 * Everything is in rank space: node r is the r-th contracted. An arc joins a lower node (its tail)
 * to a higher one (its head) and carries both directions (see CCHMetric); the arcs leaving r upward
 * are upFirst[r] .. upFirst[r+1]-1, heads ascending, and the lowest of them is r's parent in the
 * elimination tree, so every upper neighbour of r is one of its ancestors.
 */
export interface CCHTopology {
  nodeCount: number;
  /** rank[v] of graph node v. */
  rank: Uint32Array;
  upFirst: Uint32Array;
  upHead: Uint32Array;
  /** Per rank: the arcs from lower nodes, downFirst[r] .. downFirst[r+1]-1, tails ascending. */
  downFirst: Uint32Array;
  downTail: Uint32Array;
  downArc: Uint32Array;
  /** Per graph edge: its arc (NO_ARC for a loop), and 1 when it drives from the arc's tail up to its head. */
  edgeArc: Uint32Array;
  edgeUp: Uint8Array;
  /** Per arc: the graph edges it carries (both directions), arcEdgeFirst[a] .. arcEdgeFirst[a+1]-1. */
  arcEdgeFirst: Uint32Array;
  arcEdge: Uint32Array;
  /** Per road: its directed edges, roadEdgeFirst[r] .. roadEdgeFirst[r+1]-1. */
  roadEdgeFirst: Uint32Array;
  roadEdge: Uint32Array;
}

/**
 * One metric on a CCH, both directions of every arc: `up[a]` the cost from the arc's tail to its
 * head, `down[a]` back; the other metric of the same paths beside them (`upSecond`, `downSecond`),
 * so a matrix gets metres and seconds of each optimal path. (Unpacking paths, for routes, would
 * need the middle node of each value's triangle too; nothing reads paths from a CCH yet.)
 */
export interface CCHMetric {
  metric: Metric;
  up: Float64Array;
  down: Float64Array;
  upSecond: Float64Array;
  downSecond: Float64Array;
}

/** Preprocessing: the order, the chordal graph, and the maps from edges and roads to arcs. */
export function buildCCHTopology(graph: RoadGraph, rank?: Uint32Array): CCHTopology {
  const adjacency = undirectedAdjacency(graph);
  rank ??= nestedDissectionOrder(graph, adjacency);
  const n = graph.nodeCount;
  const nodeAt = new Uint32Array(n);
  for (let v = 0; v < n; v++) nodeAt[rank[v]] = v;

  // Contract in rank order: r's upper neighbours are its graph neighbours above it and those its
  // children in the elimination tree had (their fill-in), except r itself.
  const upFirst = new Uint32Array(n + 1);
  const heads = new Growable(Uint32Array, Math.max(1024, adjacency.neighbour.length));
  const firstChild = new Int32Array(n).fill(-1), nextSibling = new Int32Array(n).fill(-1);
  const mark = new Int32Array(n).fill(-1);
  const scratch = new Uint32Array(n);
  const { first, neighbour } = adjacency;
  for (let r = 0; r < n; r++) {
    let count = 0;
    const v = nodeAt[r];
    for (let k = first[v], end = first[v + 1]; k < end; k++) {
      const h = rank[neighbour[k]];
      if (h > r && mark[h] !== r) { mark[h] = r; scratch[count++] = h; }
    }
    for (let c = firstChild[r]; c >= 0; c = nextSibling[c]) {
      for (let k = upFirst[c], end = upFirst[c + 1]; k < end; k++) {
        const h = heads.get(k);
        if (h !== r && mark[h] !== r) { mark[h] = r; scratch[count++] = h; }
      }
    }
    const list = scratch.subarray(0, count).sort();
    for (let i = 0; i < count; i++) heads.push(list[i]);
    upFirst[r + 1] = heads.length;
    if (count > 0) { const p = list[0]; nextSibling[r] = firstChild[p]; firstChild[p] = r; }
  }
  const upHead = heads.toArray();
  const M = upHead.length;

  // The same arcs seen from their heads, tails ascending (filled in rank order).
  const downFirst = new Uint32Array(n + 1);
  for (let a = 0; a < M; a++) downFirst[upHead[a] + 1]++;
  for (let r = 0; r < n; r++) downFirst[r + 1] += downFirst[r];
  const downTail = new Uint32Array(M), downArc = new Uint32Array(M);
  const fill = downFirst.slice(0, n);
  for (let r = 0; r < n; r++) {
    for (let a = upFirst[r]; a < upFirst[r + 1]; a++) {
      const k = fill[upHead[a]]++;
      downTail[k] = r; downArc[k] = a;
    }
  }

  const topology: CCHTopology = {
    nodeCount: n, rank, upFirst, upHead, downFirst, downTail, downArc,
    edgeArc: new Uint32Array(0), edgeUp: new Uint8Array(0), arcEdgeFirst: new Uint32Array(0), arcEdge: new Uint32Array(0),
    roadEdgeFirst: new Uint32Array(0), roadEdge: new Uint32Array(0),
  };
  const { edgeTail, edgeHead } = graph;
  const E = edgeHead.length;
  const edgeArc = new Uint32Array(E), edgeUp = new Uint8Array(E);
  const arcEdgeFirst = new Uint32Array(M + 1);
  for (let e = 0; e < E; e++) {
    const t = rank[edgeTail[e]], h = rank[edgeHead[e]];
    if (t === h) { edgeArc[e] = NO_ARC; continue; }
    const a = t < h ? findArc(topology, t, h) : findArc(topology, h, t);
    edgeArc[e] = a; edgeUp[e] = t < h ? 1 : 0;
    arcEdgeFirst[a + 1]++;
  }
  for (let a = 0; a < M; a++) arcEdgeFirst[a + 1] += arcEdgeFirst[a];
  const arcEdge = new Uint32Array(arcEdgeFirst[M]);
  const arcFill = arcEdgeFirst.slice(0, M);
  for (let e = 0; e < E; e++) if (edgeArc[e] !== NO_ARC) arcEdge[arcFill[edgeArc[e]]++] = e;
  // Edges grouped by road: the same CSR as out-edges grouped by tail.
  const { firstOut: roadEdgeFirst, outEdges: roadEdge } = outAdjacency(graph.roadCount, graph.edgeRoad);
  Object.assign(topology, { edgeArc, edgeUp, arcEdgeFirst, arcEdge, roadEdgeFirst, roadEdge });
  return topology;
}

/** The arc from `tail` up to `head` (ranks, tail < head); they must be joined in the chordal graph. */
export function findArc(t: CCHTopology, tail: number, head: number): number {
  const { upHead } = t;
  let lo = t.upFirst[tail], hi = t.upFirst[tail + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const h = upHead[mid];
    if (h === head) return mid;
    if (h < head) lo = mid + 1; else hi = mid - 1;
  }
  throw new Error(`no CCH arc between ranks ${tail} and ${head}`);
}

/** Bytes held by a topology's arrays. */
export function cchTopologyByteSize(t: CCHTopology): number {
  let bytes = 0;
  for (const value of Object.values(t)) if (ArrayBuffer.isView(value)) bytes += value.byteLength;
  return bytes;
}

/** Bytes held by a metric's arrays. */
export function cchMetricByteSize(m: CCHMetric): number {
  return m.up.byteLength + m.down.byteLength + m.upSecond.byteLength + m.downSecond.byteLength;
}

/**
 * Customization: puts `metric` on the topology. Each arc starts at its cheapest edge in each
 * direction; then, lowest nodes first, every lower triangle (v below u below w, arcs v-u and v-w)
 * offers the path u -> v -> w to the arc u-w, and w -> v -> u back. When a node's triangles are
 * taken, the arcs below it are final, so one pass is exact. Ties on cost keep the smaller other
 * metric. Runs once per graph and metric (preprocessing); requests with closed roads re-customize
 * only what those roads change (routing/CCHBlockedMetric).
 */
export function customizeCCH(t: CCHTopology, graph: RoadGraph, metric: Metric): CCHMetric {
  const M = t.upHead.length;
  const out: CCHMetric = {
    metric,
    up: new Float64Array(M), down: new Float64Array(M), upSecond: new Float64Array(M), downSecond: new Float64Array(M),
  };
  customizeInto(t, graph, out);
  return out;
}

/**
 * customizeCCH into given arrays (of at least the arc count), skipping the edges of roads marked
 * in `closed` (per road) when given: a request's own full re-customization. With a `penalty`,
 * metre on road r costs costPerMetre[roads[r]] more, and `plain` receives each value's cost
 * without it.
 */
export function customizeInto(
  t: CCHTopology, graph: RoadGraph, out: CCHMetric, closed?: Uint8Array,
  penalty?: { roads: Uint8Array; costPerMetre: ArrayLike<number> }, plain?: { up: Float64Array; down: Float64Array },
): void {
  const M = t.upHead.length;
  const { up, down, upSecond, downSecond } = out;
  // Without a penalty the plain values are the values: the same arrays, written twice alike.
  const upPlain = plain?.up ?? up, downPlain = plain?.down ?? down;
  up.fill(Infinity, 0, M); down.fill(Infinity, 0, M); upSecond.fill(Infinity, 0, M); downSecond.fill(Infinity, 0, M);
  upPlain.fill(Infinity, 0, M); downPlain.fill(Infinity, 0, M);
  // Per road: an edge costs its road's.
  const weight = graph.roadCost(out.metric), other = graph.roadCost(otherMetric(out.metric));
  const unit = ROAD_COST_UNIT[out.metric], otherUnit = ROAD_COST_UNIT[otherMetric(out.metric)];
  const { edgeArc, edgeUp, upFirst, upHead } = t;
  const { edgeRoad, roadLengthCm } = graph;
  const penalised = penalty?.roads, perMetre = penalty?.costPerMetre;
  for (let e = 0; e < edgeArc.length; e++) {
    const a = edgeArc[e];
    const road = edgeRoad[e];
    if (a === NO_ARC || (closed && closed[road])) continue;
    const p = weight[road] * unit, c2 = other[road] * otherUnit;
    const c = penalised && penalised[road] ? p + perMetre![penalised[road]] * (roadLengthCm[road] * COST_STEP.distance) : p;
    if (edgeUp[e]) {
      if (c < up[a] || (c === up[a] && c2 < upSecond[a])) { up[a] = c; upSecond[a] = c2; upPlain[a] = p; }
    } else if (c < down[a] || (c === down[a] && c2 < downSecond[a])) { down[a] = c; downSecond[a] = c2; downPlain[a] = p; }
  }
  const n = t.nodeCount;
  for (let v = 0; v < n; v++) {
    const end = upFirst[v + 1];
    for (let i = upFirst[v]; i < end; i++) {
      const u = upHead[i];
      const dI = down[i], uI = up[i];
      if (dI === Infinity && uI === Infinity) continue;
      const dI2 = downSecond[i], uI2 = upSecond[i], dIp = downPlain[i], uIp = upPlain[i];
      // Heads of v above u are all upper neighbours of u (chordal): walk u's arcs alongside.
      let k = upFirst[u];
      for (let j = i + 1; j < end; j++) {
        const w = upHead[j];
        while (upHead[k] !== w) k++;
        const c1 = dI + up[j];
        if (c1 < up[k] || (c1 === up[k] && dI2 + upSecond[j] < upSecond[k])) { up[k] = c1; upSecond[k] = dI2 + upSecond[j]; upPlain[k] = dIp + upPlain[j]; }
        const c2 = down[j] + uI;
        if (c2 < down[k] || (c2 === down[k] && downSecond[j] + uI2 < downSecond[k])) { down[k] = c2; downSecond[k] = downSecond[j] + uI2; downPlain[k] = downPlain[j] + uIp; }
      }
    }
  }
}

/** The metric's topology and customization for one graph. */
export interface CustomizableHierarchy {
  topology: CCHTopology;
  duration: CCHMetric;
  distance: CCHMetric;
}

/** Builds the topology and customizes both metrics (see buildCCHTopology, customizeCCH). */
export function buildCustomizableHierarchy(graph: RoadGraph, rank?: Uint32Array): CustomizableHierarchy {
  const topology = buildCCHTopology(graph, rank);
  return { topology, duration: customizeCCH(topology, graph, 'duration'), distance: customizeCCH(topology, graph, 'distance') };
}

const builtFor = new WeakMap<RoadGraph, CustomizableHierarchy>();

/**
 * The graph's customizable hierarchy, built at the first call and kept with the graph object.
 * Preprocessing: a service calls it at start (the matrix worker does), never inside a request.
 */
export function customizableHierarchyOf(graph: RoadGraph): CustomizableHierarchy {
  let cch = builtFor.get(graph);
  if (!cch) {
    // The order made at import when the file has it (the costly part), else made now.
    cch = buildCustomizableHierarchy(graph, graph.hierarchy?.order);
    builtFor.set(graph, cch);
  }
  return cch;
}

import { DetourError, ErrorCode } from '../errors.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import { bestSweep, componentsOf, iota, projectedCoordinates, undirectedAdjacency } from './partition.js';

/** A clique entry between boundary nodes that no path inside the cell joins. */
export const UNREACHABLE = 0xffffffff;

/**
 * The big cells' size bound at import. With small cells of DEFAULT_FINE_CELL_SIZE inside, on the
 * 5M-node country (`npm run bench:overlay-sizes -- --size 5m --pairs 100`, bench/RESULTS.md: 10
 * zones of 1-5 km, both metrics), p50 / p95: 16,384 / 2,048 6.5 / 15.4 ms, 16,384 / 1,024 6.4 /
 * 14.7 ms, 8,192 / 512 7.3 / 21.4 ms, one level of 8,192 10.9 / 36.5 ms; with a stop inside a zone
 * p95 44, 40, 120 and 151 ms. Overlay bytes per directed edge: 3.6, 4.8, 6.3 and 1.8.
 */
export const DEFAULT_CELL_SIZE = 16384;

/**
 * An overlay in the manner of CRP / multi-level Dijkstra (Delling, Goldberg, Pajor, Werneck,
 * "Customizable route planning"), of one level or two (`fine`): the nodes fall into cells of at most a given size, cut
 * where few links cross; a node a link from another cell enters is an entry, one a link to
 * another cell leaves is an exit; per cell and metric a clique holds the cost from each entry to
 * each exit through the cell alone (entries x exits: a one-way road's end is only one of them).
 * A search may cross a cell by its clique instead of its roads whenever nothing inside the cell is
 * blocked, so its work follows the cells the zones touch rather than every node a detour might.
 * Plain typed arrays, saved in the graph file with the hierarchy.
 */
export interface CellOverlay {
  /**
   * Per node: its cell (16 bits while the cells fit); with `fine`, per small cell: the cell it lies
   * in (a node's cell is cellOf[fine.cellOf[v]]: one array per node serves both levels). A file
   * stores it per node either way (bigCellPerNode).
   */
  cellOf: Uint16Array | Uint32Array;
  /** Per cell (CSR, length cells + 1): its entries, ascending, are entryNode[entryFirst[c] .. entryFirst[c+1]-1]. */
  entryFirst: Uint32Array;
  entryNode: Uint32Array;
  /** Per cell, its exits, the same way. */
  exitFirst: Uint32Array;
  exitNode: Uint32Array;
  /**
   * Per metric, the cells' cliques one after the other (cell c's entries x exits block at
   * cliqueOffsets[c], row i from its entry i): costs in whole steps of the metric (COST_STEP),
   * UNREACHABLE where no path inside the cell joins the pair.
   */
  duration: Uint32Array;
  distance: Uint32Array;
  /**
   * Per clique entry, the other metric's whole steps along the path the entry costs (the metres of
   * the quickest path through the cell in durationSecond, the milliseconds of the shortest in
   * distanceSecond), so a matrix crossing the cell reports both values of one cheapest path.
   */
  durationSecond: Uint32Array;
  distanceSecond: Uint32Array;
  /**
   * A second level of smaller cells, each inside one of these (cut from it; the small cells of a
   * big cell are numbered in a row), crossed by their own cliques where a search opens a big cell;
   * none in files made before it.
   */
  fine?: CellOverlay;
}

/** The array members of a CellOverlay, in file order. */
export const OVERLAY_ARRAY_KEYS = ['cellOf', 'entryFirst', 'entryNode', 'exitFirst', 'exitNode', 'duration', 'distance', 'durationSecond', 'distanceSecond'] as const;

/** Where each cell's clique starts (length cells + 1; float64: the sum of the blocks may pass 2^32). */
export function cliqueOffsets(entryFirst: Uint32Array, exitFirst: Uint32Array): Float64Array {
  const cells = entryFirst.length - 1;
  const first = new Float64Array(cells + 1);
  for (let c = 0; c < cells; c++) first[c + 1] = first[c] + (entryFirst[c + 1] - entryFirst[c]) * (exitFirst[c + 1] - exitFirst[c]);
  return first;
}

/** Cliques of some cells of one level, laid out as the level's own. */
export interface CellCliques {
  /** The cells, ascending. */
  cells: Uint32Array;
  /** Per listed cell, where its clique starts in the arrays below (entries x exits of the overlay's own). */
  first: Float64Array;
  duration: Uint32Array;
  distance: Uint32Array;
}

/**
 * Cliques of some small cells that charge `costPerMetre` on some roads besides their cost (a
 * vehicle class's destination-only roads, PathQuery.penalisedCellCliques): whole steps of the
 * metric in float64 (a penalty passes 32 bits), Infinity where no path joins a pair.
 */
export interface PenalisedCellCliques {
  cells: Uint32Array;
  first: Float64Array;
  duration: Float64Array;
  distance: Float64Array;
  /** The charge per metre on the penalised roads, in the metric's cost (seconds or metres). */
  costPerMetre: number;
}

/** A charge per centimetre on some roads inside a clique (writePenalisedCellClique), in the metric's steps. */
export interface CliquePenalty {
  /** Per road, non-zero where the charge applies. */
  roads: Uint8Array;
  stepsPerCm: number;
}

/** Both metrics' clique arrays of an overlay's big cells and of its small cells (`fine`). */
export interface OverlayCliques {
  duration: Uint32Array;
  distance: Uint32Array;
  fine?: { duration: Uint32Array; distance: Uint32Array };
}

/**
 * The overlay's clique arrays with other cliques in some of its cells (a vehicle class's,
 * customized around its closed roads and in its times): new arrays for both metrics and levels,
 * on shared memory (a service's trip threads use one thread's). overlayWithCliques puts them in.
 */
export function replacedCliques(overlay: CellOverlay, small: CellCliques | undefined, big: readonly CellCliques[]): OverlayCliques {
  const replaced = (level: CellOverlay, parts: readonly CellCliques[]): Pick<CellOverlay, 'duration' | 'distance'> => {
    if (parts.length === 0) return { duration: level.duration, distance: level.distance };
    const at = cliqueOffsets(level.entryFirst, level.exitFirst);
    const out = { duration: sharedCopy(level.duration), distance: sharedCopy(level.distance) };
    for (const part of parts) {
      for (let j = 0; j < part.cells.length; j++) {
        const c = part.cells[j], from = part.first[j], to = part.first[j + 1];
        if (to - from !== at[c + 1] - at[c]) throw new Error(`cliques of ${to - from} entries for cell ${c} of ${at[c + 1] - at[c]}`);
        out.duration.set(part.duration.subarray(from, to), at[c]);
        out.distance.set(part.distance.subarray(from, to), at[c]);
      }
    }
    return out;
  };
  const fine = overlay.fine;
  return { ...replaced(overlay, big), ...(fine && { fine: replaced(fine, small ? [small] : []) }) };
}

/**
 * The overlay with replacedCliques' arrays: the boundaries shared. The second values stay the
 * overlay's: only matrices read them, and they never run on such an overlay.
 */
export function overlayWithCliques(overlay: CellOverlay, cliques: OverlayCliques): CellOverlay {
  const { fine, ...big } = cliques;
  if (big.duration.length !== overlay.duration.length || big.distance.length !== overlay.distance.length || (fine && fine.duration.length !== overlay.fine?.duration.length)) {
    throw new Error('cliques for another overlay');
  }
  return { ...overlay, ...big, ...(overlay.fine && fine && { fine: { ...overlay.fine, ...fine } }) };
}

function sharedCopy(array: Uint32Array): Uint32Array {
  const copy = new Uint32Array(new SharedOrPlainBuffer(array.byteLength));
  copy.set(array);
  return copy;
}

/** One level of an overlay as searches read it: boundaries, where each cell's clique starts, both metrics' cliques and second values. */
export interface OverlayLevel {
  entryFirst: Uint32Array;
  entryNode: Uint32Array;
  exitFirst: Uint32Array;
  exitNode: Uint32Array;
  /** Per cell, where its clique starts (cliqueOffsets). */
  cliqueFirst: Float64Array;
  cliques: Record<Metric, Uint32Array>;
  seconds: Record<Metric, Uint32Array>;
}

/** The level view of one level of an overlay (its `fine` aside). */
export function levelView(o: CellOverlay): OverlayLevel {
  return {
    entryFirst: o.entryFirst, entryNode: o.entryNode, exitFirst: o.exitFirst, exitNode: o.exitNode,
    cliqueFirst: cliqueOffsets(o.entryFirst, o.exitFirst),
    cliques: { duration: o.duration, distance: o.distance }, seconds: { duration: o.durationSecond, distance: o.distanceSecond },
  };
}

/** v's place in the ascending nodes[first[c] .. first[c+1]-1] (binary search), or -1. */
export function slotIn(first: Uint32Array, nodes: Uint32Array, c: number, v: number): number {
  let lo = first[c], hi = first[c + 1];
  const b0 = lo;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (nodes[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo < first[c + 1] && nodes[lo] === v ? lo - b0 : -1;
}

/**
 * Cells of at most `maxCellSize` nodes by recursive bisection: each part is cut where a sweep
 * along one of four directions crosses the fewest links (partition.ts's bestSweep), after
 * falling apart into its connected components (small components share a cell). Cells are
 * numbered in the order the recursion reaches them, so neighbouring cells have near numbers.
 */
export function cellPartition(
  graph: RoadGraph, maxCellSize: number, adjacency = undirectedAdjacency(graph), parts: Uint32Array[] = [iota(graph.nodeCount)],
): { cellOf: Uint32Array; cellCount: number } {
  const n = graph.nodeCount;
  const { first, neighbour } = adjacency;
  const { px, py } = projectedCoordinates(graph);
  const cellOf = new Uint32Array(n);
  const cell = new Int32Array(n).fill(-1);
  const side = new Uint8Array(n);
  const visited = new Int32Array(n).fill(-1);
  const queue = new Uint32Array(n);
  let cellCount = 0, partId = 0;
  // A stack: the first part is cut first, so its cells get the lowest numbers.
  const tasks: Uint32Array[] = [...parts].reverse();
  while (tasks.length > 0) {
    const nodes = tasks.pop()!;
    const m = nodes.length;
    if (m <= maxCellSize) {
      for (let i = 0; i < m; i++) cellOf[nodes[i]] = cellCount;
      cellCount++;
      continue;
    }
    const id = partId++;
    for (let i = 0; i < m; i++) cell[nodes[i]] = id;
    const components = componentsOf(nodes, id, cell, visited, first, neighbour, queue);
    if (components.length > 1) {
      // Small components are packed together (a cell need not be connected): a country has
      // thousands of tiny ones, each a cell would be a clique and a boundary of its own.
      let bin: Uint32Array[] = [], binSize = 0;
      for (const c of components) {
        if (c.length > maxCellSize / 2) { tasks.push(c); continue; }
        if (binSize + c.length > maxCellSize) { tasks.push(concat(bin, binSize)); bin = []; binSize = 0; }
        bin.push(c); binSize += c.length;
      }
      if (binSize > 0) tasks.push(concat(bin, binSize));
      continue;
    }
    const { order, split } = bestSweep(nodes, id, cell, side, px, py, first, neighbour);
    tasks.push(order.slice(split), order.slice(0, split));
  }
  return { cellOf, cellCount };
}

function concat(parts: Uint32Array[], size: number): Uint32Array {
  const all = new Uint32Array(size);
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return all;
}

/** The small cells' size bound at import (cut inside each big cell; see DEFAULT_CELL_SIZE for the measurements). */
export const DEFAULT_FINE_CELL_SIZE = 2048;

/**
 * The overlay of a graph: partition, boundary nodes and both metrics' cliques, and, when
 * `fineCellSize` is below `maxCellSize`, a second level of cells of at most that size cut inside
 * each cell (CRP's levels: a search crosses a closed big cell in one step and, inside a big cell a
 * zone touches, the small cells the zone leaves alone). On the calling thread: about 75 s for 5M nodes.
 */
export function buildCellOverlay(graph: RoadGraph, maxCellSize = DEFAULT_CELL_SIZE, fineCellSize = DEFAULT_FINE_CELL_SIZE): CellOverlay {
  const adjacency = undirectedAdjacency(graph);
  const partition = cellPartition(graph, maxCellSize, adjacency);
  const overlay = overlayLevel(graph, partition.cellOf, partition.cellCount);
  if (fineCellSize < maxCellSize) {
    const all = new Uint8Array(graph.nodeCount).fill(1);
    const [first, nodes] = nodesPerCell(partition.cellOf, partition.cellCount, all);
    const parts: Uint32Array[] = [];
    for (let c = 0; c < partition.cellCount; c++) parts.push(nodes.subarray(first[c], first[c + 1]));
    const fine = cellPartition(graph, fineCellSize, adjacency, parts);
    overlay.fine = overlayLevel(graph, fine.cellOf, fine.cellCount);
    const bigOf = partition.cellCount <= 0x10000 ? new Uint16Array(fine.cellCount) : new Uint32Array(fine.cellCount);
    for (let v = 0; v < graph.nodeCount; v++) bigOf[fine.cellOf[v]] = partition.cellOf[v];
    overlay.cellOf = bigOf;
  }
  return overlay;
}

/**
 * The overlay's cell sizes for a graph of n nodes (import's choice): DEFAULT_CELL_SIZE and
 * DEFAULT_FINE_CELL_SIZE, or for a smaller graph big cells of an eighth of it (at least 512) with
 * small cells of an eighth of those, so a city still has big cells to cross whole and small cells
 * that a matrix's per-request customization covers quickly (on the default city, 100 x 100 around
 * ten zones took about 4 times as long with the whole city in one big cell).
 */
export function overlayCellSizes(n: number): [big: number, small: number] {
  const big = Math.min(DEFAULT_CELL_SIZE, Math.max(512, n >> 3));
  return [big, Math.min(DEFAULT_FINE_CELL_SIZE, big >> 3)];
}

/** A node's big cell (the only cell of a one-level overlay). */
export function bigCellOf(o: CellOverlay, v: number): number {
  return o.fine ? o.cellOf[o.fine.cellOf[v]] : o.cellOf[v];
}

/** Per node, its big cell (as a file stores the cells of an overlay with small cells too). */
export function bigCellPerNode(o: CellOverlay): Uint16Array | Uint32Array {
  const fine = o.fine;
  if (!fine) return o.cellOf;
  const perNode = o.cellOf instanceof Uint16Array ? new Uint16Array(fine.cellOf.length) : new Uint32Array(fine.cellOf.length);
  for (let v = 0; v < perNode.length; v++) perNode[v] = o.cellOf[fine.cellOf[v]];
  return perNode;
}

/**
 * Per big cell (CSR, length cells + 1), its small cells smallFirst[c] .. smallFirst[c+1]-1, or a
 * message when the small cells are not numbered in a row per big cell (a damaged file).
 */
export function smallCellRanges(bigOf: Uint16Array | Uint32Array, bigCells: number): Uint32Array | string {
  const first = new Uint32Array(bigCells + 1);
  for (let f = 0; f < bigOf.length; f++) {
    const c = bigOf[f];
    if (c >= bigCells) return `small cell ${f} lies in big cell ${c} of ${bigCells}`;
    if (f > 0 && c < bigOf[f - 1]) return `small cell ${f} is numbered out of its big cell's row`;
    first[c + 1] = f + 1;
  }
  for (let c = 0; c < bigCells; c++) if (first[c + 1] < first[c]) first[c + 1] = first[c];
  return first;
}

/** One level of the overlay: boundary nodes and both metrics' cliques of the given cells. */
function overlayLevel(graph: RoadGraph, cellOf32: Uint32Array, cellCount: number): CellOverlay {
  const n = graph.nodeCount;
  const cellOf = cellCount <= 0x10000 ? Uint16Array.from(cellOf32) : cellOf32;
  const { edgeHead } = graph;
  const edgeTail = graph.edgeTail;
  // Entries and exits: the heads and tails of links between two cells.
  const isEntry = new Uint8Array(n), isExit = new Uint8Array(n);
  for (let e = 0; e < edgeHead.length; e++) {
    const t = edgeTail[e], h = edgeHead[e];
    if (cellOf[t] !== cellOf[h]) { isExit[t] = 1; isEntry[h] = 1; }
  }
  const [entryFirst, entryNode] = nodesPerCell(cellOf, cellCount, isEntry);
  const [exitFirst, exitNode] = nodesPerCell(cellOf, cellCount, isExit);
  const first = cliqueOffsets(entryFirst, exitFirst);
  const level = { entryFirst, entryNode, exitFirst, exitNode };
  const records = new NodeRecords(n), heap = new MinHeap(1024);
  const cliques = {} as Record<Metric, Uint32Array>, seconds = {} as Record<Metric, Uint32Array>;
  const scratch = new Float64Array(n);
  for (const metric of ['duration', 'distance'] as const) {
    const steps = graph.roadCost(metric); // whole steps of the metric, as the hierarchy's arcs
    const clique = new Uint32Array(first[cellCount]), second = new Uint32Array(first[cellCount]);
    const other = { steps: graph.roadCost(metric === 'duration' ? 'distance' : 'duration'), out: second, scratch };
    for (let c = 0; c < cellCount; c++) writeCellClique(graph, level, cellOf, c, steps, metric, clique, first[c], records, heap, undefined, other);
    cliques[metric] = clique;
    seconds[metric] = second;
  }
  return {
    cellOf, entryFirst, entryNode, exitFirst, exitNode, duration: cliques.duration, distance: cliques.distance,
    durationSecond: seconds.duration, distanceSecond: seconds.distance,
  };
}

/** The other metric's steps per road, where a clique's second values go, and a per-node scratch array. */
export interface CliqueSecond {
  steps: Uint32Array;
  out: Uint32Array;
  scratch: Float64Array;
}

/**
 * Cell c's clique into `out` from `at` (entry i's row at at + i * exits): the cost in whole steps
 * of the metric from each entry to each exit over the cell's own roads (cellOfNode: a node's cell
 * at this level), without the roads marked in `blocked`; UNREACHABLE where none joins the pair.
 * With `second`, the other metric's steps along the same path into second.out at the same places.
 * A Dijkstra per entry; `records` and `heap` are scratch, cleared here.
 */
export function writeCellClique(
  graph: RoadGraph, level: Pick<CellOverlay, 'entryFirst' | 'entryNode' | 'exitFirst' | 'exitNode'>, cellOfNode: ArrayLike<number>, c: number,
  steps: Uint32Array, metric: Metric, out: Uint32Array, at: number, records: NodeRecords, heap: MinHeap, blocked?: Uint8Array,
  second?: CliqueSecond,
): void {
  writeClique(graph, level, cellOfNode, c, steps, metric, out, at, records, heap, blocked, second);
}

/**
 * writeCellClique with `penalty` charged on its roads, into float64 steps (Infinity where no path
 * joins a pair): a PenalisedCellCliques' cell.
 */
export function writePenalisedCellClique(
  graph: RoadGraph, level: Pick<CellOverlay, 'entryFirst' | 'entryNode' | 'exitFirst' | 'exitNode'>, cellOfNode: ArrayLike<number>, c: number,
  steps: Uint32Array, metric: Metric, out: Float64Array, at: number, records: NodeRecords, heap: MinHeap, blocked: Uint8Array | undefined,
  penalty: CliquePenalty,
): void {
  writeClique(graph, level, cellOfNode, c, steps, metric, out, at, records, heap, blocked, undefined, penalty);
}

function writeClique(
  graph: RoadGraph, level: Pick<CellOverlay, 'entryFirst' | 'entryNode' | 'exitFirst' | 'exitNode'>, cellOfNode: ArrayLike<number>, c: number,
  steps: Uint32Array, metric: Metric, out: Uint32Array | Float64Array, at: number, records: NodeRecords, heap: MinHeap, blocked?: Uint8Array,
  second?: CliqueSecond, penalty?: CliquePenalty,
): void {
  const { firstOut, edgeHead, edgeRoad, roadLengthCm } = graph;
  const { entryFirst, entryNode, exitFirst, exitNode } = level;
  const e0 = entryFirst[c], E = entryFirst[c + 1] - e0, x0 = exitFirst[c], X = exitFirst[c + 1] - x0;
  for (let i = 0; i < E; i++) {
    records.clear();
    heap.clear();
    const s = entryNode[e0 + i];
    records.improve(s, 0);
    if (second !== undefined) second.scratch[s] = 0;
    heap.push(0, s);
    // Done once every exit is settled: the rest of the cell cannot change their costs.
    let exitsLeft = X;
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      if (key !== records.values[2 * records.find(u)]) continue;
      if (slotIn(exitFirst, exitNode, c, u) >= 0 && --exitsLeft === 0) break;
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const v = edgeHead[e];
        if (cellOfNode[v] !== c) continue;
        const r = edgeRoad[e];
        if (blocked !== undefined && blocked[r] !== 0) continue;
        let d = key + steps[r];
        if (penalty !== undefined && penalty.roads[r] !== 0) d += penalty.stepsPerCm * roadLengthCm[r];
        if (records.improve(v, d) >= 0) {
          heap.push(d, v);
          // Set when improved, read when settled: a node's value is that of its final parent, settled before it.
          if (second !== undefined) second.scratch[v] = second.scratch[u] + second.steps[r];
        }
      }
    }
    const row = at + i * X;
    if (penalty !== undefined) {
      for (let j = 0; j < X; j++) { const k = records.find(exitNode[x0 + j]); out[row + j] = k < 0 ? Infinity : records.values[2 * k]; }
    } else {
      for (let j = 0; j < X; j++) out[row + j] = cliqueValue(records, exitNode[x0 + j], metric);
    }
    if (second !== undefined) {
      for (let j = 0; j < X; j++) second.out[row + j] = out[row + j] === UNREACHABLE ? UNREACHABLE : Math.min(UNREACHABLE - 1, second.scratch[exitNode[x0 + j]]);
    }
  }
}

/**
 * A clique's entry for node v from a Dijkstra's records in whole steps: its cost, or UNREACHABLE
 * when the search did not reach v; a cost that does not fit 32 bits is INVALID_INPUT.
 */
export function cliqueValue(records: NodeRecords, v: number, metric: Metric): number {
  const k = records.find(v);
  if (k < 0) return UNREACHABLE;
  const d = records.values[2 * k];
  if (d >= UNREACHABLE) throw new DetourError(ErrorCode.INVALID_INPUT, `a path inside one cell costs ${d} ${metric} steps, past 32 bits`);
  return d;
}

/** The marked nodes of each cell, ascending, as CSR by cell. */
function nodesPerCell(cellOf: Uint16Array | Uint32Array, cellCount: number, marked: Uint8Array): [Uint32Array, Uint32Array] {
  const first = new Uint32Array(cellCount + 1);
  for (let v = 0; v < marked.length; v++) if (marked[v]) first[cellOf[v] + 1]++;
  for (let c = 0; c < cellCount; c++) first[c + 1] += first[c];
  const nodes = new Uint32Array(first[cellCount]);
  const fill = first.slice(0, cellCount);
  for (let v = 0; v < marked.length; v++) if (marked[v]) nodes[fill[cellOf[v]]++] = v;
  return [first, nodes];
}

/** Bytes the overlay holds. */
export function cellOverlayBytes(o: CellOverlay): number {
  return OVERLAY_ARRAY_KEYS.reduce((sum, key) => sum + o[key].byteLength, 0) + (o.fine ? cellOverlayBytes(o.fine) : 0);
}

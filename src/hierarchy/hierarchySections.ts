import {
  corrupt, decodeGraphBytes, encodeGraphBytes, type FileSection, type GraphFileSections, type SectionArray,
} from '../graph/graphCodec.js';
import type { Metric, RoadGraph, RoadGraphArrays } from '../graph/RoadGraph.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';
import { bigCellPerNode, OVERLAY_ARRAY_KEYS, smallCellRanges, type CellOverlay } from './CellOverlay.js';
import {
  HIERARCHY_ARRAY_KEYS, contractionOrder, type ContractionHierarchy, type GraphHierarchy, type HierarchyGraph,
} from './ContractionHierarchy.js';

/**
 * The hierarchy layer's sections of a graph file (graph/graphCodec.ts holds the format): the
 * duration and distance hierarchies' arrays (`duration.upFirst`, ...: all or none), the cell
 * overlay (`cells.cellOf`, ...: all or none, only with the hierarchies) and its small cells
 * (`cells.fine.cellOf`, ...: all or none, only with the overlay). No node: import: a browser reads them too.
 */

const HIERARCHY_METRICS: readonly Metric[] = ['duration', 'distance'];

/** The small cells' prefix after `cells.` (CellOverlay.fine). */
const FINE = 'fine.';

/** A cell overlay array's section name. */
const overlaySection = (key: string, prefix = '') => `cells.${prefix}${key}`;

export const HIERARCHY_SECTIONS: GraphFileSections<GraphHierarchy | undefined> = {
  names: new Set([
    ...HIERARCHY_METRICS.flatMap((metric) => HIERARCHY_ARRAY_KEYS.map((key) => `${metric}.${key}`)),
    ...OVERLAY_ARRAY_KEYS.flatMap((key) => [overlaySection(key), overlaySection(key, FINE)]),
  ]),
  write: (graph: HierarchyGraph) => hierarchySections(graph.hierarchy),
  read: readHierarchy,
};

function hierarchySections(hierarchy: GraphHierarchy | undefined): FileSection[] {
  const out: FileSection[] = [];
  if (!hierarchy) return out;
  for (const metric of HIERARCHY_METRICS) {
    const ch = hierarchy[metric];
    for (const key of HIERARCHY_ARRAY_KEYS) out.push({ name: `${metric}.${key}`, array: key === 'rank' ? storedRank(ch) : ch[key] });
  }
  const overlay = hierarchy.overlay;
  if (overlay) for (const key of OVERLAY_ARRAY_KEYS) out.push({ name: overlaySection(key), array: key === 'cellOf' ? bigCellPerNode(overlay) : overlay[key] });
  if (overlay?.fine) for (const key of OVERLAY_ARRAY_KEYS) out.push({ name: overlaySection(key, FINE), array: overlay.fine[key] });
  return out;
}

function readHierarchy(arrays: Record<string, SectionArray>, g: RoadGraphArrays, source: string): GraphHierarchy | undefined {
  const hierarchyKeys = HIERARCHY_METRICS.flatMap((metric) => HIERARCHY_ARRAY_KEYS.map((key) => `${metric}.${key}`));
  const hierarchyFound = hierarchyKeys.filter((key) => arrays[key]).length;
  if (hierarchyFound !== 0 && hierarchyFound !== hierarchyKeys.length) throw corrupt(source, 'the contraction hierarchy is incomplete');
  let hierarchy: GraphHierarchy | undefined;
  if (hierarchyFound) {
    const byMetric = {} as Record<Metric, ContractionHierarchy>;
    for (const metric of HIERARCHY_METRICS) {
      const ch = { metric } as Record<string, unknown>;
      for (const key of HIERARCHY_ARRAY_KEYS) ch[key] = arrays[`${metric}.${key}`];
      byMetric[metric] = ch as unknown as ContractionHierarchy;
      checkHierarchy(byMetric[metric], g, source);
      // Without a core nothing reads the rank once the arcs are checked against it.
      if (byMetric[metric].coreRank[0] === g.nodeLatE7.length) byMetric[metric].rank = new Uint32Array(new SharedOrPlainBuffer(0));
    }
    hierarchy = byMetric;
  }
  const overlayFound = OVERLAY_ARRAY_KEYS.filter((key) => arrays[overlaySection(key)]).length;
  if (overlayFound !== 0 && (overlayFound !== OVERLAY_ARRAY_KEYS.length || !hierarchy)) throw corrupt(source, 'the cell overlay is incomplete');
  if (hierarchy && overlayFound) hierarchy.overlay = checkOverlay(arrays, g, source);
  const fineFound = OVERLAY_ARRAY_KEYS.filter((key) => arrays[overlaySection(key, FINE)]).length;
  if (fineFound !== 0 && (fineFound !== OVERLAY_ARRAY_KEYS.length || !hierarchy?.overlay)) throw corrupt(source, 'the cell overlay\'s small cells are incomplete');
  if (hierarchy?.overlay && fineFound) {
    const fine = checkOverlay(arrays, g, source, FINE);
    hierarchy.overlay.cellOf = bigCellPerSmallCell(fine, hierarchy.overlay, source);
    hierarchy.overlay.fine = fine;
  }
  return hierarchy;
}

/** Serialises a graph and its hierarchy, when it has one, to bytes in memory. */
export function encodeGraph(graph: HierarchyGraph): Uint8Array {
  return encodeGraphBytes(graph, hierarchySections(graph.hierarchy));
}

/** Parses graph bytes held in memory (e.g. a fetched ArrayBuffer's), with the hierarchy the file holds. */
export function decodeGraph(bytes: Uint8Array, source = 'graph'): HierarchyGraph {
  const { graph, layer } = decodeGraphBytes(bytes, source, HIERARCHY_SECTIONS);
  return withHierarchy(graph, layer);
}

/** The graph with `hierarchy` attached (none: the graph as it is). */
export function withHierarchy(graph: RoadGraph, hierarchy: GraphHierarchy | undefined): HierarchyGraph {
  if (hierarchy) (graph as HierarchyGraph).hierarchy = hierarchy;
  return graph;
}

/**
 * The cell overlay's sections: cells below the cell count; per cell, entry and exit offsets in
 * order and its entries and exits ascending and in that cell; cliques of entries x exits per cell
 * (OverlaySearch reads all of these without further checks). O(nodes + entries + exits).
 */
function checkOverlay(arrays: Record<string, SectionArray>, g: RoadGraphArrays, source: string, prefix = ''): CellOverlay {
  const n = g.nodeLatE7.length;
  const [cellOf, entryFirst, entryNode, exitFirst, exitNode, duration, distance, durationSecond, distanceSecond] = OVERLAY_ARRAY_KEYS.map((key) => arrays[overlaySection(key, prefix)]);
  if (!(cellOf instanceof Uint16Array || cellOf instanceof Uint32Array) || cellOf.length !== n) throw corrupt(source, 'the cell overlay does not match the node count');
  const cells = entryFirst.length - 1;
  for (const [what, first, nodes] of [['entries', entryFirst, entryNode], ['exits', exitFirst, exitNode]] as const) {
    if (!(first instanceof Uint32Array) || first.length !== cells + 1 || first[0] !== 0 || !(nodes instanceof Uint32Array) || first[cells] !== nodes.length) {
      throw corrupt(source, `the cell overlay's ${what} do not match their offsets`);
    }
    for (let c = 0; c < cells; c++) {
      if (first[c] > first[c + 1]) throw corrupt(source, `the cell overlay's ${what} offsets of cell ${c} are out of order`);
      for (let k = first[c]; k < first[c + 1]; k++) {
        const v = nodes[k];
        if (v >= n || cellOf[v] !== c || (k > first[c] && nodes[k - 1] >= v)) throw corrupt(source, `the cell overlay's ${what} ${k} is not an ascending node of cell ${c}`);
      }
    }
  }
  for (let v = 0; v < n; v++) if (cellOf[v] >= cells) throw corrupt(source, `the cell overlay puts node ${v} in cell ${cellOf[v]} of ${cells}`);
  let entries = 0;
  for (let c = 0; c < cells; c++) entries += (entryFirst[c + 1] - entryFirst[c]) * (exitFirst[c + 1] - exitFirst[c]);
  for (const clique of [duration, distance, durationSecond, distanceSecond]) {
    if (!(clique instanceof Uint32Array) || clique.length !== entries) throw corrupt(source, 'the cell overlay\'s cliques do not match its cells');
  }
  return {
    cellOf, entryFirst: entryFirst as Uint32Array, entryNode: entryNode as Uint32Array, exitFirst: exitFirst as Uint32Array, exitNode: exitNode as Uint32Array,
    duration: duration as Uint32Array, distance: distance as Uint32Array,
    durationSecond: durationSecond as Uint32Array, distanceSecond: distanceSecond as Uint32Array,
  };
}

/**
 * Per small cell, its big cell (what CellOverlay.cellOf holds with small cells; the file's per-node
 * array is dropped). Each small cell must lie inside one big cell, and the small cells of a big cell
 * be numbered in a row: a search that crosses a small cell by its clique while its big cell is
 * open would otherwise land in a closed big cell it never entered. O(nodes).
 */
function bigCellPerSmallCell(fine: CellOverlay, big: CellOverlay, source: string): Uint16Array | Uint32Array {
  const smallCells = fine.entryFirst.length - 1, bigCells = big.entryFirst.length - 1;
  const bigOf = new (big.cellOf instanceof Uint16Array ? Uint16Array : Uint32Array)(new SharedOrPlainBuffer(smallCells * big.cellOf.BYTES_PER_ELEMENT));
  const seen = new Uint8Array(smallCells);
  for (let v = 0; v < big.cellOf.length; v++) {
    const c = fine.cellOf[v];
    if (!seen[c]) { seen[c] = 1; bigOf[c] = big.cellOf[v]; }
    else if (bigOf[c] !== big.cellOf[v]) throw corrupt(source, `the cell overlay's small cell ${c} lies in two big cells`);
  }
  const empty = seen.indexOf(0);
  if (empty >= 0) throw corrupt(source, `the cell overlay's small cell ${empty} holds no node`);
  const ranges = smallCellRanges(bigOf, bigCells);
  if (typeof ranges === 'string') throw corrupt(source, `the cell overlay's ${ranges}`);
  return bigOf;
}


/**
 * The rank a file stores for a hierarchy: its own, or without a core (when memory keeps none) an
 * order its arcs make (Kahn, O(nodes + arcs): paid once when writing, so loading checks the arcs
 * against a stored order in one pass instead of sorting them again).
 */
function storedRank(ch: ContractionHierarchy): Uint32Array {
  if (ch.rank.length) return ch.rank;
  const order = contractionOrder(ch);
  if (!order) throw new Error(`${ch.metric} hierarchy: arcs form a cycle outside a core`);
  return order;
}

/**
 * Sizes agree with the graph, references are in range, each node's arcs are sorted by their other
 * end, every arc leads up in the stored rank (outside a core; so upward walks end: the potentials'
 * and the unpacking's), and a shortcut's middle node ranks below both its ends (so unpacking ends:
 * every half has a lower middle, or is an edge).
 */
function checkHierarchy(ch: ContractionHierarchy, g: RoadGraphArrays, source: string): void {
  const n = g.nodeLatE7.length;
  const m = g.edgeHead.length;
  const arcs = ch.arcNode.length;
  const what = `${ch.metric} hierarchy`;
  const { upFirst, downFirst, arcNode, arcMiddle } = ch;
  for (const key of HIERARCHY_ARRAY_KEYS) {
    const want = key === 'arcMiddle' ? Int32Array : Uint32Array;
    if (!(ch[key] instanceof want)) throw corrupt(source, `${what} ${key} is not ${key === 'arcMiddle' ? 'int32' : 'uint32'}`);
  }
  const coreRank = ch.coreRank[0];
  if (ch.coreRank.length !== 1 || coreRank > n || ch.rank.length !== n || upFirst.length !== n + 1 || downFirst.length !== n + 1) {
    throw corrupt(source, `${what} does not match the node count`);
  }
  if (upFirst[0] !== 0 || upFirst[n] !== downFirst[0] || downFirst[n] !== arcs
    || ch.arcWeight.length !== arcs || arcMiddle.length !== arcs) {
    throw corrupt(source, `${what} arc offsets do not match the arc count`);
  }
  for (let v = 0; v < n; v++) {
    if (upFirst[v] > upFirst[v + 1] || downFirst[v] > downFirst[v + 1] || ch.rank[v] >= n) {
      throw corrupt(source, `${what} offsets of node ${v} are out of order`);
    }
  }
  for (let a = 0; a < arcs; a++) if (arcNode[a] >= n) throw corrupt(source, `${what} arc ${a} refers past the end of the graph`);
  const order = ch.rank;
  const inCore = (v: number) => order[v] >= coreRank;
  const checkRange = (v: number, lo: number, hi: number) => {
    const rv = order[v];
    for (let a = lo; a < hi; a++) {
      const x = arcNode[a], middle = arcMiddle[a];
      const bad = (a > lo && arcNode[a - 1] >= x) || x === v || (order[x] <= rv && !(inCore(v) && inCore(x)))
        || (middle < 0 ? ~middle >= m : middle >= n || order[middle] >= rv || order[middle] >= order[x]);
      if (bad) throw corrupt(source, `${what} arc ${a} refers past the end of the graph or out of order`);
    }
  };
  for (let v = 0; v < n; v++) {
    checkRange(v, upFirst[v], upFirst[v + 1]);
    checkRange(v, downFirst[v], downFirst[v + 1]);
  }
}


import { DetourError, ErrorCode } from '../errors.js';
import {
  HIERARCHY_ARRAY_KEYS, contractionOrder, type ContractionHierarchy, type GraphHierarchy,
} from '../hierarchy/ContractionHierarchy.js';
import { bigCellPerNode, OVERLAY_ARRAY_KEYS, smallCellRanges, type CellOverlay } from '../hierarchy/CellOverlay.js';
import { crc32 } from './crc32.js';
import {
  ARRAY_KEYS, RoadGraph, type GraphIndexes, type GraphMeta, type Metric, type RoadGraphArrays,
} from './RoadGraph.js';
import { SharedOrPlainBuffer } from './sharedGraph.js';

/**
 * The detour graph file (format version 9):
 *   magic "DETOURGR" | u32 format version | u32 section count | u32 meta JSON byte length | u32 reserved
 *   meta JSON (UTF-8), padded to 8 bytes
 *   per section: u32 element type | u32 element count | u32 name byte length | u32 reserved,
 *     the name (ASCII) padded to 8, then the elements (little-endian), padded to 8
 *   u32 CRC-32 of every byte before it
 * Sections are named: the graph's arrays (ARRAY_KEYS, required); the duration and distance
 * hierarchies' arrays (`duration.upFirst`, ...: all or none);
 * the cell overlay (`cells.cellOf`, ...: all or none, only with the hierarchies) and its small cells
 * (`cells.fine.cellOf`, ...: all or none, only with the overlay);
 * the search indexes (GraphIndexes: `snap.tinyRoads`, `snap.tinyComponent`, `snap.bits`,
 * `roads.groupTree`). Earlier files carry `snap.tree` (before snapping used the road tree),
 * `roads.tree` (a box per road) and `snap.roadComponent` with `snap.roadBits` (a component per
 * road): skipped, and what they held rebuilt; new names, so an earlier reader skips ours too. Everything
 * but the graph's arrays is optional, and a reader skips (but checksums) sections it does not
 * know, so a later detour can add one without a new version. Other versions get GRAPH_VERSION
 * (version 5 left out what the graph derives: edge tails, the reverse adjacency and edge costs;
 * and it stores a shortcut as its middle node instead of its two child arcs; version 6 stores
 * coordinates as int32 in 1e-7 degree instead of float64 degrees; version 7 road lengths in whole
 * centimetres and hierarchy arc costs as uint32 whole steps instead of float64; version 8 stores the
 * road lengths as uint32 centimetres, `roadLengthCm`, instead of float64 metres; version 9 adds the
 * overlay's second cliques, `cells.durationSecond` and `cells.distanceSecond`, and drops the nested
 * dissection order). A hierarchy's rank
 * is its contraction order, or any order its arcs lead up in when contraction left no core (then
 * only loading reads it, to check the arcs, and the loaded hierarchy drops it). graphFile.ts
 * writes and reads files section by section (no whole-file buffer, so files over 2 GiB work);
 * loaded arrays live on SharedArrayBuffers where the platform has them, so a worker thread can
 * use them without a copy. No node: import: this module runs in a browser too.
 */
export const GRAPH_MAGIC = 'DETOURGR';
export const GRAPH_FORMAT_VERSION = 9;

const TYPES = [Float64Array, Float32Array, Uint32Array, Uint8Array, Int32Array, Uint16Array] as const;
type AnyTyped = Float64Array | Float32Array | Uint32Array | Uint8Array | Int32Array | Uint16Array;
const HEADER_BYTES = 24;
/** Largest piece handed to one read or write call (Node caps a single call near 2 GiB). */
export const CHUNK_BYTES = 1 << 28;
const HIERARCHY_METRICS: readonly Metric[] = ['duration', 'distance'];

const pad8 = (n: number) => (n + 7) & ~7;

/** Names of the index sections, by GraphIndexes member. */
const INDEX_SECTIONS = {
  snapTinyRoads: 'snap.tinyRoads', snapTinyComponent: 'snap.tinyComponent', snapRoadBits: 'snap.bits', roadTree: 'roads.groupTree',
} as const satisfies Record<keyof GraphIndexes, string>;
/** Longest section name a reader accepts (a damaged length must not ask for a huge read). */
const MAX_NAME_BYTES = 64;

/** Every section of a graph, in file order. */
function sections(graph: RoadGraph): { name: string; array: AnyTyped }[] {
  const arrays = graph.arrays() as unknown as Record<string, AnyTyped>;
  const out: { name: string; array: AnyTyped }[] = ARRAY_KEYS.map((key) => ({ name: key, array: arrays[key] }));
  if (graph.hierarchy) {
    for (const metric of HIERARCHY_METRICS) {
      const ch = graph.hierarchy[metric];
      for (const key of HIERARCHY_ARRAY_KEYS) out.push({ name: `${metric}.${key}`, array: key === 'rank' ? storedRank(ch) : ch[key] });
    }
    const overlay = graph.hierarchy.overlay;
    if (overlay) for (const key of OVERLAY_ARRAY_KEYS) out.push({ name: overlaySection(key), array: key === 'cellOf' ? bigCellPerNode(overlay) : overlay[key] });
    if (overlay?.fine) for (const key of OVERLAY_ARRAY_KEYS) out.push({ name: overlaySection(key, FINE), array: overlay.fine[key] });
  }
  for (const [key, name] of Object.entries(INDEX_SECTIONS)) {
    const array = graph.indexes[key as keyof GraphIndexes];
    if (array) out.push({ name, array });
  }
  return out;
}

/** The file's bytes as consecutive pieces (header, meta, sections with padding); the CRC is not included. */
export function* pieces(graph: RoadGraph): Generator<Uint8Array> {
  const meta = new TextEncoder().encode(JSON.stringify(graph.meta));
  const list = sections(graph);
  const header = new Uint8Array(HEADER_BYTES + pad8(meta.length));
  const view = new DataView(header.buffer);
  header.set(new TextEncoder().encode(GRAPH_MAGIC), 0);
  view.setUint32(8, GRAPH_FORMAT_VERSION, true);
  view.setUint32(12, list.length, true);
  view.setUint32(16, meta.length, true);
  header.set(meta, HEADER_BYTES);
  yield header;
  const zeros = new Uint8Array(8);
  for (const { name, array } of list) {
    const nameBytes = new TextEncoder().encode(name);
    const head = new Uint8Array(16 + pad8(nameBytes.length));
    const hv = new DataView(head.buffer);
    hv.setUint32(0, TYPES.findIndex((T) => array instanceof T), true);
    hv.setUint32(4, array.length, true);
    hv.setUint32(8, nameBytes.length, true);
    head.set(nameBytes, 16);
    yield head;
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES));
    const pad = pad8(array.byteLength) - array.byteLength;
    if (pad > 0) yield zeros.subarray(0, pad);
  }
}

/** Serialises a graph (and its hierarchy, when it has one) to bytes in memory. */
export function encodeGraph(graph: RoadGraph): Uint8Array {
  const parts = [...pieces(graph)];
  const size = parts.reduce((s, p) => s + p.length, 0) + 4;
  const out = new Uint8Array(size);
  let offset = 0;
  let crc = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
    crc = crc32(p, crc);
  }
  new DataView(out.buffer).setUint32(offset, crc, true);
  return out;
}

export function corrupt(source: string, why: string): DetourError {
  return new DetourError(ErrorCode.GRAPH_CORRUPT, `${source} is not a valid detour graph: ${why}`, { path: source });
}

/** Sequential bytes: fills `into` from the current position, returns how many bytes it got. */
export interface ByteSource {
  readonly size: number;
  read(into: Uint8Array): number;
}

/**
 * Parses a graph from a sequential source. Every array is read straight into its own
 * SharedArrayBuffer; the CRC is computed on the way and checked at the end.
 */
export function parse(src: ByteSource, source: string): RoadGraph {
  let crc = 0;
  let position = 0;
  const readExactly = (into: Uint8Array, what: string) => {
    for (let at = 0; at < into.length; at += CHUNK_BYTES) {
      const piece = into.subarray(at, Math.min(into.length, at + CHUNK_BYTES));
      const got = src.read(piece);
      if (got !== piece.length) throw corrupt(source, `${what} runs past the end of the file (truncated file?)`);
      crc = crc32(piece, crc);
    }
    position += into.length;
  };
  if (src.size < HEADER_BYTES + 4) throw corrupt(source, `file is ${src.size} bytes, too short for a header`);
  const header = new Uint8Array(HEADER_BYTES);
  readExactly(header, 'header');
  const magic = String.fromCharCode(...header.subarray(0, 8));
  if (magic !== GRAPH_MAGIC) throw corrupt(source, 'wrong magic bytes (is it a graph file built by detour import?)');
  const view = new DataView(header.buffer);
  const version = view.getUint32(8, true);
  // A small number is a real other version; anything else is damage, reported as corruption below.
  if (version !== GRAPH_FORMAT_VERSION && version < 256) {
    throw new DetourError(
      ErrorCode.GRAPH_VERSION,
      `${source} has graph format version ${version}; this detour reads version ${GRAPH_FORMAT_VERSION} ` +
        `(with the contraction hierarchy and the search indexes). Re-import it with detour import.`,
      { path: source },
    );
  }
  const end = src.size - 4;
  const sectionCount = view.getUint32(12, true);
  const countOk = sectionCount >= ARRAY_KEYS.length && sectionCount * 16 <= end;
  if (version !== GRAPH_FORMAT_VERSION || !countOk) {
    throw corrupt(source, `${sectionCount} sections in a version ${version} file (checksum or header damaged)`);
  }
  const metaLength = view.getUint32(16, true);
  if (HEADER_BYTES + pad8(metaLength) > end) throw corrupt(source, 'metadata runs past the end of the file (truncated file?)');
  const metaBytes = new Uint8Array(pad8(metaLength));
  readExactly(metaBytes, 'metadata');
  const known = new Set<string>([...ARRAY_KEYS, ...Object.values(INDEX_SECTIONS)]);
  for (const metric of HIERARCHY_METRICS) for (const key of HIERARCHY_ARRAY_KEYS) known.add(`${metric}.${key}`);
  for (const key of OVERLAY_ARRAY_KEYS) known.add(overlaySection(key)).add(overlaySection(key, FINE));
  const arrays: Record<string, AnyTyped> = {};
  const sectionHead = new Uint8Array(16);
  const sectionView = new DataView(sectionHead.buffer);
  const padding = new Uint8Array(8);
  for (let i = 0; i < sectionCount; i++) {
    if (position + sectionHead.length > end) throw corrupt(source, `section ${i} is missing (truncated file?)`);
    readExactly(sectionHead, `section ${i}`);
    const nameLength = sectionView.getUint32(8, true);
    if (nameLength === 0 || nameLength > MAX_NAME_BYTES || position + pad8(nameLength) > end) throw corrupt(source, `section ${i} has a damaged name`);
    const nameBytes = new Uint8Array(pad8(nameLength));
    readExactly(nameBytes, `section ${i}`);
    const name = String.fromCharCode(...nameBytes.subarray(0, nameLength));
    if (Object.hasOwn(arrays, name)) throw corrupt(source, `section ${name} appears twice`);
    const T = TYPES[sectionView.getUint32(0, true)];
    const length = sectionView.getUint32(4, true);
    if (!T) throw corrupt(source, `section ${name} has an unknown element type`);
    const byteLength = length * T.BYTES_PER_ELEMENT;
    // Checked before allocating, so a damaged length cannot ask for more memory than the file holds.
    if (position + pad8(byteLength) > end) throw corrupt(source, `section ${name} runs past the end of the file (truncated file?)`);
    if (!known.has(name)) {
      // A section of a later detour: checksummed and skipped, in pieces (it may be large).
      const skip = new Uint8Array(Math.min(CHUNK_BYTES, pad8(byteLength)));
      for (let left = pad8(byteLength); left > 0; left -= skip.length) readExactly(skip.subarray(0, Math.min(left, skip.length)), `section ${name}`);
      continue;
    }
    // SharedArrayBuffer where there is one (Node; a cross-origin-isolated page), so workers share it.
    const array = new T(new SharedOrPlainBuffer(byteLength));
    readExactly(new Uint8Array(array.buffer), `section ${name}`);
    const pad = pad8(byteLength) - byteLength;
    if (pad > 0) readExactly(padding.subarray(0, pad), `section ${name}`);
    arrays[name] = array;
  }
  if (position !== end) throw corrupt(source, `${end - position} unexpected bytes after the last section`);
  const tail = new Uint8Array(4);
  const got = src.read(tail);
  if (got !== 4 || new DataView(tail.buffer).getUint32(0, true) !== crc) {
    throw corrupt(source, 'checksum mismatch (truncated or damaged file)');
  }
  let meta: GraphMeta;
  try {
    meta = JSON.parse(new TextDecoder().decode(metaBytes.subarray(0, metaLength)));
  } catch {
    throw corrupt(source, 'metadata is not JSON');
  }
  for (const key of ARRAY_KEYS) if (!arrays[key]) throw corrupt(source, `section ${key} is missing`);
  const graphArrays = {} as Record<string, AnyTyped>;
  for (const key of ARRAY_KEYS) graphArrays[key] = arrays[key];
  const g = graphArrays as unknown as RoadGraphArrays;
  checkShape(g, source);
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
  return new RoadGraph(g, meta, hierarchy, checkIndexes(arrays, g, source));
}

/**
 * The index sections: per-road arrays of the right type and length, trees as bytes (SnapIndex
 * and RoadIndex check a tree's own header and item count when they adopt it).
 */
function checkIndexes(arrays: Record<string, AnyTyped>, g: RoadGraphArrays, source: string): GraphIndexes {
  const indexes: GraphIndexes = {};
  const roads = g.roadFrom.length;
  const { snapTinyRoads, snapTinyComponent, snapRoadBits, roadTree } = INDEX_SECTIONS;
  const snap = [snapTinyRoads, snapTinyComponent, snapRoadBits].filter((name) => arrays[name]).length;
  if (snap === 3) {
    const tinyRoads = arrays[snapTinyRoads], tinyComponent = arrays[snapTinyComponent], bits = arrays[snapRoadBits];
    if (!(bits instanceof Uint8Array) || bits.length !== roads) throw corrupt(source, 'the snap index does not match the road count');
    if (!(tinyRoads instanceof Uint32Array) || !(tinyComponent instanceof Int32Array) || tinyComponent.length !== tinyRoads.length) {
      throw corrupt(source, 'the snap index\'s tiny roads do not match their components');
    }
    // Ascending, below the road count, and exactly the roads outside the big components (bit 1).
    let next = 0;
    for (let i = 0; i < tinyRoads.length; i++) {
      const r = tinyRoads[i];
      if (r < next || r >= roads) throw corrupt(source, 'the snap index\'s tiny roads are not ascending road ids');
      for (; next < r; next++) if ((bits[next] & 1) === 0) throw corrupt(source, `road ${next} is outside the big components but not listed`);
      if ((bits[r] & 1) !== 0) throw corrupt(source, `road ${r} is listed as outside the big components but is in one`);
      next = r + 1;
    }
    for (; next < roads; next++) if ((bits[next] & 1) === 0) throw corrupt(source, `road ${next} is outside the big components but not listed`);
    Object.assign(indexes, { snapTinyRoads: tinyRoads, snapTinyComponent: tinyComponent, snapRoadBits: bits });
  } else if (snap !== 0) {
    throw corrupt(source, 'the snap index is incomplete');
  }
  const roadTreeArray = arrays[roadTree];
  if (roadTreeArray) {
    if (!(roadTreeArray instanceof Uint8Array)) throw corrupt(source, 'the road index is not bytes');
    indexes.roadTree = roadTreeArray;
  }
  return indexes;
}

/** Parses graph bytes held in memory (e.g. a fetched ArrayBuffer's); arrays are copied out of them. */
export function decodeGraph(bytes: Uint8Array, source = 'graph'): RoadGraph {
  let at = 0;
  return parse({
    size: bytes.length,
    read(into) {
      const n = Math.min(into.length, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
  }, source);
}

/** The element type of each of the graph's arrays (RoadGraphArrays). */
const ELEMENT_TYPES: { readonly [K in keyof RoadGraphArrays]: (typeof TYPES)[number] } = {
  nodeLatE7: Int32Array, nodeLonE7: Int32Array, firstOut: Uint32Array, edgeHead: Uint32Array, edgeRoad: Uint32Array,
  edgeReversed: Uint8Array, roadFrom: Uint32Array, roadTo: Uint32Array, roadShapeStart: Uint32Array, shapeLatE7: Int32Array,
  shapeLonE7: Int32Array, roadLengthCm: Uint32Array, roadSpeedKmh: Float32Array, roadFlags: Uint16Array, roadClass: Uint8Array,
};
const TYPE_NAMES = new Map<(typeof TYPES)[number], string>([
  [Float64Array, 'float64'], [Float32Array, 'float32'], [Uint32Array, 'uint32'], [Uint8Array, 'uint8'], [Int32Array, 'int32'], [Uint16Array, 'uint16'],
]);

/** Cheap consistency checks so a bad file fails here, not as an out-of-range read in a search. */
function checkShape(a: RoadGraphArrays, source: string): void {
  const n = a.nodeLatE7.length;
  const m = a.edgeHead.length;
  const r = a.roadFrom.length;
  const s = a.shapeLatE7.length;
  const same = (what: string, got: number, want: number) => {
    if (got !== want) throw corrupt(source, `${what} has ${got} entries, expected ${want}`);
  };
  // Each array of its own element type, so another type (e.g. an earlier layout's float64) is refused, not misread.
  for (const k of ARRAY_KEYS) {
    const T = ELEMENT_TYPES[k];
    if (!(a[k] instanceof T)) throw corrupt(source, `${k} is not ${TYPE_NAMES.get(T)}`);
  }
  same('nodeLonE7', a.nodeLonE7.length, n);
  same('firstOut', a.firstOut.length, n + 1);
  for (const k of ['edgeRoad', 'edgeReversed'] as const) {
    same(k, a[k].length, m);
  }
  for (const k of ['roadTo', 'roadLengthCm', 'roadSpeedKmh', 'roadFlags', 'roadClass'] as const) same(k, a[k].length, r);
  same('roadShapeStart', a.roadShapeStart.length, r + 1);
  same('shapeLonE7', a.shapeLonE7.length, s);
  if (a.firstOut[0] !== 0 || a.firstOut[n] !== m || a.roadShapeStart[r] !== s) {
    throw corrupt(source, 'adjacency offsets do not match the edge count');
  }
  for (let v = 0; v < n; v++) {
    if (a.firstOut[v] > a.firstOut[v + 1]) throw corrupt(source, `the out-edge offsets of node ${v} are out of order`);
  }
  for (let e = 0; e < m; e++) {
    if (a.edgeHead[e] >= n || a.edgeRoad[e] >= r) {
      throw corrupt(source, `edge ${e} refers past the end of the graph`);
    }
  }
}

/**
 * The cell overlay's sections: cells below the cell count; per cell, entry and exit offsets in
 * order and its entries and exits ascending and in that cell; cliques of entries x exits per cell
 * (OverlaySearch reads all of these without further checks). O(nodes + entries + exits).
 */
function checkOverlay(arrays: Record<string, AnyTyped>, g: RoadGraphArrays, source: string, prefix = ''): CellOverlay {
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

/** The small cells' prefix after `cells.` (CellOverlay.fine). */
const FINE = 'fine.';

/** A cell overlay array's section name. */
const overlaySection = (key: string, prefix = '') => `cells.${prefix}${key}`;

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


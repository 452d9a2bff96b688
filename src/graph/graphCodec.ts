import { DetourError, ErrorCode } from '../errors.js';
import { crc32 } from './crc32.js';
import {
  ARRAY_KEYS, RoadGraph, type GraphIndexes, type GraphMeta, type RoadGraphArrays,
} from './RoadGraph.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';
import { LIMIT_STRIDE } from './vehicleLimits.js';

/**
 * The detour graph file (format version 12):
 *   magic "DETOURGR" | u32 format version | u32 section count | u32 meta JSON byte length | u32 reserved
 *   meta JSON (UTF-8), padded to 8 bytes
 *   per section: u32 element type | u32 element count | u32 name byte length | u32 reserved,
 *     the name (ASCII) padded to 8, then the elements (little-endian), padded to 8
 *   u32 CRC-32 of every byte before it
 * Sections are named: the graph's arrays (ARRAY_KEYS, required); the sections of a higher layer
 * (GraphFileSections: the hierarchies and the cell overlay, hierarchy/hierarchySections.ts);
 * the search indexes (GraphIndexes: `snap.tinyRoads`, `snap.tinyComponent`, `snap.bits`,
 * `roads.groupTree`, `roads.bearings`). Earlier files carry `snap.tree` (before snapping used the road tree),
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
 * dissection order; version 10 adds the limits on heavy vehicles, `limitRoads`, `limitValues`,
 * `limitAccess`, so a truck is never routed on a graph that could not know them; version 11 the roads'
 * labels, `roadLabel`, `labelBytes`, `labelStart`, for turn-by-turn instructions; version 12 a sixth
 * figure per limited road, heavy goods vehicles' `maxspeed:hgv`). A hierarchy's rank
 * is its contraction order, or any order its arcs lead up in when contraction left no core (then
 * only loading reads it, to check the arcs, and the loaded hierarchy drops it). graphFile.ts
 * writes and reads files section by section (no whole-file buffer, so files over 2 GiB work);
 * loaded arrays live on SharedArrayBuffers where the platform has them, so a worker thread can
 * use them without a copy. No node: import: this module runs in a browser too.
 */
export const GRAPH_MAGIC = 'DETOURGR';
export const GRAPH_FORMAT_VERSION = 12;

const TYPES = [Float64Array, Float32Array, Uint32Array, Uint8Array, Int32Array, Uint16Array] as const;
/** A section's array. */
export type SectionArray = Float64Array | Float32Array | Uint32Array | Uint8Array | Int32Array | Uint16Array;

/** One named section of a graph file. */
export interface FileSection {
  name: string;
  array: SectionArray;
}

/**
 * The sections a higher layer keeps in the graph file beside the graph's (the hierarchy layer's:
 * hierarchy/hierarchySections.ts), so the graph layer writes and reads them without knowing them.
 */
export interface GraphFileSections<T> {
  /** Names of the sections it reads. */
  readonly names: ReadonlySet<string>;
  /** Its sections for this graph, in file order (none when it has nothing to store). */
  write(graph: RoadGraph): FileSection[];
  /** Checks and assembles its sections that the file holds (the graph's arrays are checked already). */
  read(arrays: Record<string, SectionArray>, graph: RoadGraphArrays, source: string): T;
}
const HEADER_BYTES = 24;
/** Largest piece handed to one read or write call (Node caps a single call near 2 GiB). */
export const CHUNK_BYTES = 1 << 28;

const pad8 = (n: number) => (n + 7) & ~7;

/** Names of the index sections, by GraphIndexes member. */
const INDEX_SECTIONS = {
  snapTinyRoads: 'snap.tinyRoads', snapTinyComponent: 'snap.tinyComponent', snapRoadBits: 'snap.bits', roadTree: 'roads.groupTree',
  roadBearings: 'roads.bearings',
} as const satisfies Record<keyof GraphIndexes, string>;
/** Longest section name a reader accepts (a damaged length must not ask for a huge read). */
const MAX_NAME_BYTES = 64;

/** Every section of a graph, in file order: its arrays, a higher layer's, its indexes. */
function sections(graph: RoadGraph, extra: FileSection[]): FileSection[] {
  const arrays = graph.arrays() as unknown as Record<string, SectionArray>;
  const out: FileSection[] = ARRAY_KEYS.map((key) => ({ name: key, array: arrays[key] }));
  out.push(...extra);
  for (const [key, name] of Object.entries(INDEX_SECTIONS)) {
    const array = graph.indexes[key as keyof GraphIndexes];
    if (array) out.push({ name, array });
  }
  return out;
}

/** The file's bytes as consecutive pieces (header, meta, sections with padding); the CRC is not included. */
export function* pieces(graph: RoadGraph, extra: FileSection[] = []): Generator<Uint8Array> {
  const meta = new TextEncoder().encode(JSON.stringify(graph.meta));
  const list = sections(graph, extra);
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

/** Serialises a graph (and a higher layer's sections) to bytes in memory. */
export function encodeGraphBytes(graph: RoadGraph, extra: FileSection[] = []): Uint8Array {
  const parts = [...pieces(graph, extra)];
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
 * The CRC-32 of a file's bytes as they are read, in order: `update` with each piece (a piece on a
 * SharedArrayBuffer is not written again afterwards; others may be reused once update returns),
 * `digest` once all are given.
 */
export interface ByteChecksum {
  update(bytes: Uint8Array): void;
  digest(): number;
}

/** The CRC-32 computed on this thread as the pieces come. */
export function inlineCrc32(): ByteChecksum {
  let crc = 0;
  return { update: (bytes) => { crc = crc32(bytes, crc); }, digest: () => crc };
}

/**
 * Reads a graph from a sequential source: the graph, and what `layer` makes of its sections. Every
 * array is read straight into its own SharedArrayBuffer; the CRC is computed on the way (by
 * `checksum`, this thread's by default) and checked at the end.
 */
export function parse<T>(src: ByteSource, source: string, layer?: GraphFileSections<T>, checksum: ByteChecksum = inlineCrc32()): { graph: RoadGraph; layer?: T } {
  let position = 0;
  const readExactly = (into: Uint8Array, what: string) => {
    for (let at = 0; at < into.length; at += CHUNK_BYTES) {
      const piece = into.subarray(at, Math.min(into.length, at + CHUNK_BYTES));
      const got = src.read(piece);
      if (got !== piece.length) throw corrupt(source, `${what} runs past the end of the file (truncated file?)`);
      checksum.update(piece);
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
  const known = new Set<string>([...ARRAY_KEYS, ...Object.values(INDEX_SECTIONS), ...(layer?.names ?? [])]);
  const arrays: Record<string, SectionArray> = {};
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
  if (got !== 4 || new DataView(tail.buffer).getUint32(0, true) !== checksum.digest()) {
    throw corrupt(source, 'checksum mismatch (truncated or damaged file)');
  }
  let meta: GraphMeta;
  try {
    meta = JSON.parse(new TextDecoder().decode(metaBytes.subarray(0, metaLength)));
  } catch {
    throw corrupt(source, 'metadata is not JSON');
  }
  for (const key of ARRAY_KEYS) if (!arrays[key]) throw corrupt(source, `section ${key} is missing`);
  const graphArrays = {} as Record<string, SectionArray>;
  for (const key of ARRAY_KEYS) graphArrays[key] = arrays[key];
  const g = graphArrays as unknown as RoadGraphArrays;
  checkShape(g, source);
  const layerValue = layer?.read(arrays, g, source);
  return { graph: new RoadGraph(g, meta, checkIndexes(arrays, g, source)), layer: layerValue };
}

/**
 * The index sections: per-road arrays of the right type and length, trees as bytes (SnapIndex
 * and RoadIndex check a tree's own header and item count when they adopt it).
 */
function checkIndexes(arrays: Record<string, SectionArray>, g: RoadGraphArrays, source: string): GraphIndexes {
  const indexes: GraphIndexes = {};
  const roads = g.roadFrom.length;
  const { snapTinyRoads, snapTinyComponent, snapRoadBits, roadTree, roadBearings } = INDEX_SECTIONS;
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
  const bearings = arrays[roadBearings];
  if (bearings) {
    if (!(bearings instanceof Uint16Array) || bearings.length !== 2 * roads) throw corrupt(source, 'the road bearings do not match the road count');
    indexes.roadBearings = bearings;
  }
  return indexes;
}

/** Parses graph bytes held in memory (e.g. a fetched ArrayBuffer's); arrays are copied out of them. */
export function decodeGraphBytes<T>(bytes: Uint8Array, source = 'graph', layer?: GraphFileSections<T>): { graph: RoadGraph; layer?: T } {
  let at = 0;
  return parse({
    size: bytes.length,
    read(into) {
      const n = Math.min(into.length, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
  }, source, layer);
}

/** The element type of each of the graph's arrays (RoadGraphArrays). */
const ELEMENT_TYPES: { readonly [K in keyof RoadGraphArrays]: (typeof TYPES)[number] } = {
  nodeLatE7: Int32Array, nodeLonE7: Int32Array, firstOut: Uint32Array, edgeHead: Uint32Array, edgeRoad: Uint32Array,
  edgeReversed: Uint8Array, roadFrom: Uint32Array, roadTo: Uint32Array, roadShapeStart: Uint32Array, shapeLatE7: Int32Array,
  shapeLonE7: Int32Array, roadLengthCm: Uint32Array, roadSpeedKmh: Float32Array, roadFlags: Uint16Array, roadClass: Uint8Array,
  limitRoads: Uint32Array, limitValues: Uint16Array, limitAccess: Uint8Array,
  roadLabel: Uint32Array, labelBytes: Uint8Array, labelStart: Uint32Array,
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
  const limited = a.limitRoads.length;
  same('limitValues', a.limitValues.length, limited * LIMIT_STRIDE);
  same('limitAccess', a.limitAccess.length, limited);
  for (let k = 0; k < limited; k++) {
    if (a.limitRoads[k] >= r || (k > 0 && a.limitRoads[k] <= a.limitRoads[k - 1])) throw corrupt(source, 'limitRoads are not ascending road ids');
  }
  same('roadLabel', a.roadLabel.length, r);
  const labels = a.labelStart.length - 1;
  if (labels < 1 || a.labelStart[0] !== 0 || a.labelStart[labels] !== a.labelBytes.length) throw corrupt(source, 'label offsets do not match the label bytes');
  for (let k = 0; k < labels; k++) if (a.labelStart[k] > a.labelStart[k + 1]) throw corrupt(source, `the offsets of label ${k} are out of order`);
  for (let i = 0; i < r; i++) if (a.roadLabel[i] >= labels) throw corrupt(source, `road ${i} names label ${a.roadLabel[i]} of ${labels}`);
}

import { writeFileSync, renameSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { DetourError, ErrorCode } from '../errors.js';
import { readInputFile } from '../readInputFile.js';
import { ARRAY_KEYS, RoadGraph, type GraphMeta, type RoadGraphArrays } from './RoadGraph.js';

/**
 * The detour graph file:
 *   magic "DETOURGR" | u32 format version | u32 section count | u32 meta JSON byte length | u32 reserved
 *   meta JSON (UTF-8), padded to 8 bytes
 *   per section: u32 type code | u32 element count, then the elements (little-endian), padded to 8
 *   u32 CRC-32 of every byte before it
 * Sections come in ARRAY_KEYS order, so loading is a handful of typed-array views over one buffer.
 */
export const GRAPH_MAGIC = 'DETOURGR';
export const GRAPH_FORMAT_VERSION = 1;

const TYPES = [Float64Array, Float32Array, Uint32Array, Uint8Array] as const;
type AnyTyped = Float64Array | Float32Array | Uint32Array | Uint8Array;

const pad8 = (n: number) => (n + 7) & ~7;

/** Serialises a graph to bytes. */
export function encodeGraph(graph: RoadGraph): Uint8Array {
  const meta = Buffer.from(JSON.stringify(graph.meta), 'utf8');
  const arrays = graph.arrays() as unknown as Record<string, AnyTyped>;
  let size = 24 + pad8(meta.length);
  for (const key of ARRAY_KEYS) size += 8 + pad8(arrays[key].byteLength);
  size += 4;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(Buffer.from(GRAPH_MAGIC, 'ascii'), 0);
  view.setUint32(8, GRAPH_FORMAT_VERSION, true);
  view.setUint32(12, ARRAY_KEYS.length, true);
  view.setUint32(16, meta.length, true);
  out.set(meta, 24);
  let offset = 24 + pad8(meta.length);
  for (const key of ARRAY_KEYS) {
    const array = arrays[key];
    const type = TYPES.findIndex((T) => array instanceof T);
    view.setUint32(offset, type, true);
    view.setUint32(offset + 4, array.length, true);
    offset += 8;
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
    offset += pad8(array.byteLength);
  }
  view.setUint32(offset, crc32(out.subarray(0, offset)), true);
  return out;
}

/** Writes a graph file atomically (a reader never sees half a file). */
export function saveGraph(graph: RoadGraph, path: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, encodeGraph(graph));
  renameSync(tmp, path);
}

function corrupt(source: string, why: string): DetourError {
  return new DetourError(ErrorCode.GRAPH_CORRUPT, `${source} is not a valid detour graph: ${why}`, { path: source });
}

/** Parses graph bytes; the typed arrays are views over `bytes` (no copy) when it is 8-byte aligned. */
export function decodeGraph(input: Uint8Array, source = 'graph'): RoadGraph {
  let bytes = input;
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  if (bytes.length < 28) throw corrupt(source, `file is ${bytes.length} bytes, too short for a header`);
  const magic = Buffer.from(bytes.buffer, bytes.byteOffset, 8).toString('latin1');
  if (magic !== GRAPH_MAGIC) throw corrupt(source, 'wrong magic bytes (is it a graph file built by detour import?)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  // A small number is a real other version; anything else is damage, reported as corruption below.
  if (version !== GRAPH_FORMAT_VERSION && version < 256) {
    throw new DetourError(
      ErrorCode.GRAPH_VERSION,
      `${source} has graph format version ${version}; this detour reads version ${GRAPH_FORMAT_VERSION}. Re-import it with detour import.`,
      { path: source },
    );
  }
  const end = bytes.length - 4;
  const stored = view.getUint32(end, true);
  if (crc32(bytes.subarray(0, end)) !== stored) throw corrupt(source, 'checksum mismatch (truncated or damaged file)');
  const sections = view.getUint32(12, true);
  if (sections !== ARRAY_KEYS.length) throw corrupt(source, `expected ${ARRAY_KEYS.length} sections, found ${sections}`);
  const metaLength = view.getUint32(16, true);
  if (24 + metaLength > end) throw corrupt(source, 'metadata runs past the end of the file');
  let meta: GraphMeta;
  try {
    meta = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 24, metaLength).toString('utf8'));
  } catch {
    throw corrupt(source, 'metadata is not JSON');
  }
  let offset = 24 + pad8(metaLength);
  const arrays: Record<string, AnyTyped> = {};
  for (const key of ARRAY_KEYS) {
    if (offset + 8 > end) throw corrupt(source, `section ${key} is missing`);
    const T = TYPES[view.getUint32(offset, true)];
    const length = view.getUint32(offset + 4, true);
    offset += 8;
    if (!T) throw corrupt(source, `section ${key} has an unknown element type`);
    const byteLength = length * T.BYTES_PER_ELEMENT;
    if (offset + byteLength > end) throw corrupt(source, `section ${key} runs past the end of the file`);
    arrays[key] = new T(bytes.buffer as ArrayBuffer, bytes.byteOffset + offset, length);
    offset += pad8(byteLength);
  }
  checkShape(arrays as unknown as RoadGraphArrays, source);
  return new RoadGraph(arrays as unknown as RoadGraphArrays, meta);
}

/** Cheap consistency checks so a bad file fails here, not as an out-of-range read in a search. */
function checkShape(a: RoadGraphArrays, source: string): void {
  const n = a.nodeLat.length;
  const m = a.edgeHead.length;
  const r = a.roadFrom.length;
  const s = a.shapeLat.length;
  const same = (what: string, got: number, want: number) => {
    if (got !== want) throw corrupt(source, `${what} has ${got} entries, expected ${want}`);
  };
  same('nodeLon', a.nodeLon.length, n);
  same('firstOut', a.firstOut.length, n + 1);
  same('firstIn', a.firstIn.length, n + 1);
  for (const k of ['edgeTail', 'edgeRoad', 'edgeReversed', 'edgeDistance', 'edgeDuration', 'inEdge'] as const) {
    same(k, a[k].length, m);
  }
  for (const k of ['roadTo', 'roadLength', 'roadSpeedKmh', 'roadFlags', 'roadClass'] as const) same(k, a[k].length, r);
  same('roadShapeStart', a.roadShapeStart.length, r + 1);
  same('shapeLon', a.shapeLon.length, s);
  if (a.firstOut[n] !== m || a.firstIn[n] !== m || a.roadShapeStart[r] !== s) {
    throw corrupt(source, 'adjacency offsets do not match the edge count');
  }
  for (let e = 0; e < m; e++) {
    if (a.edgeHead[e] >= n || a.edgeTail[e] >= n || a.edgeRoad[e] >= r || a.inEdge[e] >= m) {
      throw corrupt(source, `edge ${e} refers past the end of the graph`);
    }
  }
}

/** Loads a graph file written by saveGraph. Missing, truncated or foreign files get a clear error. */
export function loadGraph(path: string): RoadGraph {
  return decodeGraph(readInputFile(path, 'graph file'), path);
}

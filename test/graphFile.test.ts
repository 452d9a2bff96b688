import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeGraph, encodeGraph, importGeoJson, loadGraph, saveGraph, DetourError, DEFAULT_GRAPH_PATH } from '../src/index.js';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { ARRAY_KEYS, ROAD_COST_UNIT, RoadGraph } from '../src/graph/RoadGraph.js';
import { SnapIndex } from '../src/graph/SnapIndex.js';
import { cosLatitude, haversineMetres } from '../src/geo/haversine.js';
import { attachSearchIndexes } from '../src/searchIndexes.js';
import { roadBearings } from '../src/graph/roadBearings.js';
import { RoadIndex } from '../src/zones/RoadIndex.js';
import { loadGraphFile } from '../src/graph/graphFile.js';
import { startModuleWorker } from '../src/workerThread.js';
import { GOTHENBURG_GEOJSON, ROOT, seededRandom } from './support/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'detour-file-'));
const graph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')), { source: 'gothenburg', attribution: 'ODbL' });
const path = join(dir, 'g.detour');
saveGraph(graph, path);

function rejects(bytes: Uint8Array, code: string, pattern: RegExp) {
  assert.throws(() => decodeGraph(bytes, 'x.detour'), (err: unknown) => {
    assert.ok(err instanceof DetourError);
    assert.equal(err.code, code);
    assert.match(err.message, pattern);
    return true;
  });
}

test('save then load gives back every array and the metadata', () => {
  const loaded = loadGraph(path);
  for (const key of ARRAY_KEYS) {
    assert.deepEqual(loaded[key], graph[key], key);
    assert.equal(loaded[key].constructor, graph[key].constructor, key);
  }
  assert.deepEqual(loaded.meta, graph.meta);
  assert.equal(loaded.maxSpeedMps, graph.maxSpeedMps);
});

test('a copy at an odd byte offset still decodes (arrays are realigned)', () => {
  const bytes = readFileSync(path);
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  const loaded = decodeGraph(shifted.subarray(3));
  assert.deepEqual(loaded.edgeHead, graph.edgeHead);
});

test('truncated file: clear GRAPH_CORRUPT error', () => {
  const bytes = readFileSync(path);
  rejects(bytes.subarray(0, bytes.length - 100), 'GRAPH_CORRUPT', /checksum|truncated/);
  rejects(bytes.subarray(0, 10), 'GRAPH_CORRUPT', /too short/);
  rejects(new Uint8Array(0), 'GRAPH_CORRUPT', /too short/);
});

test('one flipped byte is caught by the checksum', () => {
  const bytes = Uint8Array.from(readFileSync(path));
  bytes[Math.floor(bytes.length / 2)] ^= 0x40;
  rejects(bytes, 'GRAPH_CORRUPT', /checksum/);
});

test('the checksum computed on a worker thread beside the reading (big files) loads the same graph, and catches a flipped byte and a truncated file', () => {
  const onThread = loadGraphFile(DEFAULT_GRAPH_PATH, undefined, 0).graph, inline = loadGraphFile(DEFAULT_GRAPH_PATH, undefined, Infinity).graph;
  for (const key of ARRAY_KEYS) assert.deepEqual(onThread[key], inline[key], key);
  const bytes = Uint8Array.from(readFileSync(DEFAULT_GRAPH_PATH));
  // In a section's array (read onto shared memory, the thread reads it there) and in the header's metadata (copied to the thread).
  for (const at of [Math.floor(bytes.length * 0.6), 30]) {
    const flipped = Uint8Array.from(bytes);
    flipped[at] ^= 0x08;
    writeFileSync(join(dir, 'flipped.detour'), flipped);
    assert.throws(() => loadGraphFile(join(dir, 'flipped.detour'), undefined, 0), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && /checksum|metadata/.test(err.message), `byte ${at}`);
  }
  writeFileSync(join(dir, 'short.detour'), bytes.subarray(0, bytes.length - 1000));
  assert.throws(() => loadGraphFile(join(dir, 'short.detour'), undefined, 0), (err: DetourError) => err.code === 'GRAPH_CORRUPT');
});

test('a worker thread started from the sources runs them under tsx, one started from the build runs dist/: both compute the CRC', async () => {
  const bytes = new Uint8Array(new SharedArrayBuffer(1 << 16)).map((_, i) => (i * 7919) & 255);
  for (const from of [join(ROOT, 'src', 'graph', 'crcThread.ts'), join(ROOT, 'dist', 'src', 'graph', 'crcThread.js')]) {
    const state = new Int32Array(new SharedArrayBuffer(12));
    const worker = startModuleWorker(pathToFileURL(from).href, 'crcWorker', { state });
    try {
      worker.postMessage(bytes);
      worker.postMessage('end');
      // The thread runs the module when state[0] turns 1 (it could not have started otherwise).
      for (let i = 0; i < 600 && Atomics.load(state, 0) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(Atomics.load(state, 0), 1, `the thread ran the module beside ${from}`);
      assert.equal(state[1] >>> 0, zlibCrc32(bytes));
    } finally {
      await worker.terminate();
    }
  }
});

test('foreign file: wrong magic', () => {
  rejects(new TextEncoder().encode('{"type":"FeatureCollection","features":[]}'), 'GRAPH_CORRUPT', /magic/);
});

test('other format version: GRAPH_VERSION asking to re-import', () => {
  const bytes = Uint8Array.from(encodeGraph(graph));
  new DataView(bytes.buffer).setUint32(8, 99, true);
  rejects(bytes, 'GRAPH_VERSION', /version 99.*re-import/i);
});

test('missing file: FILE_NOT_FOUND naming it', () => {
  assert.throws(() => loadGraph(join(dir, 'nope.detour')), (err: DetourError) => err.code === 'FILE_NOT_FOUND' && /nope\.detour/.test(err.message));
});

test('a directory instead of a file is an error, not a crash', () => {
  assert.throws(() => loadGraph(dir), (err: DetourError) => err instanceof DetourError);
  writeFileSync(join(dir, 'empty.detour'), '');
  assert.throws(() => loadGraph(join(dir, 'empty.detour')), (err: DetourError) => err.code === 'GRAPH_CORRUPT');
});

// --- Format version 12: named sections, search indexes; other versions get GRAPH_VERSION. The
// helpers below re-implement the documented layout (graphCodec.ts) independently of the codec.

interface RawSection { name: string; type: number; count: number; data: Uint8Array }
const pad8 = (n: number) => (n + 7) & ~7;

/** The header fields, meta bytes and sections of a version 12 file. */
function split(bytes: Uint8Array): { meta: Uint8Array; sections: RawSection[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(view.getUint32(8, true), 12);
  const count = view.getUint32(12, true), metaLength = view.getUint32(16, true);
  const meta = bytes.slice(24, 24 + metaLength);
  let at = 24 + pad8(metaLength);
  const sections: RawSection[] = [];
  const sizes = [8, 4, 4, 1, 4, 2];
  for (let i = 0; i < count; i++) {
    const type = view.getUint32(at, true), n = view.getUint32(at + 4, true), nameLength = view.getUint32(at + 8, true);
    const name = Buffer.from(bytes.subarray(at + 16, at + 16 + nameLength)).toString('latin1');
    at += 16 + pad8(nameLength);
    const byteLength = n * sizes[type];
    sections.push({ name, type, count: n, data: bytes.slice(at, at + byteLength) });
    at += pad8(byteLength);
  }
  assert.equal(at, bytes.length - 4);
  return { meta, sections };
}

/** A file in the named-section layout from sections, with its CRC (version: what the header says). */
function joinFile(version: number, meta: Uint8Array, sections: RawSection[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const header = new Uint8Array(24 + pad8(meta.length));
  const view = new DataView(header.buffer);
  header.set(Buffer.from('DETOURGR', 'latin1'));
  view.setUint32(8, version, true);
  view.setUint32(12, sections.length, true);
  view.setUint32(16, meta.length, true);
  header.set(meta, 24);
  parts.push(header);
  for (const s of sections) {
    const name = Buffer.from(s.name, 'latin1');
    const head = new Uint8Array(16 + pad8(name.length));
    const hv = new DataView(head.buffer);
    hv.setUint32(0, s.type, true);
    hv.setUint32(4, s.count, true);
    hv.setUint32(8, name.length, true);
    head.set(name, 16);
    parts.push(head, s.data, new Uint8Array(pad8(s.data.length) - s.data.length));
  }
  const body = Buffer.concat(parts);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(zlibCrc32(body));
  return new Uint8Array(Buffer.concat([body, crc]));
}

const indexed = loadGraph(path);
attachSearchIndexes(indexed);
const indexedBytes = encodeGraph(indexed);

test('the search indexes travel in the file: loaded, adopted without a rebuild, same answers', () => {
  const names = split(indexedBytes).sections.map((s) => s.name);
  for (const name of ['snap.tinyRoads', 'snap.tinyComponent', 'snap.bits', 'roads.groupTree', 'roads.bearings']) assert.ok(names.includes(name), name);
  assert.ok(!names.includes('snap.tree'), 'snapping uses the road tree: no tree over every segment');
  const loaded = decodeGraph(indexedBytes);
  const { roadTree, snapTinyRoads, snapTinyComponent, snapRoadBits } = loaded.indexes;
  assert.ok(roadTree && snapTinyRoads && snapTinyComponent && snapRoadBits);
  // Only the roads outside the big components keep a component: a few of the city's, not one per road.
  assert.ok(snapTinyRoads.length > 0 && snapTinyRoads.length < loaded.roadCount / 10, `${snapTinyRoads.length} of ${loaded.roadCount} roads`);
  for (let r = 0; r < loaded.roadCount; r++) assert.equal(snapTinyRoads.includes(r), !SnapIndex.for(loaded).inBigComponent(r), `road ${r}`);
  const snapIndex = SnapIndex.for(loaded);
  const roadIndex = RoadIndex.for(loaded);
  assert.equal(loaded.indexes.roadTree, roadTree, 'the loaded road tree is used, not replaced');
  assert.equal(loaded.indexes.snapRoadBits, snapRoadBits, 'the loaded per-road facts are used');
  assert.equal(roadIndex.data, roadTree.buffer, 'the loaded road tree is used');
  const { roadBearings: bearings } = loaded.indexes;
  assert.ok(bearings);
  assert.equal(roadBearings(loaded), bearings, 'the loaded road bearings are used');
  // A freshly built index over the same graph (no stored indexes) gives the same answers.
  const fresh = new RoadGraph(graph.arrays(), graph.meta);
  assert.deepEqual(roadBearings(fresh), bearings);
  const freshSnap = new SnapIndex(fresh), freshRoads = new RoadIndex(fresh);
  const rand = seededRandom(4242);
  for (let i = 0; i < 300; i++) {
    const r = Math.floor(rand() * graph.roadCount);
    const lat = graph.roadPointLat(r, 0) + (rand() - 0.5) * 0.004, lon = graph.roadPointLon(r, 0) + (rand() - 0.5) * 0.008;
    for (const role of ['first', 'via', 'last'] as const) {
      assert.deepEqual(snapIndex.snapChoice(lat, lon, { role }), freshSnap.snapChoice(lat, lon, { role }), `point ${i} as ${role}`);
    }
    const box = [lon - 0.003, lat - 0.002, lon + 0.003, lat + 0.002] as const;
    assert.deepEqual(roadIndex.roadsInBox(...box).sort((a, b) => a - b), freshRoads.roadsInBox(...box).sort((a, b) => a - b));
  }
});

/** Brute force over every segment in road-major order, the first of equally near ones winning. */
function bruteSnap(lat: number, lon: number): { road: number; segment: number; t: number } {
  const kx = cosLatitude(lat);
  let best = { road: -1, segment: -1, t: 0, distance: Infinity };
  for (let road = 0; road < graph.roadCount; road++) {
    for (let i = 0; i + 1 < graph.roadPointCount(road); i++) {
      const aLat = graph.roadPointLat(road, i), aLon = graph.roadPointLon(road, i);
      const bLat = graph.roadPointLat(road, i + 1), bLon = graph.roadPointLon(road, i + 1);
      const ax = (aLon - lon) * kx, ay = aLat - lat, dx = (bLon - lon) * kx - ax, dy = bLat - lat - ay;
      const len2 = dx * dx + dy * dy;
      const t = Math.min(1, Math.max(0, len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0));
      const distance = haversineMetres(lat, lon, aLat + t * (bLat - aLat), aLon + t * (bLon - aLon));
      if (distance < best.distance) best = { road, segment: i, t, distance };
    }
  }
  return best;
}

test('a snap (candidates from the stored float32 road tree) is the nearest segment by brute force, ties to the lowest road and segment', () => {
  const snapIndex = SnapIndex.for(decodeGraph(indexedBytes));
  const rand = seededRandom(99);
  for (let i = 0; i < 150; i++) {
    const r = Math.floor(rand() * graph.roadCount);
    // Every third point exactly on a junction (a tie between the roads meeting there), the rest near a road.
    const onNode = i % 3 === 0;
    const lat = graph.roadPointLat(r, 0) + (onNode ? 0 : (rand() - 0.5) * 0.002);
    const lon = graph.roadPointLon(r, 0) + (onNode ? 0 : (rand() - 0.5) * 0.004);
    const snap = snapIndex.snap(lat, lon);
    const brute = bruteSnap(lat, lon);
    assert.deepEqual({ road: snap.road, segment: snap.segment, t: snap.t + 0 }, { road: brute.road, segment: brute.segment, t: brute.t + 0 }, `point ${i}`);
  }
});

test('a version 3 to 11 file gets GRAPH_VERSION saying to re-import (version 12: whole-step costs, uint32 centimetres, int32 coordinates, nothing derived, the overlay\'s second cliques, the limits on heavy vehicles with their speed limit, the roads\' labels)', () => {
  const { meta, sections } = split(encodeGraph(graph));
  for (const version of [3, 4, 5, 6, 7, 8, 9, 10, 11]) rejects(joinFile(version, meta, sections), 'GRAPH_VERSION', new RegExp(`version ${version}\\b.*reads version 12.*detour import`));
  // Labels: a road naming a label the table lacks, or offsets past the bytes, are refused, not misread.
  const labelOf = sections.find((s) => s.name === 'roadLabel')!;
  const pastTable = new Uint32Array(labelOf.data.slice().buffer);
  pastTable[0] = 1 << 30;
  rejects(joinFile(12, meta, sections.map((s) => (s === labelOf ? { ...s, data: new Uint8Array(pastTable.buffer) } : s))), 'GRAPH_CORRUPT', /road 0 names label/);
  const names = sections.map((s) => s.name);
  for (const derived of ['edgeTail', 'firstIn', 'inEdge', 'edgeDistance', 'edgeDuration']) assert.ok(!names.includes(derived), `${derived} is derived, not stored`);
  // Coordinates: int32 (type 4) in 1e-7 degree; float64 ones (type 0) are refused, not misread.
  const coordinates = ['nodeLatE7', 'nodeLonE7', 'shapeLatE7', 'shapeLonE7'];
  assert.deepEqual(sections.filter((s) => coordinates.includes(s.name)).map((s) => s.type), [4, 4, 4, 4]);
  const asFloat = sections.map((s) => {
    if (s.name !== 'nodeLonE7') return s;
    const degrees = Float64Array.from(new Int32Array(s.data.slice().buffer), (x) => x / 1e7);
    return { ...s, type: 0, data: new Uint8Array(degrees.buffer) };
  });
  rejects(joinFile(12, meta, asFloat), 'GRAPH_CORRUPT', /nodeLonE7/);
  // Road lengths: uint32 (type 2) whole centimetres; float64 metres (the version 7 layout) are refused, not misread.
  assert.deepEqual(sections.filter((s) => s.name === 'roadLengthCm').map((s) => s.type), [2]);
  const metresAsFloat = sections.map((s) => {
    if (s.name !== 'roadLengthCm') return s;
    const metres = Float64Array.from(new Uint32Array(s.data.slice().buffer), (cm) => cm / 100);
    return { ...s, type: 0, data: new Uint8Array(metres.buffer) };
  });
  rejects(joinFile(12, meta, metresAsFloat), 'GRAPH_CORRUPT', /roadLengthCm is not uint32/);
  // Hierarchy arc costs (the default city's file has a hierarchy): uint32 whole steps (type 2);
  // float64 ones (the version 6 layout) are refused.
  const city = split(new Uint8Array(readFileSync(DEFAULT_GRAPH_PATH)));
  assert.deepEqual(city.sections.filter((s) => s.name.endsWith('.arcWeight')).map((s) => s.type), [2, 2]);
  const floatCosts = city.sections.map((s) => {
    if (s.name !== 'distance.arcWeight') return s;
    const metres = Float64Array.from(new Uint32Array(s.data.slice().buffer), (x) => x / 100);
    return { ...s, type: 0, data: new Uint8Array(metres.buffer) };
  });
  rejects(joinFile(12, city.meta, floatCosts), 'GRAPH_CORRUPT', /distance hierarchy arcWeight is not uint32/);
  // A rank per node to check the arcs against when loading, which the loaded hierarchy (no core) does not keep.
  const cityGraph = loadGraph(DEFAULT_GRAPH_PATH);
  for (const metric of ['duration', 'distance'] as const) {
    assert.equal(city.sections.find((s) => s.name === `${metric}.rank`)!.count, cityGraph.nodeCount);
    assert.equal(cityGraph.hierarchy![metric].rank.length, 0, 'no rank kept without a core');
  }
});

test('derived edge tails, reverse adjacency and edge costs equal a scan of the forward CSR and the roads', () => {
  const loaded = decodeGraph(encodeGraph(graph));
  const tails: number[] = [], inLists: number[][] = Array.from({ length: loaded.nodeCount }, () => []);
  for (let v = 0; v < loaded.nodeCount; v++) {
    for (let e = loaded.firstOut[v]; e < loaded.firstOut[v + 1]; e++) { tails.push(v); inLists[loaded.edgeHead[e]].push(e); }
  }
  const rand = seededRandom(7);
  for (let i = 0; i < 500; i++) {
    const e = Math.floor(rand() * loaded.edgeCount);
    assert.equal(loaded.edgeTailOf(e), tails[e], `edge ${e} before the array is made`);
  }
  assert.deepEqual([...loaded.edgeTail], tails);
  for (let v = 0; v < loaded.nodeCount; v++) {
    assert.deepEqual([...loaded.inEdge.subarray(loaded.firstIn[v], loaded.firstIn[v + 1])], inLists[v], `in-edges of ${v}`);
  }
  assert.equal(loaded.firstIn[loaded.nodeCount], loaded.edgeCount);
  // An edge costs its road's length, and its time at the road's speed, in both directions.
  for (let e = 0; e < loaded.edgeCount; e++) {
    const r = loaded.edgeRoad[e];
    assert.equal(loaded.edgeDistance[e], loaded.roadMetres(r));
    // Whole milliseconds, never below the exact time at the road's speed (nor a millisecond above).
    const exact = loaded.roadMetres(r) / (loaded.roadSpeedKmh[r] / 3.6);
    assert.ok(loaded.edgeDuration[e] >= exact - 1e-9 && loaded.edgeDuration[e] < exact + 0.001, `edge ${e}: ${loaded.edgeDuration[e]} s vs ${exact} s`);
    assert.ok(Math.abs(loaded.edgeDuration[e] * 1000 - Math.round(loaded.edgeDuration[e] * 1000)) < 1e-6, 'whole milliseconds');
    assert.equal(loaded.roadCost('duration')[r] * ROAD_COST_UNIT.duration, loaded.edgeDuration[e]);
  }
});

test('a section a later detour added is skipped; a repeated, missing or mismatched section is GRAPH_CORRUPT', () => {
  const { meta, sections } = split(indexedBytes);
  const extra: RawSection = { name: 'future.section', type: 3, count: 5, data: new Uint8Array(5).fill(7) };
  // 'snap.tree': the segment tree earlier files carry, no longer read.
  const old: RawSection = { name: 'snap.tree', type: 3, count: 16, data: new Uint8Array(16).fill(3) };
  const withExtra = decodeGraph(joinFile(12, meta, [...sections.slice(0, 3), extra, ...sections.slice(3), old]));
  assert.deepEqual(withExtra.edgeHead, graph.edgeHead);
  assert.deepEqual(SnapIndex.for(withExtra).snap(57.7, 11.95), SnapIndex.for(decodeGraph(indexedBytes)).snap(57.7, 11.95));
  // 'snap.roadComponent': the component per road that files carried before only tiny roads kept one; skipped, facts rebuilt.
  const perRoadFacts = [
    ...sections.filter((s) => !s.name.startsWith('snap.tiny')).map((s) => (s.name === 'snap.bits' ? { ...s, name: 'snap.roadBits' } : s)),
    { name: 'snap.roadComponent', type: 4, count: 2, data: new Uint8Array(8) },
  ];
  const withOldFacts = decodeGraph(joinFile(12, meta, perRoadFacts));
  assert.equal(withOldFacts.indexes.snapRoadBits, undefined);
  assert.deepEqual(SnapIndex.for(withOldFacts).snapChoice(57.7, 11.95), SnapIndex.for(decodeGraph(indexedBytes)).snapChoice(57.7, 11.95));
  const tiny = sections.find((s) => s.name === 'snap.tinyRoads')!;
  const tinyRoads = new Uint32Array(tiny.data.slice().buffer);
  tinyRoads[1] = tinyRoads[0]; // listed twice
  rejects(joinFile(12, meta, sections.map((s) => (s === tiny ? { ...s, data: new Uint8Array(tinyRoads.buffer) } : s))), 'GRAPH_CORRUPT', /tiny roads are not ascending/);
  const bits = sections.find((s) => s.name === 'snap.bits')!;
  const flipped = bits.data.slice();
  flipped[tinyRoads[1]] |= 1;
  rejects(joinFile(12, meta, sections.map((s) => (s === bits ? { ...s, data: flipped } : s))), 'GRAPH_CORRUPT', /listed as outside the big components but is in one/);
  // 'roads.tree': the tree with a box per road that files carried before it held one per eight roads; skipped, rebuilt.
  const perRoadTree = sections.map((s) => (s.name === 'roads.groupTree' ? { ...s, name: 'roads.tree' } : s));
  const withOldTree = decodeGraph(joinFile(12, meta, perRoadTree));
  assert.equal(withOldTree.indexes.roadTree, undefined);
  assert.deepEqual(SnapIndex.for(withOldTree).snap(57.7, 11.95), SnapIndex.for(decodeGraph(indexedBytes)).snap(57.7, 11.95));
  rejects(joinFile(12, meta, [...sections, sections[2]]), 'GRAPH_CORRUPT', /firstOut appears twice/);
  rejects(joinFile(12, meta, sections.filter((s) => s.name !== 'edgeHead')), 'GRAPH_CORRUPT', /edgeHead is missing/);
  rejects(joinFile(12, meta, sections.filter((s) => s.name !== 'snap.bits')), 'GRAPH_CORRUPT', /snap index is incomplete/);
  const shortBits = sections.map((s) => (s.name === 'snap.bits' ? { ...s, count: s.count - 1, data: s.data.subarray(1) } : s));
  rejects(joinFile(12, meta, shortBits), 'GRAPH_CORRUPT', /snap index does not match the road count/);
  const shortBearings = sections.map((s) => (s.name === 'roads.bearings' ? { ...s, count: s.count - 4, data: s.data.subarray(0, s.data.length - 8) } : s));
  rejects(joinFile(12, meta, shortBearings), 'GRAPH_CORRUPT', /road bearings do not match the road count/);
  // A road tree of another graph: caught when the snap index adopts it.
  const small = importGeoJson({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { highway: 'residential' }, geometry: { type: 'LineString', coordinates: [[11.9, 57.7], [11.91, 57.7]] } }] });
  attachSearchIndexes(small);
  const otherTree = split(encodeGraph(small)).sections.find((s) => s.name === 'roads.groupTree')!;
  const swapped = decodeGraph(joinFile(12, meta, sections.map((s) => (s.name === 'roads.groupTree' ? otherTree : s))));
  assert.throws(() => SnapIndex.for(swapped), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && /road index holds 1 boxes of 8 roads, the graph has \d+ roads/.test(err.message));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeGraph, encodeGraph, importGeoJson, loadGraph, saveGraph, DetourError } from '../src/index.js';
import { ARRAY_KEYS } from '../src/graph/RoadGraph.js';
import { GOTHENBURG_GEOJSON } from './support/helpers.js';

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

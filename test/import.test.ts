import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createGraph from 'ngraph.graph';
import {
  detectFormat, fromNgraph, haversineMetres, importGeoJson, openGraph, Router, DetourError, RoadFlag,
} from '../src/index.js';
import { GOTHENBURG_GEOJSON, sharedExtract } from './support/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'detour-import-'));
const write = (name: string, data: string | Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};

// A tiny town: a one-way street A -> B -> C along the equator, and a two-way detour A - D - C.
const N = { A: [0, 0], B: [0, 0.001], C: [0, 0.002], D: [0.001, 0.001], E: [0.002, 0.002] } as const;
const OSM_XML = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  ${Object.entries(N).map(([k, [lat, lon]], i) => `<node id="${i + 1}" lat="${lat}" lon="${lon}"/>`).join('\n  ')}
  <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/></way>
  <way id="11"><nd ref="1"/><nd ref="4"/><tag k="highway" v="residential"/></way>
  <way id="12"><nd ref="4"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="maxspeed" v="30"/></way>
  <way id="13"><nd ref="3"/><nd ref="5"/><tag k="highway" v="footway"/></way>
  <way id="14"><nd ref="4"/><nd ref="99"/><nd ref="5"/><tag k="highway" v="service"/><tag k="access" v="private"/></way>
  <way id="15"><nd ref="98"/><nd ref="4"/><nd ref="97"/><tag k="highway" v="residential"/></way>
</osm>`;

const geojson = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { highway: 'residential', oneway: 'yes' }, geometry: { type: 'LineString', coordinates: [N.A, N.B, N.C].map(([la, lo]) => [lo, la]) } },
    { type: 'Feature', properties: { highway: 'residential' }, geometry: { type: 'LineString', coordinates: [N.A, N.D].map(([la, lo]) => [lo, la]) } },
    { type: 'Feature', properties: { highway: 'residential', maxspeed: '30' }, geometry: { type: 'LineString', coordinates: [N.D, N.C].map(([la, lo]) => [lo, la]) } },
    { type: 'Feature', properties: { highway: 'footway' }, geometry: { type: 'LineString', coordinates: [N.C, N.E].map(([la, lo]) => [lo, la]) } },
    { type: 'Feature', properties: { highway: 'residential', area: 'yes' }, geometry: { type: 'Polygon', coordinates: [[[0, 0], [0.001, 0], [0.001, 0.001], [0, 0]]] } },
  ],
};

const at = (k: keyof typeof N) => ({ latitude: N[k][0], longitude: N[k][1] });
const len = (a: keyof typeof N, b: keyof typeof N) => haversineMetres(N[a][0], N[a][1], N[b][0], N[b][1]);
/** A road's length as the graph keeps it: rounded up to whole centimetres. */
const cm = (metres: number) => Math.ceil(metres * 100 - 1e-6) / 100;
/** A road's time at `kmh` as the graph keeps it: rounded up to whole milliseconds. */
const ms = (metres: number, kmh: number) => Math.ceil((metres / (kmh / 3.6)) * 1000 - 1e-6) / 1000;

function checkTinyTown(graph: import('../src/index.js').RoadGraph) {
  const router = new Router(graph, { maxSnapDistance: 5 });
  // With the one-way: A to C goes straight along it.
  const ac = router.route({ points: [at('A'), at('C')], calculationMode: 'THE_SHORTEST' });
  assert.ok(Math.abs(ac.distance - cm(len('A', 'B') + len('B', 'C'))) < 1e-6, `A->C ${ac.distance}`);
  // Against it: C to A must take the detour through D.
  const ca = router.route({ points: [at('C'), at('A')], calculationMode: 'THE_SHORTEST' });
  assert.ok(Math.abs(ca.distance - (cm(len('C', 'D')) + cm(len('D', 'A')))) < 1e-6, `C->A ${ca.distance}`);
  // Speeds: 25 km/h residential default on D-A, 30 km/h posted on C-D.
  assert.ok(Math.abs(ca.duration - (ms(cm(len('C', 'D')), 30) + ms(cm(len('D', 'A')), 25))) < 1e-6, `C->A ${ca.duration} s`);
  // The footway and the private service road are not in a car graph: E is off the network.
  assert.throws(() => router.route({ points: [at('C'), at('E')] }), (e: DetourError) => e.code === 'POINT_NOT_ROUTABLE');
}

test('OSM XML: profile, oneway, speeds; missing nodes are skipped', async () => {
  const graph = await openGraph(write('town.osm', OSM_XML));
  assert.equal(graph.roadCount, 3);
  checkTinyTown(graph);
});

test('gzipped OSM XML reads the same', async () => {
  const p = write('town.osm.gz', gzipSync(OSM_XML));
  assert.equal(detectFormat(p), 'xml.gz');
  checkTinyTown(await openGraph(p));
});

test('GeoJSON FeatureCollection reads the same (areas skipped)', async () => {
  checkTinyTown(importGeoJson(geojson));
  const p = write('town.geojson', JSON.stringify(geojson));
  assert.equal(detectFormat(p), 'geojson');
  checkTinyTown(await openGraph(p));
});

test('ngraph.graph with coordinates and OSM tags on links reads the same', () => {
  const ng = createGraph();
  for (const [k, [lat, lon]] of Object.entries(N)) ng.addNode(k, { lat, lon });
  ng.addLink('A', 'B', { tags: { highway: 'residential', oneway: 'yes' } });
  ng.addLink('B', 'C', { tags: { highway: 'residential', oneway: 'yes' } });
  ng.addLink('A', 'D', { tags: { highway: 'residential' } });
  ng.addLink('D', 'C', { tags: { highway: 'residential', maxspeed: '30' } });
  ng.addLink('C', 'E', { tags: { highway: 'footway' } });
  checkTinyTown(fromNgraph(ng));
});

test('ngraph.graph without tags: links are two-way roads at the default speed, or one-way when oriented', () => {
  const ng = createGraph();
  ng.addNode('a', { latitude: 0, longitude: 0 });
  ng.addNode('b', { latitude: 0, longitude: 0.01 });
  ng.addLink('a', 'b');
  const two = fromNgraph(ng);
  assert.equal(two.edgeCount, 2);
  assert.equal(two.roadSpeedKmh[0], 50);
  const one = fromNgraph(ng, { oriented: true });
  assert.equal(one.edgeCount, 1);
  assert.equal(one.roadFlags[0] & (RoadFlag.FORWARD | RoadFlag.BACKWARD), RoadFlag.FORWARD);
  const bad = createGraph();
  bad.addNode('x', { name: 'no coordinates' });
  assert.throws(() => fromNgraph(bad), (e: DetourError) => e.code === 'INVALID_INPUT' && /node x/.test(e.message));
});

test('chains through degree-2 junctions become one road; junctions with a third road stay', () => {
  // Two ways meeting end to end with equal tags form one road; a third way at the join keeps it a node.
  const line = (coords: number[][], props = { highway: 'residential' }) =>
    ({ type: 'Feature', properties: props, geometry: { type: 'LineString', coordinates: coords } });
  const joined = importGeoJson({ type: 'FeatureCollection', features: [line([[0, 0], [0.001, 0]]), line([[0.001, 0], [0.002, 0]])] });
  assert.equal(joined.roadCount, 1);
  assert.equal(joined.nodeCount, 2);
  const tee = importGeoJson({
    type: 'FeatureCollection',
    features: [line([[0, 0], [0.001, 0]]), line([[0.001, 0], [0.002, 0]]), line([[0.001, 0], [0.001, 0.001]])],
  });
  assert.equal(tee.roadCount, 3);
  // Different speeds at the join: kept apart so each keeps its speed.
  const speeds = importGeoJson({
    type: 'FeatureCollection',
    features: [line([[0, 0], [0.001, 0]]), line([[0.001, 0], [0.002, 0]], { highway: 'residential', maxspeed: '50' } as never)],
  });
  assert.equal(speeds.roadCount, 2);
  // A ring of degree-2 points is still one road (cut once), not an endless loop.
  const ring = importGeoJson({ type: 'FeatureCollection', features: [line([[0, 0], [0.001, 0], [0.001, 0.001]]), line([[0.001, 0.001], [0, 0.001], [0, 0]])] });
  assert.equal(ring.roadCount, 1);
});

test('bad inputs: clear errors with stable codes', async () => {
  const expectCode = async (p: Promise<unknown> | (() => unknown), code: string, re?: RegExp) => {
    await assert.rejects(async () => (typeof p === 'function' ? p() : p), (e: DetourError) => {
      assert.equal(e.code, code, e.message);
      if (re) assert.match(e.message, re);
      return true;
    });
  };
  await expectCode(openGraph(join(dir, 'missing.osm.pbf')), 'FILE_NOT_FOUND', /missing\.osm\.pbf/);
  await expectCode(openGraph(write('notes.txt', 'hello world')), 'UNKNOWN_FORMAT', /unknown format/);
  await expectCode(openGraph(write('bad.osm', '<osm><node id="1" lat="0" lon="0"><way')), 'INVALID_INPUT', /not a valid OSM XML/);
  await expectCode(openGraph(write('html.osm', '<html><body>not osm</body></html>')), 'INVALID_INPUT', /expected <osm>/);
  await expectCode(openGraph(write('bad.json', '{"type": "FeatureCollection", "features": [')), 'INVALID_INPUT', /not valid JSON/);
  await expectCode(openGraph(write('point.json', '{"type": "Point", "coordinates": [0, 0]}')), 'INVALID_INPUT', /FeatureCollection/);
  await expectCode(openGraph(write('empty.json', '{"type": "FeatureCollection", "features": []}')), 'GRAPH_EMPTY', /no routable road/);
  await expectCode(openGraph(write('nan.json', JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { highway: 'primary' }, geometry: { type: 'LineString', coordinates: [[0, 0], ['x', 1]] } }] }))), 'INVALID_INPUT', /features\[0\]\.geometry\.coordinates\[1\]/);
  await expectCode(openGraph(write('range.json', JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: [[0, 0], [200, 1]] } }] }))), 'INVALID_INPUT', /out of range/);
  await expectCode(openGraph(write('bad.gz', Buffer.from([0x1f, 0x8b, 1, 2, 3]))), 'INVALID_INPUT', /gzip/);
});

const monaco = sharedExtract('monaco.osm.pbf');
test('a truncated PBF is INVALID_INPUT, not a crash or a hang', { skip: monaco.skip }, async () => {
  const bytes = readFileSync(monaco.path);
  assert.equal(detectFormat(monaco.path), 'pbf');
  const cut = write('cut.osm.pbf', bytes.subarray(0, Math.floor(bytes.length / 2)));
  await assert.rejects(openGraph(cut), (e: DetourError) => e.code === 'INVALID_INPUT' && /not a valid OSM PBF/.test(e.message));
});

test('roads are numbered in the order of their lower end node (spatial like the nodes), and every road still joins its ends', () => {
  const graph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')));
  let previous = -1;
  for (let r = 0; r < graph.roadCount; r++) {
    const low = Math.min(graph.roadFrom[r], graph.roadTo[r]);
    assert.ok(low >= previous, `road ${r} starts at node ${low}, before road ${r - 1}'s ${previous}`);
    previous = low;
    // Its end points are its end nodes' positions, and its length follows its polyline (rounded up to whole centimetres).
    let length = 0;
    for (let k = 1; k < graph.roadPointCount(r); k++) {
      length += haversineMetres(graph.roadPointLat(r, k - 1), graph.roadPointLon(r, k - 1), graph.roadPointLat(r, k), graph.roadPointLon(r, k));
    }
    assert.ok(Math.abs(Math.ceil(length * 100 - 1e-6) / 100 - graph.roadMetres(r)) <= 1e-9 * Math.max(1, length), `road ${r} length ${graph.roadMetres(r)} vs ${length}`);
  }
  // Each edge drives its road between the road's ends.
  for (let e = 0; e < graph.edgeCount; e++) {
    const r = graph.edgeRoad[e];
    const [from, to] = graph.edgeReversed[e] ? [graph.roadTo[r], graph.roadFrom[r]] : [graph.roadFrom[r], graph.roadTo[r]];
    assert.equal(graph.nodeLatitude(graph.edgeTail[e]), graph.nodeLatitude(from));
    assert.equal(graph.nodeLatitude(graph.edgeHead[e]), graph.nodeLatitude(to));
  }
});

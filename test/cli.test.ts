import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGraph, Router } from '../src/index.js';
import { CLI, GOTHENBURG_GEOJSON, ROOT } from './support/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'detour-cli-'));
const graphPath = join(dir, 'gbg.detour');

function detour(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('import writes a graph file and prints a summary with the attribution source', () => {
  const r = detour('import', GOTHENBURG_GEOJSON, '-o', graphPath);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\d+ nodes, \d+ edges, \d+ roads, [\d.]+ km of road, built in [\d.]+ s/);
  assert.ok(existsSync(graphPath));
  assert.ok(loadGraph(graphPath).nodeCount > 1000);
});

test('route prints JSON with distance, duration and coordinates', () => {
  const r = detour('route', '--graph', graphPath, '--from', '57.70887,11.97456', '--to', '57.69514,11.99253', '--mode', 'shortest');
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.calculationMode, 'THE_SHORTEST');
  assert.ok(out.distance > 1000 && out.distance < 10000, String(out.distance));
  assert.ok(out.duration > 0);
  assert.ok(out.legs[0].points.length > 2);
  assert.ok(Number.isFinite(out.legs[0].points[0].latitude));
});

test('route --format geojson is a Feature<LineString> in [longitude, latitude] order; --via adds legs', () => {
  const r = detour('route', '--graph', graphPath, '--from', '57.70887,11.97456', '--via', '57.69514,11.99253',
    '--to', '57.68431,11.94347', '--format', 'geojson');
  assert.equal(r.code, 0, r.stderr);
  const f = JSON.parse(r.stdout);
  assert.equal(f.type, 'Feature');
  assert.equal(f.geometry.type, 'LineString');
  assert.equal(f.properties.legs.length, 2);
  const [lon, lat] = f.geometry.coordinates[0];
  assert.ok(Math.abs(lon - 11.97) < 0.01 && Math.abs(lat - 57.71) < 0.01);
  const stops = JSON.parse(detour('route', '--graph', graphPath, '--from', '57.70887,11.97456', '--to', '57.69514,11.99253',
    '--format', 'geojson', '--with-stops').stdout);
  assert.equal(stops.type, 'FeatureCollection');
  assert.equal(stops.features.length, 3);
});

test('route --steps and --language: each leg\'s instructions, as the library words them; in GeoJSON each maneuver a point with its text', () => {
  const args = ['route', '--graph', graphPath, '--from', '57.70887,11.97456', '--via', '57.69514,11.99253', '--to', '57.68431,11.94347'];
  const plain = JSON.parse(detour(...args).stdout);
  assert.ok(plain.legs.every((l: { steps?: unknown }) => l.steps === undefined), 'no steps unless asked');
  const r = detour(...args, '--language', 'pt_BR');
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const library = new Router(loadGraph(graphPath)).route({ points: [[57.70887, 11.97456], [57.69514, 11.99253], [57.68431, 11.94347]].map(([latitude, longitude]) => ({ latitude, longitude })), steps: 'pt_BR' });
  out.legs.forEach((leg: { steps: Array<{ text: string; type: string; points: number[]; distance: number }> }, i: number) => {
    assert.deepEqual(leg.steps.map((s) => s.text), library.legs[i].steps!.map((s) => s.text));
    assert.deepEqual(leg.steps.map((s) => s.points), library.legs[i].steps!.map((s) => [s.first, s.last]));
    assert.equal(leg.steps.at(-1)!.type, i === 0 ? 'VIA_POINT' : 'LAST_POINT');
  });
  assert.equal(out.legs[1].steps.at(-1).text, 'Você chegou ao seu destino');
  const english = JSON.parse(detour(...args, '--steps').stdout);
  assert.equal(english.legs[1].steps.at(-1).text, 'You have arrived at your destination');
  const geo = JSON.parse(detour(...args, '--steps', '--format', 'geojson', '--with-stops').stdout);
  const maneuvers = geo.features.filter((f: { properties: { text?: string } }) => f.properties.text !== undefined);
  assert.equal(maneuvers.length, english.legs[0].steps.length + english.legs[1].steps.length);
  assert.deepEqual(maneuvers[0].geometry.coordinates, [english.legs[0].steps[0].at.longitude, english.legs[0].steps[0].at.latitude]);
  assert.equal(geo.features[0].properties.legs[0].steps.length, english.legs[0].steps.length);
  const bad = detour(...args, '--language', 'de');
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--language.*pt_BR, es_AR, en/);
});

test('errors go to stderr with a code and a non-zero exit', () => {
  const sea = detour('route', '--graph', graphPath, '--from', '57.70887,11.97456', '--to', '0,0');
  assert.equal(sea.code, 1);
  assert.equal(sea.stdout, '');
  assert.match(sea.stderr, /POINT_NOT_ROUTABLE: --to \(0, 0\) is more than 1000 m from any road/);
  const nan = detour('route', '--graph', graphPath, '--from', 'NaN,1', '--to', '0,0');
  assert.equal(nan.code, 2);
  assert.match(nan.stderr, /--from: latitude must be a finite number/);
  const range = detour('route', '--graph', graphPath, '--from', '57.7,11.9', '--to', '95,0');
  assert.match(range.stderr, /--to: latitude must be a finite number in \[-90, 90\]/);
  const missing = detour('route', '--graph', join(dir, 'none.detour'), '--from', '57.7,11.9', '--to', '57.7,11.95');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /FILE_NOT_FOUND/);
  const corrupt = join(dir, 'corrupt.detour');
  writeFileSync(corrupt, 'DETOURGR garbage garbage garbage');
  assert.match(detour('route', '--graph', corrupt, '--from', '57.7,11.9', '--to', '57.7,11.95').stderr, /GRAPH_CORRUPT/);
  const unknown = join(dir, 'x.bin');
  writeFileSync(unknown, Buffer.from([0, 1, 2, 3, 4, 5]));
  assert.match(detour('import', unknown, '-o', join(dir, 'y.detour')).stderr, /UNKNOWN_FORMAT/);
  const badMode = detour('route', '--graph', graphPath, '--from', '57.7,11.9', '--to', '57.7,11.95', '--mode', 'quickest');
  assert.equal(badMode.code, 2);
  assert.match(badMode.stderr, /quickest.*invalid|Allowed choices/);
});

test('--help lists the commands, and each command has its own help', () => {
  // Through the bin symlink, as npx runs it: the CLI must still see itself as the program.
  const viaBin = spawnSync(join(ROOT, 'node_modules', '.bin', 'detour'), ['--help'], { encoding: 'utf8' });
  assert.match(viaBin.stdout, /Usage: detour/, viaBin.stderr);
  const help = detour('--help');
  assert.equal(help.code, 0);
  for (const c of ['import', 'route', 'demo']) assert.match(help.stdout, new RegExp(`\\b${c}\\b`));
  const routeHelp = detour('route', '--help');
  assert.equal(routeHelp.code, 0);
  assert.match(routeHelp.stdout, /--via/);
});

test('route --avoid goes around a zone given as zone JSON or GeoJSON; zone calculate prints status, edges, km', () => {
  const zoneJson = join(dir, 'zone.json');
  writeFileSync(zoneJson, JSON.stringify({
    name: 'centre',
    geometries: [{ name: 'Haga', vertices: [
      { latitude: 57.6965, longitude: 11.946 }, { latitude: 57.6965, longitude: 11.958 },
      { latitude: 57.7025, longitude: 11.958 }, { latitude: 57.7025, longitude: 11.946 }] }],
  }));
  const zoneGeo = join(dir, 'zone.geojson');
  writeFileSync(zoneGeo, JSON.stringify({ type: 'Feature', properties: { name: 'centre' }, geometry: { type: 'Polygon', coordinates: [[
    [11.946, 57.6965], [11.958, 57.6965], [11.958, 57.7025], [11.946, 57.7025], [11.946, 57.6965]]] } }));
  const args = ['route', '--graph', graphPath, '--from', '57.6995,11.94', '--to', '57.6995,11.964'];
  const plain = JSON.parse(detour(...args).stdout);
  // The same square written [latitude, longitude] lies in the Indian Ocean: routed as if absent, with a warning naming it.
  const swapped = join(dir, 'swapped.geojson');
  writeFileSync(swapped, JSON.stringify({ type: 'Polygon', coordinates: [[[57.6965, 11.946], [57.6965, 11.958], [57.7025, 11.958], [57.7025, 11.946], [57.6965, 11.946]]] }));
  const unblocked = detour(...args, '--avoid', swapped);
  assert.equal(unblocked.code, 0, unblocked.stderr);
  assert.equal(JSON.parse(unblocked.stdout).duration, plain.duration);
  assert.match(unblocked.stderr, /warning: zone .* blocks no road of the graph \(CALCULATED_WITHOUT_ROADS\)/);
  assert.equal(detour(...args, '--avoid', zoneJson).stderr, '', 'a zone that blocks roads gets no warning');
  const avoided = JSON.parse(detour(...args, '--avoid', zoneJson).stdout);
  const avoidedGeo = JSON.parse(detour(...args, '--avoid', zoneGeo).stdout);
  assert.ok(avoided.duration > plain.duration, 'the detour takes longer');
  assert.equal(avoided.duration, avoidedGeo.duration, 'both zone formats block the same roads');
  const inside = (p: { latitude: number; longitude: number }) => p.latitude > 57.6965 && p.latitude < 57.7025 && p.longitude > 11.946 && p.longitude < 11.958;
  assert.ok(plain.legs[0].points.some(inside), 'the unrestricted route crosses the zone');
  assert.ok(!avoided.legs[0].points.some(inside), 'the avoiding route never enters it');
  const fromInside = JSON.parse(detour('route', '--graph', graphPath, '--from', '57.6995,11.952', '--to', '57.6995,11.964', '--avoid', zoneJson).stdout);
  assert.equal(fromInside.legs[0].zonesEntered[0].name, 'centre');
  const map = JSON.parse(detour(...args, '--avoid', zoneJson, '--format', 'geojson', '--with-stops').stdout);
  assert.deepEqual(map.features.map((f: { geometry: { type: string } }) => f.geometry.type), ['LineString', 'Point', 'Point', 'Polygon']);

  const calc = detour('zone', 'calculate', zoneJson, '--graph', graphPath);
  assert.equal(calc.code, 0, calc.stderr);
  assert.match(calc.stdout, /zone "centre": CALCULATED \(Roads inside restriction zone calculated\)/);
  assert.match(calc.stdout, /blocked: \d+ edges on \d+ roads, [\d.]+ km of road inside/);
  const json = JSON.parse(detour('zone', 'calculate', zoneGeo, '--graph', graphPath, '--json').stdout);
  assert.equal(json.status.name, 'CALCULATED');
  assert.ok(json.blockedEdges > 50 && json.kmOfRoadInside > 1);

  const bad = join(dir, 'bad-zone.json');
  writeFileSync(bad, JSON.stringify({ name: 'a/b', geometries: [{ vertices: [{ latitude: 0, longitude: 0 }] }] }));
  const rejected = detour('zone', 'calculate', bad, '--graph', graphPath);
  assert.equal(rejected.code, 1);
  assert.match(rejected.stderr, /INVALID_ZONE: .*name: must not contain "\/".*geometries\[0\]\.vertices: needs at least 3 distinct vertices/);
  assert.match(detour(...args, '--avoid', join(dir, 'missing.json')).stderr, /FILE_NOT_FOUND: zone file not found/);
});

test('route --depart: a GeoJSON zone\'s schedule closes it by day only; the JSON gives the departure; a bad time or rule is named', () => {
  const square = [[11.946, 57.6965], [11.958, 57.6965], [11.958, 57.7025], [11.946, 57.7025], [11.946, 57.6965]];
  const schedule = { timeZone: 'Europe/Stockholm', windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: '07:00', to: '19:00' }] };
  const zone = join(dir, 'daytime.geojson');
  writeFileSync(zone, JSON.stringify({ type: 'Feature', properties: { name: 'daytime', schedule }, geometry: { type: 'Polygon', coordinates: [square] } }));
  const args = ['route', '--graph', graphPath, '--from', '57.6995,11.94', '--to', '57.6995,11.964', '--avoid', zone];
  const plain = JSON.parse(detour('route', '--graph', graphPath, '--from', '57.6995,11.94', '--to', '57.6995,11.964').stdout);
  const day = JSON.parse(detour(...args, '--depart', '2026-12-07T10:00:00+01:00').stdout);
  const night = JSON.parse(detour(...args, '--depart', String(Date.parse('2026-12-07T22:00:00+01:00'))).stdout);
  assert.ok(day.duration > plain.duration, 'closed by day: around it');
  assert.equal(night.duration, plain.duration, 'open at night: through it');
  assert.deepEqual([day.departure, night.departure], ['2026-12-07T09:00:00.000Z', '2026-12-07T21:00:00.000Z']);
  const badTime = detour(...args, '--depart', 'next tuesday');
  assert.notEqual(badTime.code, 0);
  assert.match(badTime.stderr, /--depart/);
  writeFileSync(zone, JSON.stringify({ type: 'Feature', properties: { name: 'daytime', schedule: { ...schedule, timeZone: 'Gothenburg' } }, geometry: { type: 'Polygon', coordinates: [square] } }));
  assert.match(detour(...args).stderr, /INVALID_ZONE: .*properties\.schedule\.timeZone/);
});

test('matrix: CSV and JSON points, JSON and CSV output, every element equal to the route between its points; bad files named', async () => {
  const { Router, DEFAULT_GRAPH_PATH } = await import('../src/index.js');
  const origins = join(dir, 'o.csv'), destinations = join(dir, 'd.json');
  writeFileSync(origins, 'id,latitude,longitude\nhome,57.70887,11.97456\nwork,57.69514,11.99253\n');
  writeFileSync(destinations, JSON.stringify([{ siteId: 'a', latitude: 57.7046, longitude: 11.9660 }, { latitude: 57.6980, longitude: 11.9800 }, { id: 'sea', latitude: 57.0, longitude: 11.0 }]));
  const r = detour('matrix', '--origins', origins, '--destinations', destinations, '--mode', 'shortest');
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.calculationMode, 'THE_SHORTEST');
  assert.deepEqual(out.elements.map((e: { origin: string; destination: string }) => `${e.origin}>${e.destination}`), ['home>a', 'home>2', 'home>sea', 'work>a', 'work>2', 'work>sea']);
  const router = new Router(loadGraph(DEFAULT_GRAPH_PATH));
  const pts = [[57.70887, 11.97456], [57.69514, 11.99253]], dst = [[57.7046, 11.9660], [57.6980, 11.9800]];
  for (let o = 0; o < 2; o++) {
    for (let d = 0; d < 2; d++) {
      const route = router.route({ points: [{ latitude: pts[o][0], longitude: pts[o][1] }, { latitude: dst[d][0], longitude: dst[d][1] }], calculationMode: 'THE_SHORTEST' });
      const e = out.elements[o * 3 + d];
      assert.ok(Math.abs(e.distance - route.distance) <= 0.05, `${e.distance} vs ${route.distance}`);
      assert.ok(Math.abs(e.duration - route.duration) <= 0.05 + route.duration * 1e-6);
    }
    assert.equal(out.elements[o * 3 + 2].distance, null);
    assert.equal(out.elements[o * 3 + 2].error.code, 'POINT_NOT_ROUTABLE');
  }
  const csv = detour('matrix', '--origins', origins, '--destinations', destinations, '--format', 'csv');
  assert.equal(csv.code, 0, csv.stderr);
  const lines = csv.stdout.trim().split('\n');
  assert.equal(lines[0], 'origin,destination,distance_m,duration_s,error');
  assert.equal(lines.length, 7);
  assert.match(lines[3], /^home,sea,,,POINT_NOT_ROUTABLE$/);

  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, '57.7,11.9\n57.7,abc\n');
  const r2 = detour('matrix', '--origins', bad, '--destinations', destinations);
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /INVALID_INPUT: .*bad\.csv line 2: longitude "abc" is not a number/);
  const r3 = detour('matrix', '--origins', join(dir, 'missing.csv'), '--destinations', destinations);
  assert.equal(r3.code, 1);
  assert.match(r3.stderr, /FILE_NOT_FOUND/);
});

test('file and argument errors are clear, with codes and no stack trace: a directory as graph, a missing output folder, NaN, --port', () => {
  const folder = detour('route', '--graph', dir, '--from', '57.70887,11.97456', '--to', '57.69514,11.99253');
  assert.equal(folder.code, 1);
  assert.match(folder.stderr, /^detour: INVALID_INPUT: .* is a directory, not a file\n$/);
  const output = detour('import', GOTHENBURG_GEOJSON, '-o', join(dir, 'no', 'such', 'folder', 'x.detour'));
  assert.equal(output.code, 1);
  assert.match(output.stderr, /^detour: FILE_NOT_WRITABLE: cannot write the graph file .*x\.detour: the folder .*folder does not exist\n$/);
  const nan = detour('route', '--from', 'NaN,1', '--to', '57.69514,11.99253');
  assert.equal(nan.code, 2);
  assert.match(nan.stderr, /--from: latitude must be a finite number in \[-90, 90\], got NaN/);
  const port = spawnSync(process.execPath, [CLI, 'serve', '--port', 'abc'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DETOUR_WORKERS: '1' } });
  assert.equal(port.status, 1);
  assert.match(port.stderr, /^detour: INVALID_INPUT: --port must be a port number \(0 to 65535\), got "abc"\n$/);
  for (const r of [folder, output, nan, port]) assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

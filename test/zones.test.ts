import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import booleanIntersects from '@turf/boolean-intersects';
import { lineString, polygon } from '@turf/helpers';
import { calculateZone, openGraph, Router, zoneFromGeoJson, type CalculatedZone, type RoadGraph, type Zone } from '../src/index.js';
import { pointInPolygonReference } from '../src/geo/PreparedPolygon.js';
import { ZoneIndex } from '../src/zones/ZoneIndex.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { lengthInside as lengthInsideOf } from '../src/geo/lengthInside.js';
import { close, dijkstra, importedGothenburg, SCRIPT_NODE_ARGS, seededRandom, sharedExtract, srcModule } from './support/helpers.js';

const METRES_PER_DEG = 111_195;

/** A random star-shaped zone of about `radius` metres around a random road point; sometimes with a hole. */
function randomZone(graph: RoadGraph, rand: () => number, name: string, radius: number): { zone: Zone; rings: number[][][] } {
  const r = Math.floor(rand() * graph.roadCount);
  const cy = graph.roadPointLat(r, 0), cx = graph.roadPointLon(r, 0);
  const ry = radius / METRES_PER_DEG, rx = ry / Math.cos((cy * Math.PI) / 180);
  const n = 8 + Math.floor(rand() * 40);
  const outer: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n, k = 0.5 + 0.5 * rand();
    outer.push([cx + rx * k * Math.cos(a), cy + ry * k * Math.sin(a)]);
  }
  outer.push([...outer[0]]);
  const rings = [outer];
  if (rand() < 0.4) {
    const h = 0.2;
    rings.push([[cx - rx * h, cy - ry * h], [cx - rx * h, cy + ry * h], [cx + rx * h, cy + ry * h], [cx + rx * h, cy - ry * h], [cx - rx * h, cy - ry * h]]);
  }
  return { zone: zoneFromGeoJson(name, { type: 'Polygon', coordinates: rings }), rings };
}

/** The oracle: turf decides, road by road, which roads touch the polygon. */
function turfBlocked(graph: RoadGraph, rings: number[][][]): Set<number> {
  const shape = polygon(rings);
  const xs = rings[0].map((p) => p[0]), ys = rings[0].map((p) => p[1]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const out = new Set<number>();
  for (let r = 0; r < graph.roadCount; r++) {
    const line: number[][] = [];
    for (let k = 0; k < graph.roadPointCount(r); k++) line.push([graph.roadPointLon(r, k), graph.roadPointLat(r, k)]);
    if (line.every((p) => p[0] < minX) || line.every((p) => p[0] > maxX) || line.every((p) => p[1] < minY) || line.every((p) => p[1] > maxY)) continue;
    if (booleanIntersects(lineString(line), shape)) out.add(r);
  }
  return out;
}

async function networks(): Promise<Array<{ name: string; load?: () => Promise<RoadGraph>; skip: string | false }>> {
  const list: Array<{ name: string; load?: () => Promise<RoadGraph>; skip: string | false }> = [
    { name: 'Gothenburg', load: async () => importedGothenburg(), skip: false },
  ];
  for (const f of ['monaco.osm.pbf', 'andorra.osm.pbf', 'campo-grande.osm.gz']) {
    const data = sharedExtract(f);
    list.push({ name: f, load: () => openGraph(data.path), skip: data.skip });
  }
  return list;
}

describe('zone calculation and zone-avoiding routes agree with turf and Dijkstra', async () => {
  for (const net of await networks()) {
    test(`${net.name}: blocked roads = turf booleanIntersects; routes = Dijkstra without them`, { skip: net.skip }, async () => {
      const graph = await net.load!();
      const rand = seededRandom(net.name.length * 7919);
      const router = new Router(graph);
      const ngraph = new Router(graph, { engine: 'ngraph', snapIndex: router.snapIndex });
      let blockedSomething = 0, comparedRoutes = 0, fallbacks = 0;
      for (let z = 0; z < 6; z++) {
        // 1. The zone's blocked roads are exactly what turf says touches it.
        const zones: CalculatedZone[] = [];
        const mask = new Uint8Array(graph.roadCount);
        for (let k = 0; k < 2; k++) {
          const { zone, rings } = randomZone(graph, rand, `z${z}-${k}`, 150 + rand() * 1200);
          const calculated = calculateZone(graph, zone);
          const expected = turfBlocked(graph, rings);
          assert.deepEqual([...calculated.roads], [...expected].sort((a, b) => a - b), `${zone.name}: blocked roads differ from turf`);
          assert.equal(calculated.status.name, expected.size ? 'CALCULATED' : 'CALCULATED_WITHOUT_ROADS');
          assert.ok(calculated.metresInside <= calculated.blockedLength + 1e-6);
          if (expected.size) blockedSomething++;
          for (const r of expected) mask[r] = 1;
          zones.push(calculated);
        }
        // 2. Routes with both zones: same cost as Dijkstra over the roads turf left open.
        for (let p = 0; p < 15; p++) {
          const ra = Math.floor(rand() * graph.roadCount), rb = Math.floor(rand() * graph.roadCount);
          const points = [
            { latitude: graph.roadPointLat(ra, 1), longitude: graph.roadPointLon(ra, 1) },
            { latitude: graph.roadPointLat(rb, 1), longitude: graph.roadPointLon(rb, 1) },
          ];
          const [from, to] = router.snapStops(points); // as route() snaps them (tiny pieces move to the main network)
          const stopInZone = mask[from.road] === 1 || mask[to.road] === 1;
          const sources = sourceEndpoints(graph, from, 'duration'), targets = targetEndpoints(graph, to, 'duration');
          const oracle = stopInZone ? Infinity : Math.min(dijkstra(graph, sources, targets, 'duration', mask), directCost(graph, from, to, 'duration').cost);
          for (const r of [router, ngraph]) {
            let route;
            try {
              route = r.route({ points, zones });
            } catch (err) {
              assert.equal((err as { code: string }).code, 'ROUTE_NOT_FOUND', String(err));
              assert.equal(oracle, Infinity, `${r.search.name}: no route, but Dijkstra found ${oracle}`);
              continue;
            }
            const leg = route.legs[0];
            if (oracle < Infinity) {
              comparedRoutes++;
              assert.ok(close(route.duration, oracle, 1e-9), `${r.search.name}: ${route.duration} s vs Dijkstra ${oracle} s`);
              assert.equal(leg.zonesEntered, undefined);
              for (const e of leg.edges) assert.equal(mask[graph.edgeRoad[e]], 0, 'a blocked road was used');
            } else {
              // A stop inside a zone, or reachable only through one: served, and it says so.
              fallbacks++;
              assert.ok(leg.zonesEntered !== undefined, 'a route through zones must list them');
              for (const entered of leg.zonesEntered) assert.ok(entered.metresInside > 0);
            }
          }
        }
      }
      assert.ok(blockedSomething >= 6, `zones should block roads (${blockedSomething})`);
      assert.ok(comparedRoutes >= 60, `too few routes compared (${comparedRoutes})`);

    });
  }
});

describe('avoidance rules', () => {
  const graph = importedGothenburg();
  const router = new Router(graph);
  const box = (name: string, lat: number, lon: number, dLat: number, dLon: number) =>
    zoneFromGeoJson(name, { type: 'Polygon', coordinates: [[[lon - dLon, lat - dLat], [lon + dLon, lat - dLat], [lon + dLon, lat + dLat], [lon - dLon, lat + dLat], [lon - dLon, lat - dLat]]] });
  const centre = calculateZone(graph, box('centre', 57.6995, 11.952, 0.003, 0.006));
  const west = { latitude: 57.6995, longitude: 11.94 }, east = { latitude: 57.6995, longitude: 11.964 };

  test('a route between points on opposite sides of a zone goes around it', () => {
    const direct = router.route({ points: [west, east] });
    const around = router.route({ points: [west, east], zones: [centre] });
    const centreRoads = new Set(centre.roads);
    assert.ok(direct.legs[0].edges.some((e) => centreRoads.has(graph.edgeRoad[e])), 'the direct route crosses the zone');
    assert.ok(around.legs[0].edges.every((e) => !centreRoads.has(graph.edgeRoad[e])), 'the detour avoids it');
    assert.ok(around.duration > direct.duration);
    assert.equal(around.legs[0].zonesEntered, undefined);
  });

  test('zones combine: two zones block their union', () => {
    const other = calculateZone(graph, box('other', 57.705, 11.975, 0.002, 0.004));
    const both = router.route({ points: [west, east], zones: [centre, other] });
    const centreRoads = new Set(centre.roads);
    const otherRoads = new Set(other.roads);
    for (const e of both.legs[0].edges) assert.ok(!centreRoads.has(graph.edgeRoad[e]) && !otherRoads.has(graph.edgeRoad[e]));
  });

  test('a stop inside a zone is served, listing the zone and the metres driven inside it', () => {
    const inside = { latitude: 57.6995, longitude: 11.952 };
    const route = router.route({ points: [inside, east], zones: [centre] });
    const entered = route.legs[0].zonesEntered!;
    assert.equal(entered.length, 1);
    assert.equal(entered[0].name, 'centre');
    assert.ok(entered[0].metresInside > 0 && entered[0].metresInside < route.distance);
    // Fewest metres inside first: no other exit drives less inside the zone than this one.
    const unrestricted = router.route({ points: [inside, east] });
    const line = new Float64Array(unrestricted.legs[0].points.flatMap((p) => [p.longitude, p.latitude]));
    const insideUnrestricted = centre.prepared.reduce((s, poly) => s + lengthInsideOf(poly, line), 0);
    assert.ok(entered[0].metresInside <= insideUnrestricted + 1e-6);
  });

  test('metres inside each zone entered equal the per-piece reference measured over the whole leg (stops inside, zones of overlapping polygons, a stop pair on one road)', async () => {
    const { lengthInsideReference } = await import('../src/geo/lengthInside.js');
    const rand = seededRandom(77);
    const square = (lat: number, lon: number, d: number) => [[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]];
    let measured = 0;
    for (let i = 0; i < 40; i++) {
      const lat = 57.69 + rand() * 0.02, lon = 11.95 + rand() * 0.04;
      // Two overlapping squares in one zone: roads in both count in each (the reference sums the polygons too).
      const zone = calculateZone(graph, zoneFromGeoJson(`z${i}`, { type: 'MultiPolygon', coordinates: [[square(lat, lon, 0.003)], [square(lat + 0.002, lon + 0.002, 0.002)]] }));
      const inside = { latitude: lat + (rand() - 0.5) * 0.002, longitude: lon + (rand() - 0.5) * 0.002 };
      const out = { latitude: 57.69 + rand() * 0.02, longitude: 11.95 + rand() * 0.04 };
      const near = { latitude: inside.latitude + 0.0002, longitude: inside.longitude };
      for (const points of [[inside, out], [out, inside], [inside, near]]) {
        let route;
        try { route = router.route({ points, zones: [zone] }); } catch { continue; }
        for (const leg of route.legs) {
          const line = new Float64Array(leg.points.flatMap((p) => [p.longitude, p.latitude]));
          const reference = zone.prepared.reduce((sum, poly) => sum + lengthInsideReference(poly, line), 0);
          const got = leg.zonesEntered?.find((z) => z.name === zone.zone.name)?.metresInside ?? 0;
          assert.ok(Math.abs(got - reference) <= 1e-3 * Math.max(1, leg.edges.length), `zone ${i}: ${got} m inside, reference ${reference} m`);
          if (reference > 0) measured++;
        }
      }
    }
    assert.ok(measured >= 30, `${measured} legs drove inside a zone`);
  });

  test('a zone whose calculation failed or is still running cannot be used silently', () => {
    const failed = { ...centre, status: { name: 'CALCULATION_ERROR' as const, description: 'Error trying to calculate restriction zone: boom' }, blockedRoads: new Uint8Array(0) };
    assert.throws(() => router.route({ points: [west, east], zones: [failed] }), (e: { code: string; message: string }) => e.code === 'ZONE_NOT_USABLE' && /centre.*boom/.test(e.message));
    const running = { ...centre, status: { name: 'IN_CALCULATION' as const, description: 'Calculating roads inside geometries' } };
    assert.throws(() => router.route({ points: [west, east], zones: [running] }), (e: { code: string }) => e.code === 'ZONE_NOT_READY');
  });

  test('a zone in the sea blocks nothing: CALCULATED_WITHOUT_ROADS', () => {
    const sea = calculateZone(graph, box('sea', 57.60, 11.70, 0.01, 0.01));
    assert.equal(sea.status.name, 'CALCULATED_WITHOUT_ROADS');
    assert.equal(sea.status.description, 'No road found after calculation inside restriction zone');
    assert.equal(sea.roads.length, 0);
  });

  test('roads inside a hole stay open', () => {
    const outer = [[11.94, 57.69], [11.965, 57.69], [11.965, 57.71], [11.94, 57.71], [11.94, 57.69]];
    const hole = [[11.945, 57.695], [11.945, 57.705], [11.96, 57.705], [11.96, 57.695], [11.945, 57.695]];
    const donut = calculateZone(graph, zoneFromGeoJson('donut', { type: 'Polygon', coordinates: [outer, hole] }));
    const solid = calculateZone(graph, zoneFromGeoJson('solid', { type: 'Polygon', coordinates: [outer] }));
    assert.ok(donut.roads.length < solid.roads.length);
    const donutRoads = new Set(donut.roads);
    const deepInHole = [...solid.roads].filter((r) => !donutRoads.has(r));
    assert.ok(deepInHole.length > 10, 'roads well inside the hole are not blocked');
  });
});




describe('ZoneCalculator: large zones on a worker thread', () => {
  test('the worker takes each owner\'s zones in turn: a client\'s zone waits for at most the piece under way, not for another client\'s queue; results equal the inline calculation', async () => {
    const { ZoneCalculator, loadGraph, DEFAULT_GRAPH_PATH } = await import('../src/index.js');
    const graph = loadGraph(DEFAULT_GRAPH_PATH);
    const calculator = new ZoneCalculator(graph, { workerThreshold: 0 });
    try {
      const square = (name: string, i: number) => zoneFromGeoJson(name, {
        type: 'Polygon', coordinates: [[[11.94 + i * 0.01, 57.69], [11.95 + i * 0.01, 57.69], [11.95 + i * 0.01, 57.70], [11.94 + i * 0.01, 57.70], [11.94 + i * 0.01, 57.69]]],
      });
      const finished: string[] = [];
      const run = (owner: string, name: string, i: number) => {
        const zone = square(name, i);
        return calculator.calculate(zone, true, owner).then((done) => {
          finished.push(name);
          assert.deepEqual([...done.roads], [...calculateZone(graph, zone).roads], name);
          return done;
        });
      };
      const all = [run('A', 'a1', 0), run('A', 'a2', 1), run('A', 'a3', 2), run('A', 'a4', 3), run('B', 'b1', 4), run('', 'x1', 5), run('B', 'b2', 6)];
      assert.equal(calculator.waiting, 6, 'one piece under way, six waiting');
      await Promise.all(all);
      // a1 was under way; then B and the anonymous owner get their turns between A's zones.
      assert.deepEqual(finished, ['a1', 'a2', 'b1', 'x1', 'a3', 'b2', 'a4']);
      assert.equal(calculator.waiting, 0);
    } finally {
      await calculator.close();
    }
  });

  test('a jagged zone meeting few roads goes to the worker by its estimated edge tests, and comes back equal to the inline calculation', async () => {
    const { ZoneCalculator } = await import('../src/index.js');
    const { ADVERSARIAL_RINGS } = await import('../bench/adversarialRings.js');
    const graph = importedGothenburg();
    const calculator = new ZoneCalculator(graph);
    try {
      const sawtooth = zoneFromGeoJson('saw', { type: 'Polygon', coordinates: [[...ADVERSARIAL_RINGS.sawtooth(5_000), ADVERSARIAL_RINGS.sawtooth(5_000)[0]]] });
      const work = calculator.estimatedWork(sawtooth);
      // Few roads (the road rule alone would calculate it inline), but each reads a long index row.
      assert.ok(work.roads < 10_000 && work.edgeTests > 1_000_000, JSON.stringify(work));
      assert.equal(calculator.runsOnWorker(sawtooth), true);
      const pending = calculator.calculate(sawtooth);
      assert.equal(calculator.statusOf('saw')?.name, 'IN_CALCULATION');
      const onWorker = await pending;
      const inline = calculateZone(graph, sawtooth);
      assert.deepEqual([...onWorker.roads], [...inline.roads]);
      assert.equal(onWorker.metresInside, inline.metresInside);
      // The same outline with few vertices is cheap: inline.
      const simple = zoneFromGeoJson('simple', { type: 'Polygon', coordinates: [[...ADVERSARIAL_RINGS.sawtooth(40), ADVERSARIAL_RINGS.sawtooth(40)[0]]] });
      assert.equal(calculator.runsOnWorker(simple), false);
    } finally {
      await calculator.close();
    }
  });

  test('worker results equal the synchronous calculation, with IN_CALCULATION visible meanwhile', async () => {
    const { ZoneCalculator } = await import('../src/index.js');
    const graph = importedGothenburg();
    const calculator = new ZoneCalculator(graph, { workerThreshold: 1000 });
    try {
      const ring: number[][] = [];
      for (let i = 0; i < 64; i++) { const a = (2 * Math.PI * i) / 64; ring.push([11.97 + 0.05 * Math.cos(a), 57.705 + 0.025 * Math.sin(a)]); }
      ring.push(ring[0]);
      const big = zoneFromGeoJson('big', { type: 'Polygon', coordinates: [ring] });
      assert.ok(calculator.candidateRoads(big) > 1000);
      const pending = calculator.calculate(big);
      assert.deepEqual(calculator.statusOf('big'), { name: 'IN_CALCULATION', description: 'Calculating roads inside geometries' });
      const onWorker = await pending;
      assert.equal(calculator.statusOf('big'), undefined);
      const inline = calculateZone(graph, big);
      assert.equal(onWorker.status.name, 'CALCULATED');
      assert.deepEqual([...onWorker.roads], [...inline.roads]);
      assert.equal(onWorker.metresInside, inline.metresInside);
      // A small zone stays on the calling thread and is never IN_CALCULATION.
      const small = zoneFromGeoJson('small', { type: 'Polygon', coordinates: [[[11.95, 57.70], [11.951, 57.70], [11.951, 57.701], [11.95, 57.70]]] });
      const p = calculator.calculate(small);
      assert.equal(calculator.statusOf('small'), undefined);
      assert.ok((await p).status.name.startsWith('CALCULATED'));
      // The worker's zone routes like the inline one.
      const router = new Router(graph);
      const pts = [{ latitude: 57.69, longitude: 11.90 }, { latitude: 57.72, longitude: 12.05 }];
      assert.equal(router.route({ points: pts, zones: [onWorker] }).duration, router.route({ points: pts, zones: [inline] }).duration);
    } finally {
      await calculator.close();
    }
  });
});

describe('ZoneIndex', () => {
  test('finds the zones at a point and near a box exactly as a brute-force scan does', () => {
    const graph = importedGothenburg();
    const rand = seededRandom(31);
    const zones = Array.from({ length: 40 }, (_, i) => calculateZone(graph, randomZone(graph, rand, `z${i}`, 300 + rand() * 1500).zone));
    const index = new ZoneIndex(zones);
    assert.equal(index.size, 40);
    for (let i = 0; i < 300; i++) {
      const lat = 57.66 + rand() * 0.08, lon = 11.90 + rand() * 0.16;
      const expected = zones.filter((z) => z.prepared.some((p) => pointInPolygonReference(p, lon, lat))).map((z) => z.zone.name).sort();
      assert.deepEqual(index.zonesAt(lat, lon).map((z) => z.zone.name).sort(), expected);
      const box = [lon - 0.01, lat - 0.005, lon + 0.01, lat + 0.005];
      const inBox = zones.filter((z) => z.prepared.some((p) => p.minX <= box[2] && p.maxX >= box[0] && p.minY <= box[3] && p.maxY >= box[1])).map((z) => z.zone.name).sort();
      assert.deepEqual(index.zonesInBox(box[0], box[1], box[2], box[3]).map((z) => z.zone.name).sort(), inBox);
    }
    assert.ok(index.remove('z0'));
    assert.equal(index.remove('z0'), false);
    assert.equal(index.size, 39);
    index.add(zones[1]); // replacing by name keeps one entry
    assert.equal(index.size, 39);
  });
});

describe('ZoneCache', () => {
  test('reuses a revision, recalculates a new one, keeps the most recent zones, and turns an invalid stored zone into CALCULATION_ERROR', async () => {
    const { ZoneCache } = await import('../src/zones/ZoneCache.js');
    const { validateZone } = await import('../src/index.js');
    const graph = importedGothenburg();
    const cache = new ZoneCache(graph, { maxZones: 2 });
    try {
      const square = (name: string, lat: number, lon: number) => ({
        name,
        geometries: [{ vertices: [[0, 0], [0, 0.004], [0.004, 0.004], [0.004, 0]].map(([a, b]) => ({ latitude: lat + a, longitude: lon + b })) }],
      });
      let parsed = 0;
      const source = (key: string, revision: string, body: unknown) => ({
        key, revision, name: key, zone: () => { parsed++; return validateZone(body); },
      });
      const first = cache.current(source('a', 'r1', square('a', 57.70, 11.96)));
      assert.equal(first.status.name, 'CALCULATED');
      assert.deepEqual([...first.roads], [...calculateZone(graph, validateZone(square('a', 57.70, 11.96))).roads]);
      assert.equal(cache.current(source('a', 'r1', square('a', 57.70, 11.96))), first, 'same revision: the same calculation');
      assert.equal(parsed, 1);
      const moved = cache.current(source('a', 'r2', square('a', 57.71, 11.99)));
      assert.notDeepEqual([...moved.roads], [...first.roads]);
      assert.equal(parsed, 2);

      cache.current(source('b', 'r1', square('b', 57.69, 11.95)));
      cache.current(source('a', 'r2', square('a', 57.71, 11.99))); // a is now the most recent
      cache.current(source('c', 'r1', square('c', 57.68, 11.94))); // evicts b, the least recent
      assert.equal(cache.size, 2);
      parsed = 0;
      cache.current(source('a', 'r2', square('a', 57.71, 11.99)));
      assert.equal(parsed, 0, 'a was kept');
      cache.current(source('b', 'r1', square('b', 57.69, 11.95)));
      assert.equal(parsed, 1, 'b was evicted and is calculated again');

      const broken = await cache.settled(source('bad', 'r1', { name: 'bad', geometries: [] }));
      assert.equal(broken.status.name, 'CALCULATION_ERROR');
      assert.match(broken.status.description, /^Error trying to calculate restriction zone: the stored zone is not valid: .*at least one geometry/);
      assert.throws(() => new Router(graph).route({ points: [{ latitude: 57.70, longitude: 11.95 }, { latitude: 57.71, longitude: 11.99 }], zones: [broken] }), /ZONE_NOT_USABLE|cannot be used/);
    } finally {
      await cache.close();
    }
  });

  test('idle zones whose revision the store no longer has are forgotten by the sweep, live ones stay; every calculation let go reaches onDropped, and the router forgets its cliques', async () => {
    const { ZoneCache } = await import('../src/zones/ZoneCache.js');
    const { sweepZoneCache } = await import('../src/service/resolveZones.js');
    const { zoneSource, zoneKey } = await import('../src/service/zoneRoutes.js');
    const { SqliteStore } = await import('../src/store/SqliteStore.js');
    const { storedZoneFromJson } = await import('../src/store/Store.js');
    const { loadGraph, DEFAULT_GRAPH_PATH } = await import('../src/index.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const graph = loadGraph(DEFAULT_GRAPH_PATH);
    const router = new Router(graph);
    const dir = mkdtempSync(join(tmpdir(), 'detour-sweep-'));
    const store = new SqliteStore(join(dir, 'detour.sqlite'));
    const { registerClient } = await import('../src/service/credentials.js');
    const owner = (await registerClient(store, { applicationName: 'sweep' })).client.clientId;
    let clock = 0;
    const dropped: string[] = [];
    const cache = new ZoneCache(graph, {
      maxZones: 4, now: () => clock,
      onCalculated: (z) => router.prepareZones([z]), onDropped: (z) => { dropped.push(z.zone.name); router.forgetZone(z); },
    });
    try {
      const body = (name: string, lat: number, lon: number) => JSON.stringify({
        name, geometries: [{ vertices: [[0, 0], [0, 0.004], [0.004, 0.004], [0.004, 0]].map(([a, b]) => ({ latitude: lat + a, longitude: lon + b })) }],
      });
      const stored = (name: string, revision: string, lat: number) => storedZoneFromJson({ clientId: owner, name, vertexCount: 4, revision, createdAt: 0, updatedAt: 0 }, body(name, lat, 11.96));
      const calculated = new Map<string, CalculatedZone>();
      for (const [name, lat] of [['a', 57.70], ['b', 57.69], ['c', 57.68]] as const) {
        assert.ok(await store.insertZone(stored(name, 'r1', lat)));
        calculated.set(name, cache.current(zoneSource(stored(name, 'r1', lat))));
      }
      cache.current(zoneSource(stored('a', 'r1', 57.70)));
      assert.ok(router.preparedZones.zones >= 1, 'the router keeps cliques for the zones');
      const prepared = router.preparedZones.zones;
      // Through "another instance": a deleted, b replaced; c untouched.
      assert.ok(await store.deleteZone(owner, 'a'));
      assert.ok(await store.replaceZone(stored('b', 'r2', 57.695)));
      clock = 1000;
      cache.current(zoneSource(stored('c', 'r1', 57.68))); // c asked for again: not idle
      assert.deepEqual(cache.idle(500).map((e) => e.name), ['b', 'a'], 'least recently used first');
      assert.equal(await sweepZoneCache(store, cache, 500), 2);
      assert.deepEqual(dropped.sort(), ['a', 'b']);
      assert.equal(cache.size, 1);
      const droppedPrepared = ['a', 'b'].filter((n) => router.canCustomize(calculated.get(n)!)).length;
      assert.ok(droppedPrepared > 0);
      assert.equal(router.preparedZones.zones, prepared - droppedPrepared, 'their cliques went with them');
      // A live zone stays however long it rests.
      clock = 10_000;
      assert.equal(await sweepZoneCache(store, cache, 500), 0);
      assert.ok(cache.lookup(zoneKey(owner, 'c'), 'r1', 'c'));
      // A new revision, a forget, and the count bound each let the old calculation go.
      cache.current(zoneSource(stored('c', 'r3', 57.68)));
      cache.forget(zoneKey(owner, 'c'));
      for (const [i, name] of ['d', 'e', 'f', 'g', 'h'].entries()) cache.current(zoneSource(stored(name, 'r1', 57.66 + i * 0.005)));
      assert.deepEqual(dropped.slice(2), ['c', 'c', 'd']);
      assert.equal(cache.size, 4);
      // Routes stay exact with the cliques let go: the same as a router that never prepared a zone.
      const zones = ['e', 'f', 'g'].map((n, i) => cache.current(zoneSource(stored(n, 'r1', 57.665 + i * 0.005))));
      const points = [{ latitude: 57.655, longitude: 11.935 }, { latitude: 57.70, longitude: 11.95 }];
      assert.equal(router.route({ points, zones }).duration, new Router(graph).route({ points, zones }).duration);
    } finally {
      await cache.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('a script whose zone and matrix went to worker threads exits by itself once they are answered (workers are unref\'d when idle)', async () => {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const src = (p: string) => JSON.stringify(srcModule(p));
  const script = join(mkdtempSync(join(tmpdir(), 'detour-exit-')), 'script.mjs');
  writeFileSync(script, `
    import { loadGraph, DEFAULT_GRAPH_PATH, ZoneCalculator, validateZone } from ${src('index')};
    import { MatrixRunner } from ${src('routing/MatrixRunner')};
    const city = loadGraph(DEFAULT_GRAPH_PATH);
    const calculator = new ZoneCalculator(city, { workerThreshold: 0 });
    const zone = validateZone({ name: 'Haga', geometries: [{ name: 'c', vertices: [
      { latitude: 57.6965, longitude: 11.946 }, { latitude: 57.6965, longitude: 11.958 },
      { latitude: 57.7025, longitude: 11.958 }, { latitude: 57.7025, longitude: 11.946 }] }] });
    const done = await calculator.calculate(zone);
    const m = await new MatrixRunner(city).run({ origins: [{ latitude: 57.70887, longitude: 11.97456 }], destinations: [{ latitude: 57.69514, longitude: 11.99253 }] });
    console.log(done.status.name, done.roads.length > 0, m.distance[0] > 0);
  `);
  const r = spawnSync(process.execPath, [...SCRIPT_NODE_ARGS, script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.signal, null, 'the script was killed: it did not exit by itself');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'CALCULATED true true');
});

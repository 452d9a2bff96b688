import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  buildHierarchy, decodeGraph, DEFAULT_GRAPH_PATH, DetourError, encodeGraph, importGeoJson, loadGraph, matrixByRoutes, matrixElement, MAX_MATRIX_ELEMENTS,
  openGraph, Router, type CalculatedZone, type LatLon, type MatrixResult, type Metric, type RoadGraph,
} from '../src/index.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { buildCellOverlay } from '../src/hierarchy/CellOverlay.js';
import { close, dijkstra, GOTHENBURG_GEOJSON, randomZone, seededRandom, sharedExtract } from './support/helpers.js';

/** Points near random road points (some mid-road, some off the network by up to ~50 m). */
function randomPoints(graph: RoadGraph, rand: () => number, count: number): LatLon[] {
  return Array.from({ length: count }, () => {
    const r = Math.floor(rand() * graph.roadCount);
    return { latitude: graph.roadPointLat(r, 0) + (rand() - 0.5) * 8e-4, longitude: graph.roadPointLon(r, 0) + (rand() - 0.5) * 8e-4 };
  });
}


/**
 * The oracle for one element: plain Dijkstra between the pair's snapped endpoints (as a route
 * snaps them), over the roads no zone blocks, or the straight drive along a shared road.
 */
function oracleCost(graph: RoadGraph, router: Router, from: LatLon, to: LatLon, metric: Metric, blocked?: Uint8Array): number {
  const [a, b] = router.snapStops([from, to]);
  const viaGraph = dijkstra(graph, sourceEndpoints(graph, a, metric), targetEndpoints(graph, b, metric), metric, blocked);
  const direct = blocked?.[a.road] ? Infinity : directCost(graph, a, b, metric).cost;
  return Math.min(viaGraph, direct);
}

function union(graph: RoadGraph, zones: CalculatedZone[]): Uint8Array {
  const mask = new Uint8Array(graph.roadCount);
  for (const z of zones) for (const r of z.roads) mask[r] = 1;
  return mask;
}

/**
 * Every element of the fast matrix equals Router.route's (the reference, one route per pair) in
 * both values, and plain Dijkstra in the optimised one wherever no stop needs a zone. The other
 * metric may differ where two paths tie on the optimised one: at most 2 % of the elements.
 */
function checkMatrix(graph: RoadGraph, router: Router, origins: LatLon[], destinations: LatLon[], zones: CalculatedZone[]) {
  const blocked = zones.length > 0 ? union(graph, zones) : undefined;
  for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
    const metric: Metric = mode === 'THE_SHORTEST' ? 'distance' : 'duration';
    const fast = router.matrix({ origins, destinations, calculationMode: mode, zones });
    const reference = matrixByRoutes(router, { origins, destinations, calculationMode: mode, zones });
    let oracleChecks = 0, otherMetricTies = 0;
    for (let o = 0; o < origins.length; o++) {
      for (let d = 0; d < destinations.length; d++) {
        const got = matrixElement(fast, o, d), want = matrixElement(reference, o, d);
        const where = `${mode} origins[${o}] -> destinations[${d}]`;
        if (want.failure) {
          assert.equal(got.failure?.code, want.failure.code, `${where}: failure`);
          continue;
        }
        assert.ok(!got.failure, `${where}: ${got.failure?.message}`);
        const [gotMain, wantMain, gotOther, wantOther] = metric === 'distance'
          ? [got.distance!, want.distance, got.duration!, want.duration]
          : [got.duration!, want.duration, got.distance!, want.distance];
        assert.ok(close(gotMain, wantMain, 1e-9), `${where}: ${gotMain} vs route ${wantMain}`);
        if (!close(gotOther, wantOther, 1e-6)) otherMetricTies++;
        const [a, b] = router.snapStops([origins[o], destinations[d]]);
        if (!blocked || (!blocked[a.road] && !blocked[b.road])) {
          const oracle = oracleCost(graph, router, origins[o], destinations[d], metric, blocked);
          if (oracle < Infinity) {
            assert.ok(close(gotMain, oracle, 1e-9), `${where}: ${gotMain} vs Dijkstra ${oracle}`);
            oracleChecks++;
          }
        }
      }
    }
    const elements = origins.length * destinations.length;
    // Zones make some pairs unreachable without entering them (tree-like valleys in Andorra): those
    // are checked against the routes only.
    const wanted = zones.length === 0 ? elements / 2 : Math.min(10, elements / 4);
    assert.ok(oracleChecks >= wanted, `${mode}: ${oracleChecks} of ${elements} elements checked against Dijkstra`);
    assert.ok(otherMetricTies <= elements * 0.02, `${mode}: the other metric differs from the route's on ${otherMetricTies} of ${elements}`);
  }
}

describe('distance matrix', () => {
  const city = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(city);

  test('Gothenburg 15 x 15, free: every element equals Router.route and plain Dijkstra, both metrics', () => {
    const rand = seededRandom(11);
    checkMatrix(city, router, randomPoints(city, rand, 15), randomPoints(city, rand, 15), []);
  });

  test('Gothenburg 15 x 15 around 10 random zones, some stops inside them: equal to routes and to Dijkstra over the unblocked roads', () => {
    const rand = seededRandom(12);
    const zones = Array.from({ length: 10 }, (_, i) => randomZone(city, rand, `z${i}`, 300 + rand() * 700));
    const origins = randomPoints(city, rand, 15), destinations = randomPoints(city, rand, 15);
    // Two stops inside zones: their elements go through the zone like a route does.
    const inside = zones.filter((z) => z.roads.length > 0).slice(0, 2).map((z) => ({ latitude: city.roadPointLat(z.roads[0], 0), longitude: city.roadPointLon(z.roads[0], 0) }));
    origins[0] = inside[0];
    destinations[1] = inside[1];
    checkMatrix(city, router, origins, destinations, zones);
  });

  test('matrices around zones one after another (the same zones again, the other metric, fewer zones, the first again) each equal plain Dijkstra and a fresh router', () => {
    // A run around the same roads as the last one crosses the cells customized then: each must
    // still answer for its own zones and metric.
    const rand = seededRandom(15);
    const zones = Array.from({ length: 6 }, (_, i) => randomZone(city, rand, `m${i}`, 400 + rand() * 800));
    const fewer = zones.slice(0, 2);
    const origins = randomPoints(city, rand, 8), destinations = randomPoints(city, rand, 8);
    const runs: [CalculatedZone[], 'THE_FASTEST' | 'THE_SHORTEST'][] = [
      [zones, 'THE_FASTEST'], [zones, 'THE_FASTEST'], [zones, 'THE_SHORTEST'], [fewer, 'THE_FASTEST'], [zones, 'THE_FASTEST'], [[], 'THE_FASTEST'], [fewer, 'THE_FASTEST'],
    ];
    for (const [around, mode] of runs) {
      const metric: Metric = mode === 'THE_SHORTEST' ? 'distance' : 'duration';
      const blocked = union(city, around);
      const m = router.matrix({ origins, destinations, calculationMode: mode, zones: around });
      // A router that ran no matrix before: every element alike (one that must enter a zone included).
      const fresh = new Router(city).matrix({ origins, destinations, calculationMode: mode, zones: around });
      assert.deepEqual([...m.distance], [...fresh.distance], `${mode} around ${around.length} zones: distances as a fresh router's`);
      assert.deepEqual([...m.duration], [...fresh.duration], `${mode} around ${around.length} zones: durations as a fresh router's`);
      let checked = 0;
      for (let o = 0; o < origins.length; o++) {
        for (let d = 0; d < destinations.length; d++) {
          const [a, b] = router.snapStops([origins[o], destinations[d]]);
          if (blocked[a.road] || blocked[b.road]) continue;
          const want = oracleCost(city, router, origins[o], destinations[d], metric, blocked);
          const got = matrixElement(m, o, d);
          const value = metric === 'distance' ? got.distance : got.duration;
          if (want === Infinity) continue; // no path around the zones: the matrix enters them, as a route would
          assert.ok(close(value!, want, 1e-9), `${mode} ${around.length} zones [${o}, ${d}]: ${value} vs Dijkstra ${want}`);
          checked++;
        }
      }
      assert.ok(checked >= 32, `${checked} elements checked`);
    }
  });

  test('cells of 1,024 nodes in small cells of 64 (both overlay levels in play), around 8 zones, an origin and a destination inside zones: equal to routes and to Dijkstra', () => {
    const copy = decodeGraph(encodeGraph(city));
    copy.hierarchy!.overlay = buildCellOverlay(copy, 1024, 64);
    const rand = seededRandom(14);
    const zones = Array.from({ length: 8 }, (_, i) => randomZone(copy, rand, `s${i}`, 300 + rand() * 900));
    const copyRouter = new Router(copy);
    checkMatrix(copy, copyRouter, randomPoints(copy, rand, 14), randomPoints(copy, rand, 14), zones);
    // Every row and column must enter a zone for some element: 18 searches each way, enough that
    // the cells of the zones' roads are customized with the penalty rather than walked.
    const origins = randomPoints(copy, rand, 18), destinations = randomPoints(copy, rand, 18);
    const inside = zones.filter((z) => z.roads.length > 0).slice(0, 2).map((z) => ({ latitude: copy.roadPointLat(z.roads[0], 0), longitude: copy.roadPointLon(z.roads[0], 0) }));
    origins[0] = inside[0];
    destinations[1] = inside[1];
    checkMatrix(copy, copyRouter, origins, destinations, zones);
  });

  test('a forced uncontracted core (coreDegree 4): buckets and potentials still exact', () => {
    const copy = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')));
    buildHierarchy(copy, { coreDegree: 4 });
    const rand = seededRandom(13);
    const zones = Array.from({ length: 4 }, (_, i) => randomZone(copy, rand, `c${i}`, 500));
    const copyRouter = new Router(copy);
    checkMatrix(copy, copyRouter, randomPoints(copy, rand, 8), randomPoints(copy, rand, 8), []);
    checkMatrix(copy, copyRouter, randomPoints(copy, rand, 8), randomPoints(copy, rand, 8), zones);
  });

  for (const name of ['monaco.osm.pbf', 'andorra.osm.pbf', 'campo-grande.osm.gz']) {
    const data = sharedExtract(name);
    test(`${name}: 10 x 10, free and around 5 zones (turn restrictions included)`, { skip: data.skip }, async () => {
      const graph = await openGraph(data.path);
      buildHierarchy(graph);
      const rand = seededRandom(name.length);
      const extractRouter = new Router(graph);
      checkMatrix(graph, extractRouter, randomPoints(graph, rand, 10), randomPoints(graph, rand, 10), []);
      const zones = Array.from({ length: 5 }, (_, i) => randomZone(graph, rand, `e${i}`, 80 + rand() * 120));
      checkMatrix(graph, extractRouter, randomPoints(graph, rand, 10), randomPoints(graph, rand, 10), zones);
    });
  }

  test('a point far from every road fails its row only; an unconnected pair fails as ROUTE_NOT_FOUND; bad input throws', () => {
    const rand = seededRandom(14);
    const origins = [...randomPoints(city, rand, 3), { latitude: 0, longitude: 0 }];
    const destinations = randomPoints(city, rand, 4);
    const result: MatrixResult = router.matrix({ origins, destinations });
    for (let d = 0; d < 4; d++) {
      assert.equal(matrixElement(result, 3, d).failure?.code, 'POINT_NOT_ROUTABLE');
      assert.match(matrixElement(result, 3, d).failure!.message, /origins\[3\]/);
      assert.ok(Number.isNaN(result.distance[3 * 4 + d]));
    }
    for (let o = 0; o < 3; o++) for (let d = 0; d < 4; d++) assert.ok(!matrixElement(result, o, d).failure);

    // Every road but the origin's own blocked: only the straight drive along it remains.
    const [a] = router.snapStops([origins[0], destinations[0]]);
    const blockedRoads = new Uint8Array(city.roadCount).fill(1);
    blockedRoads[a.road] = 0;
    const cut = router.matrix({ origins: [origins[0]], destinations, blockedRoads });
    const cutReference = matrixByRoutes(router, { origins: [origins[0]], destinations, blockedRoads });
    for (let d = 0; d < 4; d++) {
      assert.equal(matrixElement(cut, 0, d).failure?.code, matrixElement(cutReference, 0, d).failure?.code);
      assert.equal(matrixElement(cut, 0, d).failure?.code, 'ROUTE_NOT_FOUND');
    }

    assert.throws(() => router.matrix({ origins: [{ latitude: 91, longitude: 0 }], destinations }), (e: unknown) => e instanceof DetourError && e.code === 'INVALID_COORDINATE');
    assert.throws(() => router.matrix({ origins, destinations, calculationMode: 'SLOWEST' as never }), (e: unknown) => e instanceof DetourError && e.code === 'INVALID_MODE');
    const empty = router.matrix({ origins: [], destinations });
    assert.equal(empty.distance.length, 0);
    // Past MAX_MATRIX_ELEMENTS: refused before any work, naming the limit (not an allocation failure).
    const side = Math.floor(Math.sqrt(MAX_MATRIX_ELEMENTS)) + 1;
    const many = Array.from({ length: side }, () => origins[0]);
    for (const compute of [() => router.matrix({ origins: many, destinations: many }), () => matrixByRoutes(router, { origins: many, destinations: many })]) {
      assert.throws(compute, (e: unknown) => e instanceof DetourError && e.code === 'INVALID_INPUT' && e.message.includes(String(MAX_MATRIX_ELEMENTS)));
    }
    assert.equal(router.matrix({ origins: many.slice(0, side - 1), destinations: destinations.slice(0, 1) }).distance.length, side - 1);
  });

  test('progress is reported up to the total', () => {
    const rand = seededRandom(15);
    const seen: number[] = [];
    const zones = [randomZone(city, rand, 'p', 600)];
    router.matrix({ origins: randomPoints(city, rand, 3), destinations: randomPoints(city, rand, 5), zones, onProgress: (done, total) => seen.push(done / total) });
    assert.equal(seen.at(-1), 1);
    assert.ok(seen.every((x, i) => i === 0 || x >= seen[i - 1]));
  });
});

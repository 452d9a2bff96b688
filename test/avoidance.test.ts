/**
 * Avoidance options (avoidanceTypes, avoidanceBehavior) against plain Dijkstra over the default
 * city (Gothenburg: tunnels, bridges, unpaved roads), with and without restriction zones; a
 * hand-made OSM fixture for toll gates, toll roads, unpaved roads and a car ferry; the Trip API
 * and the CLI.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AVOIDANCE_FLAGS, DEFAULT_GRAPH_PATH, DetourError, loadGraph, RELAXED_EXTRA_PER_METRE, RoadFlag, Router, STRONG_COST_PER_METRE,
  type AvoidanceBehavior, type AvoidanceType, type CalculatedZone, type LatLon, type Metric, type Route, type RoadGraph,
} from '../src/index.js';
import { importOsmWithSummary } from '../src/graph/importOsm.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { CLI, close, dijkstra, randomZone, seededRandom, sharedExtract } from './support/helpers.js';
import { authorise, http, listen, newClient, sqliteKind, TRIP_PATH, type TestService } from './support/service.js';
import type { Store } from '../src/store/Store.js';

const city = loadGraph(DEFAULT_GRAPH_PATH);
const router = new Router(city);
const MODES = [['THE_FASTEST', 'duration'], ['THE_SHORTEST', 'distance']] as const;

/** Per road: 1 when it carries any of the types' flags (written from the flags, not from detour's lists). */
function typeMask(graph: RoadGraph, types: AvoidanceType[], base?: Uint8Array): Uint8Array {
  const mask = base ? Uint8Array.from(base) : new Uint8Array(graph.roadCount);
  const bits = types.reduce((f, t) => f | AVOIDANCE_FLAGS[t], 0);
  for (let r = 0; r < graph.roadCount; r++) if (graph.roadFlags[r] & bits) mask[r] = 1;
  return mask;
}

function zoneMask(graph: RoadGraph, zones: CalculatedZone[]): Uint8Array {
  const mask = new Uint8Array(graph.roadCount);
  for (const z of zones) for (const r of z.roads) mask[r] = 1;
  return mask;
}

/**
 * Plain Dijkstra between the stops as a route snaps them: over the roads `blocked` leaves open,
 * each metre on a road of `penalised` costing `perMetre` more; or along their shared road.
 */
function oracle(points: LatLon[], metric: Metric, blocked?: Uint8Array, penalised?: Uint8Array, perMetre = 0, on = router): number {
  const city = on.graph;
  const [a, b] = on.snapStops(points);
  const penalty = penalised && { roads: penalised, costPerMetre: Float64Array.of(0, perMetre) };
  const viaGraph = dijkstra(city, sourceEndpoints(city, a, metric, penalty), targetEndpoints(city, b, metric, penalty), metric, blocked, penalty);
  const direct = blocked?.[a.road] ? Infinity : directCost(city, a, b, metric, penalty).cost;
  return Math.min(viaGraph, direct);
}

const cost = (route: Route, metric: Metric) => (metric === 'distance' ? route.distance : route.duration);
const drivenOn = (route: Route, type: AvoidanceType) =>
  route.legs.reduce((s, l) => s + (l.avoidedTypesDriven?.find((d) => d.type === type)?.metres ?? 0), 0);

function attempt(points: LatLon[], mode: 'THE_FASTEST' | 'THE_SHORTEST', types: AvoidanceType[], behavior: AvoidanceBehavior, zones: CalculatedZone[] = []): Route | DetourError {
  try {
    return router.route({ points, calculationMode: mode, avoidanceTypes: types, avoidanceBehavior: behavior, zones });
  } catch (err) {
    if (err instanceof DetourError) return err;
    throw err;
  }
}

function randomPairs(seed: number, count: number): LatLon[][] {
  const rand = seededRandom(seed);
  const at = () => {
    const r = Math.floor(rand() * city.roadCount);
    return { latitude: city.roadPointLat(r, 0) + (rand() - 0.5) * 4e-4, longitude: city.roadPointLon(r, 0) + (rand() - 0.5) * 4e-4 };
  };
  return Array.from({ length: count }, () => [at(), at()]);
}

test('the default city has roads of the types the oracle tests avoid', () => {
  for (const bit of [RoadFlag.TUNNEL, RoadFlag.BRIDGE, RoadFlag.UNPAVED]) {
    assert.ok(city.roadFlags.some((f) => (f & bit) !== 0), `no road with flag ${bit}`);
  }
});

test('FAIL: the route equals plain Dijkstra without the avoided roads, or fails naming the leg and types', () => {
  let routed = 0, failed = 0;
  const pairs = randomPairs(101, 80);
  pairs.forEach((points, i) => {
    const types: AvoidanceType[] = i % 3 === 0 ? ['TUNNELS', 'BRIDGES'] : i % 3 === 1 ? ['TUNNELS'] : ['BRIDGES', 'UNPAVED'];
    const blocked = typeMask(city, types);
    const [a, b] = router.snapStops(points);
    for (const [mode, metric] of MODES) {
      const got = attempt(points, mode, types, 'FAIL');
      const want = blocked[a.road] || blocked[b.road] ? Infinity : oracle(points, metric, blocked);
      if (want === Infinity) {
        assert.ok(got instanceof DetourError, `pair ${i} ${mode}: a route although Dijkstra finds none without ${types}`);
        const routable = oracle(points, metric) < Infinity;
        assert.equal(got.code, routable ? 'AVOIDANCE_IMPOSSIBLE' : 'ROUTE_NOT_FOUND', got.message);
        if (!routable) continue;
        assert.equal(got.details?.leg, 0);
        assert.ok((got.details?.avoidanceTypes as string[]).every((t) => types.includes(t as AvoidanceType)));
        failed++;
      } else {
        assert.ok(!(got instanceof DetourError), `pair ${i} ${mode}: ${(got as Error).message}`);
        assert.ok(close(cost(got, metric), want, 1e-9), `pair ${i} ${mode}: ${cost(got, metric)} vs Dijkstra ${want}`);
        assert.equal(got.legs[0].avoidedTypesDriven, undefined);
        routed++;
      }
    }
  });
  assert.ok(routed > 40 && failed > 20, `routed ${routed}, failed ${failed}: both cases must be exercised`);
});

test('STRONG and RELAXED: metric plus the per-metre cost of avoided metres equals penalised Dijkstra', () => {
  let strongDriven = 0, relaxedDetours = 0;
  const rand = seededRandom(203);
  randomPairs(202, 60).forEach((points, i) => {
    const type: AvoidanceType = i % 2 === 0 ? 'BRIDGES' : 'TUNNELS';
    const mask = typeMask(city, [type]);
    // Every third pair starts or ends half-way along a road of the type (partial metres at the ends count).
    if (i % 3 === 0) {
      const roads = [...mask.keys()].filter((r) => mask[r]);
      const r = roads[Math.floor(rand() * roads.length)];
      const n = city.roadPointCount(r);
      const mid = n > 2 ? { latitude: city.roadPointLat(r, n >> 1), longitude: city.roadPointLon(r, n >> 1) }
        : { latitude: (city.roadPointLat(r, 0) + city.roadPointLat(r, 1)) / 2, longitude: (city.roadPointLon(r, 0) + city.roadPointLon(r, 1)) / 2 };
      points[i % 2] = mid;
    }
    const [a, b] = router.snapStops(points);
    for (const [mode, metric] of MODES) {
      const strong = attempt(points, mode, [type], 'STRONG');
      assert.ok(!(strong instanceof DetourError), `pair ${i} ${mode}: ${(strong as Error).message}`);
      const avoidable = !mask[a.road] && !mask[b.road] && oracle(points, metric, mask) < Infinity;
      if (avoidable) {
        assert.ok(close(cost(strong, metric), oracle(points, metric, mask), 1e-9), `pair ${i} ${mode} STRONG avoidable`);
        assert.equal(drivenOn(strong, type), 0);
      } else {
        const want = oracle(points, metric, undefined, mask, STRONG_COST_PER_METRE);
        const got = cost(strong, metric) + STRONG_COST_PER_METRE * drivenOn(strong, type);
        assert.ok(close(got, want, 1e-7), `pair ${i} ${mode} STRONG: ${got} vs penalised Dijkstra ${want}`);
        if (drivenOn(strong, type) > 0) strongDriven++;
      }
      const relaxed = attempt(points, mode, [type], 'RELAXED');
      assert.ok(!(relaxed instanceof DetourError), `pair ${i} ${mode}: ${(relaxed as Error).message}`);
      const extra = RELAXED_EXTRA_PER_METRE[metric];
      const want = oracle(points, metric, undefined, mask, extra);
      const got = cost(relaxed, metric) + extra * drivenOn(relaxed, type);
      assert.ok(close(got, want, 1e-7), `pair ${i} ${mode} RELAXED: ${got} vs penalised Dijkstra ${want}`);
      const free = router.route({ points, calculationMode: mode });
      if (cost(relaxed, metric) > cost(free, metric) + 1e-6) relaxedDetours++;
      assert.ok(cost(relaxed, metric) >= cost(free, metric) - 1e-6 * cost(free, metric));
    }
  });
  assert.ok(strongDriven > 5 && relaxedDetours > 5, `STRONG drove avoided roads ${strongDriven} times, RELAXED detoured ${relaxedDetours} times`);
});

test('avoidance combines with restriction zones: neither zone nor avoided roads, as plain Dijkstra', () => {
  const rand = seededRandom(303);
  let checked = 0;
  for (let round = 0; round < 8; round++) {
    const zones = Array.from({ length: 4 }, (_, k) => randomZone(city, rand, `z${round}-${k}`, 300 + rand() * 600));
    const zoned = zoneMask(city, zones);
    for (const points of randomPairs(400 + round, 8)) {
      const [a, b] = router.snapStops(points);
      if (zoned[a.road] || zoned[b.road]) continue;
      for (const [mode, metric] of MODES) {
        const types: AvoidanceType[] = ['TUNNELS'];
        const avoided = typeMask(city, types);
        const blocked = typeMask(city, types, zoned);
        const fail = attempt(points, mode, types, 'FAIL', zones);
        const want = avoided[a.road] || avoided[b.road] ? Infinity : oracle(points, metric, blocked);
        if (want < Infinity) {
          assert.ok(!(fail instanceof DetourError), (fail as Error).message);
          assert.ok(close(cost(fail, metric), want, 1e-9), `round ${round} ${mode} FAIL: ${cost(fail, metric)} vs ${want}`);
          checked++;
        } else if (!(fail instanceof DetourError)) {
          // No way around both: only entering a zone may make the leg, never a tunnel.
          assert.ok(fail.legs[0].zonesEntered !== undefined && fail.legs[0].avoidedTypesDriven === undefined);
        }
        // STRONG may search with per-metre costs for bridges alone: zones are reported only when entered.
        const strong = attempt(points, mode, ['BRIDGES'], 'STRONG', zones);
        if (!(strong instanceof DetourError) && strong.legs[0].zonesEntered !== undefined) {
          assert.ok(strong.legs[0].zonesEntered.length > 0, `round ${round} ${mode} STRONG: an empty zonesEntered`);
        }
        const relaxed = attempt(points, mode, types, 'RELAXED', zones);
        const relaxedWant = oracle(points, metric, zoned, avoided, RELAXED_EXTRA_PER_METRE[metric]);
        if (relaxedWant < Infinity) {
          assert.ok(!(relaxed instanceof DetourError), (relaxed as Error).message);
          const got = cost(relaxed, metric) + RELAXED_EXTRA_PER_METRE[metric] * drivenOn(relaxed, 'TUNNELS');
          assert.ok(close(got, relaxedWant, 1e-7), `round ${round} ${mode} RELAXED: ${got} vs ${relaxedWant}`);
        }
      }
    }
  }
  assert.ok(checked > 40, `only ${checked} checks`);
});

/** Real extracts: Monaco's toll motorway and toll booths, Campo Grande's unpaved streets. */
for (const [file, format, types] of [
  ['monaco.osm.pbf', 'pbf', ['TOLL_ROADS', 'TOLL_GATES']],
  ['campo-grande.osm.gz', 'xml.gz', ['UNPAVED']],
] as const) {
  const extract = sharedExtract(file);
  test(`${file}: FAIL avoiding ${types.join(', ')} equals plain Dijkstra without those roads`, { skip: extract.skip }, async () => {
    const { graph } = await importOsmWithSummary(extract.path, format);
    const on = new Router(graph);
    for (const t of types) assert.ok(graph.roadFlags.some((f) => (f & AVOIDANCE_FLAGS[t]) !== 0), `${file} has no ${t} road`);
    const rand = seededRandom(77);
    const blockedAll = typeMask(graph, [...types]);
    let routed = 0, changed = 0;
    // 40 pairs; on Monaco more (up to 400) until one has to leave the toll motorway, so the check is not vacuous.
    for (let i = 0; i < 40 || (file === 'monaco.osm.pbf' && changed === 0 && i < 400); i++) {
      const type = types[i % types.length];
      const blocked = typeMask(graph, [type]);
      const at = () => { const r = Math.floor(rand() * graph.roadCount); return { latitude: graph.roadPointLat(r, 0), longitude: graph.roadPointLon(r, 0) }; };
      const points = [at(), at()];
      const [a, b] = on.snapStops(points);
      if (blocked[a.road] || blocked[b.road]) continue;
      for (const [mode, metric] of MODES) {
        const want = oracle(points, metric, blocked, undefined, 0, on);
        let got: Route | DetourError;
        try { got = on.route({ points, calculationMode: mode, avoidanceTypes: [type] }); } catch (err) { got = err as DetourError; }
        if (want === Infinity) {
          assert.ok(got instanceof DetourError, `${file} pair ${i} ${mode}: routed although Dijkstra cannot`);
          continue;
        }
        assert.ok(!(got instanceof DetourError), `${file} pair ${i} ${mode}: ${(got as Error).message}`);
        assert.ok(close(cost(got, metric), want, 1e-9), `${file} pair ${i} ${mode}: ${cost(got, metric)} vs Dijkstra ${want}`);
        assert.ok(got.legs[0].edges.every((e) => !blockedAll[graph.edgeRoad[e]] || !(graph.roadFlags[graph.edgeRoad[e]] & AVOIDANCE_FLAGS[type])));
        routed++;
        if (cost(got, metric) > oracle(points, metric, undefined, undefined, 0, on) + 1e-6) changed++;
      }
    }
    assert.ok(routed >= 30, `only ${routed} routes checked`);
    if (file === 'monaco.osm.pbf') assert.ok(changed > 0, 'no route had to leave the toll motorway');
  });
}

test('matrix with avoidanceTypes (FAIL): every element equals Router.route, failures and their codes included', () => {
  const rand = seededRandom(909);
  const at = (): LatLon => { const r = Math.floor(rand() * city.roadCount); return { latitude: city.roadPointLat(r, 0), longitude: city.roadPointLon(r, 0) }; };
  const origins = Array.from({ length: 14 }, at), destinations = Array.from({ length: 14 }, at);
  // A stop in the middle of a tunnel fails its row.
  const tunnel = typeMask(city, ['TUNNELS']).findIndex((x) => x === 1);
  origins.push({ latitude: (city.roadPointLat(tunnel, 0) + city.roadPointLat(tunnel, 1)) / 2, longitude: (city.roadPointLon(tunnel, 0) + city.roadPointLon(tunnel, 1)) / 2 });
  const zones = [randomZone(city, rand, 'm0', 600), randomZone(city, rand, 'm1', 900)];
  const codes = new Map<string, number>();
  for (const z of [[], zones]) {
    for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      const types: AvoidanceType[] = ['TUNNELS', 'UNPAVED'];
      const fast = router.matrix({ origins, destinations, calculationMode: mode, zones: z, avoidanceTypes: types });
      for (let o = 0; o < origins.length; o++) {
        for (let d = 0; d < destinations.length; d++) {
          const got = fast.failures.get(o * destinations.length + d);
          const want = attempt([origins[o], destinations[d]], mode, types, 'FAIL', z);
          const where = `${mode} zones ${z.length} origins[${o}] -> destinations[${d}]`;
          if (want instanceof DetourError) {
            assert.equal(got?.code, want.code, `${where}: ${got?.message} vs ${want.message}`);
            codes.set(want.code, (codes.get(want.code) ?? 0) + 1);
            continue;
          }
          assert.equal(got, undefined, `${where}: ${got?.message}`);
          const value = mode === 'THE_SHORTEST' ? fast.distance[o * destinations.length + d] : fast.duration[o * destinations.length + d];
          assert.ok(close(value, cost(want, mode === 'THE_SHORTEST' ? 'distance' : 'duration'), 1e-9), `${where}: ${value} vs route`);
        }
      }
    }
  }
  assert.ok((codes.get('AVOIDANCE_IMPOSSIBLE') ?? 0) >= destinations.length, `failures: ${JSON.stringify([...codes])}`);
  assert.throws(() => router.matrix({ origins, destinations, avoidanceTypes: ['TUNNELS'], avoidanceBehavior: 'STRONG' }), /FAIL only/);
});

test('bad avoidance options are refused with the field named', () => {
  const points = randomPairs(5, 1)[0];
  const code = (f: () => unknown) => {
    try { f(); } catch (err) { return [(err as DetourError).code, (err as DetourError).details?.field]; }
    return undefined;
  };
  assert.deepEqual(code(() => router.route({ points, avoidanceTypes: ['FRONTIERS' as AvoidanceType] })), ['AVOIDANCE_TYPE_UNSUPPORTED', 'avoidanceTypes[0]']);
  assert.deepEqual(code(() => router.route({ points, avoidanceTypes: ['TUNNELS', 'CASTLES' as AvoidanceType] })), ['INVALID_AVOIDANCE', 'avoidanceTypes[1]']);
  assert.deepEqual(code(() => router.route({ points, avoidanceTypes: ['TUNNELS'], avoidanceBehavior: 'SOMETIMES' as AvoidanceBehavior })), ['INVALID_AVOIDANCE', 'avoidanceBehavior']);
});

/**
 * A hand-made network: from a stub road (0-1) west (1) to east (3) by a toll road through a toll booth (node 2, the
 * shortest), by a gravel road (via 4), by a car ferry (via 5), and by a long paved detour (via 6, 7).
 */
const FIXTURE = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  <node id="0" lat="0" lon="-0.01"/>
  <node id="1" lat="0" lon="0"/>
  <node id="2" lat="0" lon="0.01"><tag k="barrier" v="toll_booth"/></node>
  <node id="3" lat="0" lon="0.02"/>
  <node id="4" lat="0.004" lon="0.01"/>
  <node id="5" lat="-0.004" lon="0.01"/>
  <node id="6" lat="0.03" lon="0"/>
  <node id="7" lat="0.03" lon="0.02"/>
  <node id="8" lat="0" lon="0.03"/>
  <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="primary"/><tag k="toll" v="yes"/></way>
  <way id="11"><nd ref="1"/><nd ref="4"/><nd ref="3"/><tag k="highway" v="primary"/><tag k="surface" v="gravel"/></way>
  <way id="12"><nd ref="1"/><nd ref="5"/><nd ref="3"/><tag k="route" v="ferry"/><tag k="motorcar" v="yes"/></way>
  <way id="13"><nd ref="1"/><nd ref="6"/><nd ref="7"/><nd ref="3"/><tag k="highway" v="residential"/></way>
  <way id="9"><nd ref="0"/><nd ref="1"/><tag k="highway" v="residential"/></way>
  <way id="14"><nd ref="3"/><nd ref="8"/><tag k="highway" v="residential"/></way>
</osm>
`;

describe('toll gates, toll roads, unpaved roads and ferries on a hand-made network', () => {
  let graph: RoadGraph;
  let fixtureRouter: Router;
  const points = [{ latitude: 0.0001, longitude: -0.005 }, { latitude: 0.0001, longitude: 0.029 }];
  const roadsVia = (route: Route) => route.legs[0].edges.map((e) => graph.roadFlags[graph.edgeRoad[e]]);

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'detour-avoid-'));
    writeFileSync(join(dir, 'toll.osm'), FIXTURE);
    const { graph: g, summary } = await importOsmWithSummary(join(dir, 'toll.osm'), 'xml');
    assert.equal(summary.barriers.tollBooths, 1);
    graph = g;
    fixtureRouter = new Router(graph);
  });

  test('only the road through the toll booth is a toll gate; surface and ferry tags become flags', () => {
    const byFlag = (bit: number) => [...Array(graph.roadCount).keys()].filter((r) => graph.roadFlags[r] & bit).length;
    assert.equal(byFlag(RoadFlag.TOLL_GATE), 1);
    assert.equal(byFlag(RoadFlag.TOLL), 1);
    assert.equal(byFlag(RoadFlag.UNPAVED), 1);
    assert.equal(byFlag(RoadFlag.FERRY), 1);
    for (let r = 0; r < graph.roadCount; r++) {
      if (graph.roadFlags[r] & RoadFlag.TOLL_GATE) assert.ok(graph.roadFlags[r] & RoadFlag.TOLL, 'the toll gate is on the toll road');
    }
  });

  test('each type is avoided in turn, and FAIL/STRONG when none can be', () => {
    const flagsOf = (types: AvoidanceType[]) => roadsVia(fixtureRouter.route({ points, calculationMode: 'THE_SHORTEST', avoidanceTypes: types }));
    assert.ok(flagsOf([]).some((f) => f & RoadFlag.TOLL_GATE), 'the free route pays the toll');
    for (const only of ['TOLL_GATES', 'TOLL_ROADS'] as const) {
      const f = flagsOf([only]);
      assert.ok(f.every((x) => !(x & RoadFlag.TOLL)) && f.some((x) => x & RoadFlag.UNPAVED), `${only}: takes the gravel road`);
    }
    const noGravel = flagsOf(['TOLL_GATES', 'UNPAVED']);
    assert.ok(noGravel.some((x) => x & RoadFlag.FERRY), 'then the ferry');
    const noFerry = flagsOf(['TOLL_GATES', 'UNPAVED', 'FERRIES']);
    assert.ok(noFerry.every((x) => !(x & (RoadFlag.FERRY | RoadFlag.UNPAVED | RoadFlag.TOLL))), 'then the long way round');

    // The last stop is on the toll road itself: FAIL refuses, STRONG drives only what it must.
    const onToll = [points[0], { latitude: 0.0001, longitude: 0.015 }];
    assert.throws(() => fixtureRouter.route({ points: onToll, avoidanceTypes: ['TOLL_ROADS'] }), (err: DetourError) =>
      err.code === 'AVOIDANCE_IMPOSSIBLE' && err.details?.leg === 0 && /points\[1\]/.test(err.message));
    const strong = fixtureRouter.route({ points: onToll, calculationMode: 'THE_SHORTEST', avoidanceTypes: ['TOLL_ROADS'], avoidanceBehavior: 'STRONG' });
    const driven = strong.legs[0].avoidedTypesDriven?.find((d) => d.type === 'TOLL_ROADS')?.metres ?? 0;
    // Entering from the east end (via the gravel road) drives ~555 m of toll road, from the west ~1,670 m.
    assert.ok(driven > 400 && driven < 700, `drove ${driven} m of toll road`);
  });
});

describe('avoidance through the Trip API and the CLI', () => {
  let store: Store;
  let svc: TestService;
  let headers: Record<string, string>;
  // A pair whose every route crosses a bridge (found with the library, checked over HTTP).
  const pair = randomPairs(606, 200).find((p) => attempt(p, 'THE_FASTEST', ['BRIDGES'], 'FAIL') instanceof DetourError
    && !((attempt(p, 'THE_FASTEST', [], 'FAIL') as Route) instanceof DetourError))!;

  before(async () => {
    store = await sqliteKind().open();
    svc = await listen(city, store);
    headers = (await authorise(svc.url, await newClient(store))).headers;
  });
  after(async () => {
    await svc.close();
    await store.close();
  });

  test('FAIL answers 422 naming the leg; STRONG routes and reports the metres; bad types are 400', async () => {
    assert.ok(pair, 'no pair needs a bridge');
    const trip = (body: Record<string, unknown>) => http(`${svc.url}${TRIP_PATH}`, { json: { points: pair, ...body }, headers });
    const fail = await trip({ avoidanceTypes: ['BRIDGES'] });
    assert.equal(fail.status, 422, fail.text);
    assert.equal(fail.body.code, 'AVOIDANCE_IMPOSSIBLE');
    assert.equal(fail.body.leg, 0);
    assert.deepEqual(fail.body.avoidanceTypes, ['BRIDGES']);
    const strong = await trip({ avoidanceTypes: ['BRIDGES'], avoidanceBehavior: 'STRONG' });
    assert.equal(strong.status, 201, strong.text);
    const lib = router.route({ points: pair, avoidanceTypes: ['BRIDGES'], avoidanceBehavior: 'STRONG' });
    assert.equal(strong.body.totalDistance, Math.round(lib.distance));
    assert.deepEqual(strong.body.legs[0].avoidedTypesDriven, [{ type: 'BRIDGES', distance: Math.round(drivenOn(lib, 'BRIDGES')) }]);
    const frontiers = await trip({ avoidanceTypes: ['FRONTIERS'] });
    assert.equal(frontiers.status, 400);
    assert.deepEqual([frontiers.body.code, frontiers.body.members], ['UNSUPPORTED_FEATURE', ['avoidanceTypes']]);
    const unknown = await trip({ avoidanceTypes: ['CASTLES'] });
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /avoidanceTypes/);
    const behavior = await trip({ avoidanceTypes: ['BRIDGES'], avoidanceBehavior: 'MAYBE' });
    assert.equal(behavior.status, 400);
    assert.match(behavior.text, /avoidanceBehavior/);
  });

  test('the Matrix API takes avoidanceTypes (FAIL only): an element that needs a bridge fails with AVOIDANCE_IMPOSSIBLE', async () => {
    const sites = (tag: string) => pair.map((p, i) => ({ siteId: `${tag}${i}`, ...p }));
    const matrix = (body: Record<string, unknown>) => http(`${svc.url}/matrix/v1/calculations`, { json: { origins: sites('o'), destinations: sites('d'), ...body }, headers });
    const res = await matrix({ avoidanceTypes: ['BRIDGES'] });
    assert.equal(res.status, 200, res.text);
    const element = res.body.elements.find((e: { origin: string; destination: string }) => e.origin === 'o0' && e.destination === 'd1');
    assert.equal(element.error?.code, 'AVOIDANCE_IMPOSSIBLE');
    const free = await matrix({});
    assert.equal(free.body.elements.find((e: { origin: string; destination: string }) => e.origin === 'o0' && e.destination === 'd1').error, undefined);
    const frontiers = (await matrix({ avoidanceTypes: ['FRONTIERS'] })).body;
    assert.deepEqual([frontiers.code, frontiers.errors[0].path], ['UNSUPPORTED_FEATURE', 'avoidanceTypes[0]']);
    assert.equal((await matrix({ avoidanceTypes: ['BRIDGES'], avoidanceBehavior: 'STRONG' })).status, 400);
  });

  test('detour route --avoid-types --avoidance-behavior', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'route', '--from', `${pair[0].latitude},${pair[0].longitude}`,
      '--to', `${pair[1].latitude},${pair[1].longitude}`, ...args], { encoding: 'utf8', timeout: 120_000 });
    const strong = run('--avoid-types', 'bridges,tunnels', '--avoidance-behavior', 'strong');
    assert.equal(strong.status, 0, strong.stderr);
    const out = JSON.parse(strong.stdout);
    const lib = router.route({ points: pair, avoidanceTypes: ['BRIDGES', 'TUNNELS'], avoidanceBehavior: 'STRONG' });
    assert.ok(Math.abs(out.distance - lib.distance) < 0.1);
    assert.ok(out.legs[0].avoidedTypesDriven.some((d: { type: string }) => d.type === 'BRIDGES'));
    const fail = run('--avoid-types', 'bridges');
    assert.notEqual(fail.status, 0);
    assert.match(fail.stderr, /AVOIDANCE_IMPOSSIBLE|avoids BRIDGES/);
    const bad = run('--avoid-types', 'frontiers');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /country borders/);
  });
});

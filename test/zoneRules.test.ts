import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone, vehicleOf,
  type CalculatedZone, type LatLon, type Route, type Vehicle,
} from '../src/index.js';
import { zoneAppliesTo } from '../src/routing/vehicle.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { ZONE_COST_PER_METRE } from '../src/routing/PathSearch.js';
import type { Metric } from '../src/graph/RoadGraph.js';
import type { RouteRequest } from '../src/routing/routeRequest.js';
import type { Store } from '../src/store/Store.js';
import { close, dijkstra, randomZone, seededRandom, square, zoneIssuePaths } from './support/helpers.js';
import {
  authorise, http, listen, newClient, postgresKind, postgresSkipReason, sqliteKind, TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';

/**
 * A zone's rules. `vehicles`: checked member by member, kept by both stores and answered by GET,
 * and applied to exactly the vehicles it names: their routes and matrices equal those around the
 * same zone without a rule; every other vehicle's equal those without the zone. `avoidance` SOFT:
 * routes minimise their cost plus the zones' cost per metre of their roads, checked against a plain
 * Dijkstra charging the same, with HARD zones and stops inside them too.
 */

// Asked before any test runs: the routing tests below hold the event loop for seconds.
const pgSkip = (await postgresSkipReason()) ?? false;


test('a zone\'s vehicles rule: types and minimums, each bad member named', () => {
  const geometries = [{ vertices: square(57.7, 11.97, 0.005) }];
  assert.deepEqual(validateZone({ name: 'z', geometries, vehicles: { types: ['TRUCK_WITH_TWO_DOUBLE_AXLES', 'TRUCK_WITH_TWO_DOUBLE_AXLES'], minWeight: 10 } }).vehicles,
    { types: ['TRUCK_WITH_TWO_DOUBLE_AXLES'], minWeight: 10 });
  assert.equal(validateZone({ name: 'z', geometries, vehicles: null }).vehicles, undefined);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, vehicles: { types: ['SPACESHIP', 'CAR'], minWeight: -1, minAxles: '3', color: 'red' } }),
    ['vehicles.types[0]', 'vehicles.minWeight', 'vehicles.minAxles', 'vehicles.color']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, vehicles: {} }), ['vehicles']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, vehicles: ['CAR'] }), ['vehicles']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, vehicles: { types: [] } }), ['vehicles.types']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, vehicles: { minLength: 1000 } }), ['vehicles.minLength']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, vehicles: JSON.parse('{"toString": 3, "__proto__": 2}') }), ['vehicles.toString', 'vehicles.__proto__']);
});

test('which vehicles a rule takes in: listed types, figures at or above a minimum, axles of the type; a request without a vehicle is a car', () => {
  const vuc = vehicleOf('TRUCK_WITH_TWO_SINGLE_AXIS')!; // 12 t, 7.2 m, 2 axles
  const heavy = vehicleOf('TRUCK_WITH_THREE_DOUBLE_AXLES')!; // 23 t, 14 m, 3 axles
  const custom = vehicleOf(null, { maxWeight: 20_000 })!;
  const cases: Array<[Parameters<typeof zoneAppliesTo>[0], Array<Vehicle | undefined>, boolean[]]> = [
    [undefined, [undefined, vuc, heavy, custom], [true, true, true, true]],
    [{ types: ['TRUCK_WITH_THREE_DOUBLE_AXLES'] }, [undefined, vuc, heavy, custom], [false, false, true, false]],
    [{ types: ['CAR'] }, [undefined, vehicleOf('CAR'), vuc], [true, true, false]],
    [{ minWeight: 12.5 }, [undefined, vuc, heavy, custom], [false, false, true, true]],
    [{ minWeight: 12 }, [vuc], [true]],
    [{ minLength: 7.5 }, [vuc, heavy, custom], [false, true, false]],
    [{ minAxles: 3 }, [vuc, heavy, custom], [false, true, false]],
    [{ types: ['TRUCK_WITH_TWO_SINGLE_AXIS'], minWeight: 40 }, [vuc, heavy], [true, false]],
  ];
  for (const [rule, vehicles, want] of cases) {
    assert.deepEqual(vehicles.map((v) => zoneAppliesTo(rule, v)), want, JSON.stringify(rule));
  }
});

describe('routes and matrices around a zone for heavy trucks only', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const vuc = vehicleOf('TRUCK_WITH_TWO_SINGLE_AXIS')!;
  const outcome = (r: () => Route) => { try { return r().distance; } catch (e) { return (e as { code?: string }).code; } };

  test('the trucks it names go around it exactly as around the zone for all; others drive as if it were not there', () => {
    const rand = seededRandom(4242);
    let differ = 0;
    for (let k = 0; k < 40; k++) {
      const [a, b] = [0, 1].map((): LatLon => { const r = Math.floor(rand() * graph.roadCount); return { latitude: graph.roadPointLat(r, 0), longitude: graph.roadPointLon(r, 0) }; });
      const mid = { latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2 };
      const geometries = [{ name: 'g', vertices: square(mid.latitude, mid.longitude, 0.004) }];
      const forAll = calculateZone(graph, validateZone({ name: 'all', geometries }));
      const forHeavy: CalculatedZone = calculateZone(graph, validateZone({ name: 'heavy', geometries, vehicles: { minWeight: 13 } }));
      for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
        const points = [a, b];
        // The heavy truck: as around the zone for every vehicle.
        assert.deepEqual(outcome(() => router.route({ points, calculationMode: mode, vehicle: truck, zones: [forHeavy] })),
          outcome(() => router.route({ points, calculationMode: mode, vehicle: truck, zones: [forAll] })));
        // The VUC (12 t) and a car: as without the zone.
        for (const vehicle of [vuc, undefined]) {
          const without = outcome(() => router.route({ points, calculationMode: mode, vehicle }));
          assert.deepEqual(outcome(() => router.route({ points, calculationMode: mode, vehicle, zones: [forHeavy] })), without);
          if (without !== outcome(() => router.route({ points, calculationMode: mode, vehicle, zones: [forAll] }))) differ++;
        }
      }
    }
    assert.ok(differ > 5, `${differ} routes the zone would have changed`);
  });

  test('a matrix for a vehicle applies the zones that take it in, element by element as routes', () => {
    const v = (latitude: number, longitude: number) => ({ latitude, longitude });
    const origins = [v(57.7055, 11.95), v(57.69, 11.93)], destinations = [v(57.7055, 11.985), v(57.72, 11.99)];
    const zone = calculateZone(graph, validateZone({ name: 'c', geometries: [{ vertices: square(57.705, 11.9675, 0.006) }], vehicles: { types: ['TRUCK_WITH_TWO_DOUBLE_AXLES'] } }));
    for (const vehicle of [truck, vuc, undefined]) {
      const m = router.matrix({ origins, destinations, zones: [zone], vehicle });
      origins.forEach((o, i) => destinations.forEach((d, j) => {
        const route = router.route({ points: [o, d], zones: [zone], vehicle }).distance;
        assert.ok(close(m.distance[i * destinations.length + j], route), `${m.distance[i * destinations.length + j]} vs ${route}`);
      }));
    }
    const forTruck = router.matrix({ origins, destinations, zones: [zone], vehicle: truck });
    const forCar = router.matrix({ origins, destinations, zones: [zone] });
    assert.ok(forTruck.distance.some((x, i) => x > forCar.distance[i]), 'the truck goes around, the car does not');
  });
});

test('a zone\'s avoidance rule: HARD, or SOFT with a cost per km; each bad member named', () => {
  const geometries = [{ vertices: square(57.7, 11.97, 0.005) }];
  assert.deepEqual(validateZone({ name: 'z', geometries, avoidance: { mode: 'SOFT', costPerKm: 600 } }).avoidance, { mode: 'SOFT', costPerKm: 600 });
  assert.deepEqual(validateZone({ name: 'z', geometries, avoidance: { mode: 'HARD' } }).avoidance, { mode: 'HARD' });
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, avoidance: { mode: 'SOFT' } }), ['avoidance.costPerKm']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, avoidance: { mode: 'SOFT', costPerKm: 0 } }), ['avoidance.costPerKm']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, avoidance: { mode: 'SOFT', costPerKm: 1e9 } }), ['avoidance.costPerKm']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, avoidance: { mode: 'HARD', costPerKm: 5 } }), ['avoidance.costPerKm']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, avoidance: { mode: 'MAYBE', factor: 2 } }), ['avoidance.factor', 'avoidance.mode']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, avoidance: 'SOFT' }), ['avoidance']);
});

describe('SOFT zones: the cost per metre of their roads weighed exactly', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  // The same zones prepared, as a service prepares them: SOFT zones' cells crossed by cliques that charge their cost.
  const prepared = new Router(graph);
  const soft = (name: string, zone: CalculatedZone, costPerKm: number): CalculatedZone => ({ ...zone, zone: { ...zone.zone, name, avoidance: { mode: 'SOFT', costPerKm } } });

  /** Per road, the penalty class of the oracle: the sum of its SOFT zones' costs per metre, plus ZONE_COST_PER_METRE on HARD zones' roads when asked. */
  function oraclePenalty(softZones: CalculatedZone[], hardZones: CalculatedZone[] = []) {
    const perRoad = new Float64Array(graph.roadCount);
    for (const z of softZones) for (const r of z.roads) perRoad[r] += (z.zone.avoidance!.costPerKm!) / 1000;
    for (const z of hardZones) for (const r of z.roads) perRoad[r] += ZONE_COST_PER_METRE;
    const costs = [...new Set(perRoad)].sort((a, b) => a - b);
    const roads = new Uint8Array(graph.roadCount);
    perRoad.forEach((c, r) => { roads[r] = costs.indexOf(c); });
    return { roads, costPerMetre: Float64Array.from(costs), perRoad };
  }

  /** What a leg costs under a penalty: its metric, and the penalty per metre of every road it drives (the start and end roads' parts). */
  function penalisedCost(leg: Route['legs'][number], metric: Metric, perRoad: Float64Array): number {
    const l = leg as unknown as { direct: boolean; startReversed: boolean; endReversed: boolean };
    let cost = metric === 'distance' ? leg.distance : leg.duration;
    if (l.direct) return cost + perRoad[leg.from.road] * Math.abs(leg.to.offset - leg.from.offset);
    cost += perRoad[leg.from.road] * (l.startReversed ? leg.from.offset : graph.roadMetres(leg.from.road) - leg.from.offset);
    cost += perRoad[leg.to.road] * (l.endReversed ? graph.roadMetres(leg.to.road) - leg.to.offset : leg.to.offset);
    for (const e of leg.edges) cost += perRoad[graph.edgeRoad[e]] * graph.roadMetres(graph.edgeRoad[e]);
    return cost;
  }

  test('routes with SOFT and HARD zones cost what a plain Dijkstra charging the same finds, stops inside HARD zones included, prepared or not', () => {
    const rand = seededRandom(777);
    let compared = 0, entered = 0, inside = 0, preparedSoft = 0;
    for (let k = 0; k < 12; k++) {
      const softZones = [0, 1, 2].map((i) => soft(`soft${i}`, randomZone(graph, rand, `s${i}`, 600 + rand() * 1500), [5, 60, 600, 6000][Math.floor(rand() * 4)]));
      const hardZones = rand() < 0.5 ? [randomZone(graph, rand, 'hard', 700)] : [];
      const closed = new Uint8Array(graph.roadCount);
      for (const z of hardZones) for (const r of z.roads) closed[r] = 1;
      const held = prepared.preparedZones.zones;
      prepared.prepareZones([...softZones, ...hardZones]);
      preparedSoft += prepared.preparedZones.zones - held - hardZones.length;
      for (let i = 0; i < 10; i++) {
        const points = [0, 1].map((): LatLon => { const r = Math.floor(rand() * graph.roadCount); return { latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }; });
        const metric: Metric = rand() < 0.5 ? 'duration' : 'distance';
        const [a, b] = router.snapStops(points);
        // The oracle: around the HARD zones charging the SOFT ones; a stop on a HARD road, or none around: HARD roads charged too.
        const best = (penalty: ReturnType<typeof oraclePenalty>, blocked?: Uint8Array) => Math.min(
          dijkstra(graph, sourceEndpoints(graph, a, metric, penalty), targetEndpoints(graph, b, metric, penalty), metric, blocked, penalty),
          blocked?.[a.road] ? Infinity : directCost(graph, a, b, metric, penalty).cost,
        );
        const around = oraclePenalty(softZones);
        let penalty = around, want = closed[a.road] || closed[b.road] ? Infinity : best(around, hardZones.length ? closed : undefined);
        if (want === Infinity && hardZones.length) { penalty = oraclePenalty(softZones, hardZones); want = best(penalty); inside++; }
        let route: Route;
        const request: RouteRequest = { points, calculationMode: metric === 'distance' ? 'THE_SHORTEST' : 'THE_FASTEST', zones: [...softZones, ...hardZones] };
        try {
          route = router.route(request);
        } catch (e) {
          assert.equal(want, Infinity, `${(e as Error).message}: the oracle finds ${want}`);
          assert.throws(() => prepared.route(request), { code: (e as { code: string }).code });
          continue;
        }
        const got = penalisedCost(route.legs[0], metric, penalty.perRoad);
        assert.ok(Math.abs(got - want) <= 1e-6 * Math.max(1, want) + 0.05, `${metric}: route ${got}, oracle ${want}`);
        const ready = penalisedCost(prepared.route(request).legs[0], metric, penalty.perRoad);
        assert.ok(Math.abs(ready - want) <= 1e-6 * Math.max(1, want) + 0.05, `${metric}: prepared route ${ready}, oracle ${want}`);
        if (route.legs[0].zonesEntered?.some((z) => z.name.startsWith('soft'))) entered++;
        compared++;
      }
    }
    assert.ok(compared > 80 && entered > 5, `${compared} compared, ${entered} entered SOFT zones, ${inside} stops inside HARD ones`);
    assert.ok(preparedSoft >= 30, `${preparedSoft} SOFT zones given penalised cliques`);
  });

  test('a SOFT zone costing little is driven as if absent; one costing a day per km is gone around as a HARD one is; entered zones are reported', () => {
    const v = (latitude: number, longitude: number) => ({ latitude, longitude });
    const points = [v(57.7055, 11.95), v(57.7055, 11.985)];
    const zone = calculateZone(graph, validateZone({ name: 'c', geometries: [{ vertices: square(57.705, 11.9675, 0.006) }] }));
    const free = router.route({ points });
    const hard = router.route({ points, zones: [zone] });
    assert.ok(hard.distance > free.distance);
    const cheap = router.route({ points, zones: [soft('cheap', zone, 0.001)] });
    assert.equal(cheap.distance, free.distance);
    assert.ok(cheap.legs[0].zonesEntered!.some((z) => z.name === 'cheap' && z.metresInside > 0), 'the SOFT zone driven through is reported');
    assert.equal(router.route({ points, zones: [soft('dear', zone, 86_400)] }).distance, hard.distance);
    assert.throws(() => router.route({ points, zones: [soft('s', zone, 60)], avoidanceTypes: ['TUNNELS'] }), (e: Error & { code?: string }) => e.code === 'UNSUPPORTED_FEATURE');
    const m = router.matrix({ origins: points, destinations: points, zones: [soft('s', zone, 60)] });
    points.forEach((o, i) => points.forEach((d, j) => assert.ok(close(m.distance[i * 2 + j], router.route({ points: [o, d], zones: [soft('s', zone, 60)] }).distance))));
    const many = Array.from({ length: 60 }, () => points[0]);
    assert.throws(() => router.matrix({ origins: many, destinations: many, zones: [soft('s', zone, 60)] }), (e: Error & { code?: string }) => e.code === 'INVALID_INPUT' && /2500/.test(e.message.replace(/,/g, '')));
  });
});

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: pgSkip },
];

for (const { make, skip } of kinds) {
  describe(`zones for some vehicles through the API on ${make === sqliteKind ? 'SQLite' : 'PostgreSQL'}`, { skip }, () => {
    let kind: StoreKind;
    let store: Store;
    let svc: TestService;
    let headers: Record<string, string>;
    before(async () => {
      kind = make();
      store = await kind.open();
      svc = await listen(loadGraph(DEFAULT_GRAPH_PATH), store);
      headers = (await authorise(svc.url, await newClient(store))).headers;
    });
    after(async () => {
      await svc?.close();
      await store?.close();
      await kind?.dispose();
    });

    test('stored and answered with the zone; trips of the trucks it names go around it, others through; a bad rule is 400 naming the member', async () => {
      const zone = { name: 'Centro pesado', geometries: [{ name: 'block', vertices: square(57.705, 11.9675, 0.005) }], vehicles: { types: ['TRUCK_WITH_TWO_DOUBLE_AXLES'], minAxles: 4 } };
      const posted = await http(`${svc.url}${ZONES_PATH}`, { json: zone, headers });
      assert.equal(posted.status, 201, posted.text);
      assert.deepEqual(posted.body.vehicles, zone.vehicles);
      const read = await http(`${svc.url}${ZONES_PATH}/${encodeURIComponent(zone.name)}`, { headers });
      assert.deepEqual([read.body.vehicles, read.body.status.name], [zone.vehicles, 'CALCULATED']);
      const trip = (extra: Record<string, unknown>) => http(`${svc.url}${TRIP_PATH}`, {
        json: { points: [{ latitude: 57.7055, longitude: 11.95 }, { latitude: 57.7055, longitude: 11.985 }], restrictionZones: [zone.name], ...extra }, headers,
      });
      const free = await http(`${svc.url}${TRIP_PATH}`, { json: { points: [{ latitude: 57.7055, longitude: 11.95 }, { latitude: 57.7055, longitude: 11.985 }] }, headers });
      const car = await trip({});
      const named = await trip({ vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' });
      const fourAxles = await trip({ vehicleType: 'TRUCK_WITH_FOUR_DOUBLE_AXLES' });
      const vuc = await trip({ vehicleType: 'TRUCK_WITH_TWO_SINGLE_AXIS' });
      assert.equal(car.body.totalDistance, free.body.totalDistance, 'a car drives through');
      assert.ok(named.body.totalDistance > free.body.totalDistance, 'the truck it names goes around');
      assert.ok(fourAxles.body.totalDistance > free.body.totalDistance, 'so does a truck of four axles');
      const vucFree = await http(`${svc.url}${TRIP_PATH}`, { json: { points: [{ latitude: 57.7055, longitude: 11.95 }, { latitude: 57.7055, longitude: 11.985 }], vehicleType: 'TRUCK_WITH_TWO_SINGLE_AXIS' }, headers });
      assert.equal(vuc.body.totalDistance, vucFree.body.totalDistance, 'a VUC drives through');
      const bad = await http(`${svc.url}${ZONES_PATH}`, { json: { ...zone, name: 'bad', vehicles: { types: ['SPACESHIP'], minWeight: 'heavy' } }, headers });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['vehicles.minWeight', 'vehicles.types[0]']);
      // A SOFT zone: stored and answered with its cost; a trip drives through it when going around costs more.
      const softZone = { name: 'Escola', geometries: zone.geometries, avoidance: { mode: 'SOFT', costPerKm: 1 } };
      const softPosted = await http(`${svc.url}${ZONES_PATH}`, { json: softZone, headers });
      assert.deepEqual([softPosted.status, softPosted.body.avoidance], [201, softZone.avoidance], softPosted.text);
      const through = await trip({ restrictionZones: ['Escola'] });
      assert.equal(through.body.totalDistance, free.body.totalDistance);
      assert.ok(through.body.legs[0].restrictionZonesEntered.some((z: { name: string }) => z.name === 'Escola'));
      const badSoft = await http(`${svc.url}${ZONES_PATH}`, { json: { ...softZone, name: 'x', avoidance: { mode: 'SOFT' } }, headers });
      assert.deepEqual([badSoft.status, badSoft.body.errors?.[0]?.path], [400, 'avoidance.costPerKm'], badSoft.text);
      // Replaced without a rule: every vehicle again.
      const replaced = await http(`${svc.url}${ZONES_PATH}/${encodeURIComponent(zone.name)}`, { method: 'PUT', json: { name: zone.name, geometries: zone.geometries }, headers });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.vehicles, undefined);
      for (let i = 0; i < 50 && (await trip({})).body.totalDistance === free.body.totalDistance; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok((await trip({})).body.totalDistance > free.body.totalDistance, 'now the car goes around too');
    });
  });
}

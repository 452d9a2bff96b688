import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone, vehicleOf, ZoneValidationError,
  type CalculatedZone, type LatLon, type Route, type Vehicle,
} from '../src/index.js';
import { zoneAppliesTo } from '../src/routing/vehicle.js';
import type { Store } from '../src/store/Store.js';
import { close, seededRandom } from './support/helpers.js';
import {
  authorise, http, listen, newClient, postgresKind, postgresSkipReason, sqliteKind, TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';

/**
 * Zones for some vehicles (a zone's `vehicles` rule): checked member by member, kept by both stores
 * and answered by GET, and applied to exactly the vehicles it names: their routes and matrices equal
 * those around the same zone without a rule; every other vehicle's equal those without the zone.
 */

const square = (lat: number, lon: number, d: number) => [
  { latitude: lat - d, longitude: lon - d }, { latitude: lat - d, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon - d },
];
const issuesOf = (input: unknown) => {
  try {
    validateZone(input);
    return [];
  } catch (e) {
    assert.ok(e instanceof ZoneValidationError);
    return e.issues.map((i) => i.path);
  }
};

test('a zone\'s vehicles rule: types and minimums, each bad member named', () => {
  const geometries = [{ vertices: square(57.7, 11.97, 0.005) }];
  assert.deepEqual(validateZone({ name: 'z', geometries, vehicles: { types: ['TRUCK_WITH_TWO_DOUBLE_AXLES', 'TRUCK_WITH_TWO_DOUBLE_AXLES'], minWeight: 10 } }).vehicles,
    { types: ['TRUCK_WITH_TWO_DOUBLE_AXLES'], minWeight: 10 });
  assert.equal(validateZone({ name: 'z', geometries, vehicles: null }).vehicles, undefined);
  assert.deepEqual(issuesOf({ name: 'z', geometries, vehicles: { types: ['SPACESHIP', 'CAR'], minWeight: -1, minAxles: '3', color: 'red' } }),
    ['vehicles.types[0]', 'vehicles.minWeight', 'vehicles.minAxles', 'vehicles.color']);
  assert.deepEqual(issuesOf({ name: 'z', geometries, vehicles: {} }), ['vehicles']);
  assert.deepEqual(issuesOf({ name: 'z', geometries, vehicles: ['CAR'] }), ['vehicles']);
  assert.deepEqual(issuesOf({ name: 'z', geometries, vehicles: { types: [] } }), ['vehicles.types']);
  assert.deepEqual(issuesOf({ name: 'z', geometries, vehicles: { minLength: 1000 } }), ['vehicles.minLength']);
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

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: (await postgresSkipReason()) ?? false },
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
      // Replaced without a rule: every vehicle again.
      const replaced = await http(`${svc.url}${ZONES_PATH}/${encodeURIComponent(zone.name)}`, { method: 'PUT', json: { name: zone.name, geometries: zone.geometries }, headers });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.vehicles, undefined);
      for (let i = 0; i < 50 && (await trip({})).body.totalDistance === free.body.totalDistance; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok((await trip({})).body.totalDistance > free.body.totalDistance, 'now the car goes around too');
    });
  });
}

import { test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { DEFAULT_GRAPH_PATH, loadGraph, Router, vehicleOf, vehicleRoads, type Route } from '../src/index.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { HIGHWAY_CLASSES, RoadFlag } from '../src/graph/carProfile.js';
import type { Metric } from '../src/graph/RoadGraph.js';
import { roadTypeOf } from '../src/routing/roadTimes.js';
import { parseSpeedLimit } from '../src/graph/vehicleLimits.js';
import type { Vehicle } from '../src/routing/vehicle.js';
import { DetourError } from '../src/errors.js';
import { close, dijkstra, oracleTimes, randomZone, scheduleWaits, seededRandom, sharedExtract } from './support/helpers.js';
import { importOsmWithSummary } from '../src/graph/importOsm.js';

test('Maplink road types of roads; speedPreferences checked member by member', () => {
  const cls = (name: string) => HIGHWAY_CLASSES.indexOf(name);
  assert.equal(roadTypeOf(cls('motorway'), 0), 'HIGHWAY');
  assert.equal(roadTypeOf(cls('trunk_link'), 0), 'EXPRESSWAY');
  assert.equal(roadTypeOf(cls('primary'), RoadFlag.UNPAVED), 'PENALIZED_MAIN_ROAD');
  assert.equal(roadTypeOf(cls('tertiary'), 0), 'SECONDARY_ROAD');
  assert.equal(roadTypeOf(cls('residential'), RoadFlag.UNPAVED), 'PENALIZED_LOCAL_ROAD');
  assert.equal(roadTypeOf(cls('motorway'), RoadFlag.UNPAVED), 'HIGHWAY');
  assert.equal(roadTypeOf(cls('service'), RoadFlag.FERRY), 'FERRY');
  const field = (prefs: unknown) => { try { vehicleOf(null, null, 'vehicleSpecification', prefs); return 'ok'; } catch (e) { return (e as DetourError).details?.field; } };
  assert.equal(field([{ roadType: 'HIGHWAY', speed: 80, speedAtToll: 60 }]), 'ok');
  assert.equal(field([{ roadType: 'MOTORWAY', speed: 80 }]), 'speedPreferences[0].roadType');
  assert.equal(field([{ roadType: 'HIGHWAY', speed: 80 }, { roadType: 'HIGHWAY', speed: 70 }]), 'speedPreferences[1].roadType');
  assert.equal(field([{ roadType: 'HIGHWAY', speed: -3 }]), 'speedPreferences[0].speed');
  assert.equal(field([{ roadType: 'HIGHWAY', speedAtToll: 'fast' }]), 'speedPreferences[0].speedAtToll');
  assert.equal(field([{ roadType: 'HIGHWAY', speed: 80, lane: 2 }]), 'speedPreferences[0].lane');
  assert.equal(field({ roadType: 'HIGHWAY' }), 'speedPreferences');
  // Empty ones are a car's: no vehicle at all.
  assert.equal(vehicleOf(null, null, 'vehicleSpecification', []), undefined);
  assert.equal(vehicleOf(null, null, 'vehicleSpecification', [{ roadType: 'HIGHWAY', speed: 0 }]), undefined);
  assert.deepEqual(vehicleOf('CAR', null, 'vehicleSpecification', [{ roadType: 'LOCAL_ROAD', speed: 20 }])?.speedPreferences, [{ roadType: 'LOCAL_ROAD', speed: 20 }]);
});

const FLEET: { name: string; vehicle: Vehicle; heavy: boolean }[] = [
  { name: 'truck', vehicle: vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!, heavy: true },
  { name: 'bus with preferences', vehicle: vehicleOf('BUS_WITH_TWO_DOUBLE_AXLES', null, 'x', [{ roadType: 'SECONDARY_ROAD', speed: 30 }, { roadType: 'LOCAL_ROAD', speed: 18 }])!, heavy: true },
  { name: 'car with preferences', vehicle: vehicleOf('CAR', null, 'x', [{ roadType: 'HIGHWAY', speed: 50, speedAtToll: 40 }, { roadType: 'MAIN_ROAD', speed: 35 }])!, heavy: false },
];

for (const [name, open] of [
  ['the default city', async () => loadGraph(DEFAULT_GRAPH_PATH)],
  ['Andorra', async () => (await importOsmWithSummary(sharedExtract('andorra.osm.pbf').path, 'pbf')).graph],
] as const) {
  const skip = name === 'Andorra' ? sharedExtract('andorra.osm.pbf').skip : false;
  test(`${name}: heavy vehicles' and speed preferences' routes cost what a plain Dijkstra over the documented speeds finds, prepared or not, around zones too`, { skip }, async () => {
    const graph = await open();
    const router = new Router(graph);
    const prepared = new Router(graph);
    const rand = seededRandom(name.length * 104_729);
    const zones = [randomZone(graph, rand, 'a', 900), randomZone(graph, rand, 'b', 1400)];
    prepared.prepareZones(zones);
    let compared = 0, slower = 0;
    for (const { name: who, vehicle, heavy } of FLEET) {
      prepared.prepareVehicle(vehicle);
      const view = oracleTimes(graph, heavy, vehicle.speedPreferences);
      const limited = vehicleRoads(graph, vehicle);
      for (let i = 0; i < 24; i++) {
        const r1 = Math.floor(rand() * graph.roadCount), r2 = Math.floor(rand() * graph.roadCount);
        const points = [r1, r2].map((r) => ({ latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }));
        const metric: Metric = i % 3 === 2 ? 'distance' : 'duration';
        const mode = metric === 'distance' ? 'THE_SHORTEST' : 'THE_FASTEST';
        const withZones = i % 2 === 1 ? zones : [];
        const [a, b] = router.snapStops(points, undefined, vehicle);
        // The vehicle's closed and destination-only roads (its limits: vehicles.test checks those) and the zones'.
        const blocked = new Uint8Array(graph.roadCount);
        for (const z of withZones) for (const r of z.roads) blocked[r] = 1;
        for (const r of [...limited.forbidden, ...limited.destinationOnly]) blocked[r] = 1;
        if (blocked[a.road] || blocked[b.road]) continue;
        const expected = Math.min(
          dijkstra(view, sourceEndpoints(view, a, metric), targetEndpoints(view, b, metric), metric, blocked),
          directCost(view, a, b, metric).cost,
        );
        const outcome = (r: Router): Route | string => { try { return r.route({ points, calculationMode: mode, vehicle, zones: withZones }); } catch (e) { return (e as DetourError).code; } };
        const got = outcome(router), ready = outcome(prepared);
        if (expected === Infinity) continue; // unreachable, or only through a zone (zones.test checks that rule)
        assert.ok(typeof got !== 'string' && typeof ready !== 'string', `${name} ${who}: ${String(got)} / ${String(ready)} where Dijkstra finds ${expected}`);
        const cost = (r: Route) => (metric === 'distance' ? r.distance : r.duration);
        assert.ok(close(cost(got), expected, 1e-9), `${name} ${who} ${mode}: ${cost(got)} vs Dijkstra ${expected}`);
        assert.ok(close(cost(ready), expected, 1e-9), `${name} ${who} ${mode} prepared: ${cost(ready)} vs Dijkstra ${expected}`);
        // The leg's duration is its path's at the vehicle's speeds (THE_SHORTEST too), and its steps sum to it.
        const leg = got.legs[0] as Route['legs'][0] & { edges: number[] };
        const edgesTime = leg.edges.reduce((s, e) => s + view.roadMillis[view.edgeRoad[e]] / 1000, 0);
        assert.ok(leg.duration >= edgesTime - 1e-6, `${who}: leg ${leg.duration} s below its roads' ${edgesTime} s`);
        const car = router.route({ points, calculationMode: mode, zones: withZones });
        assert.ok(got.duration >= car.duration - 1e-6 || metric === 'distance', `${who}: faster than a car (${got.duration} < ${car.duration})`);
        if (got.duration > car.duration * 1.02) slower++;
        compared++;
      }
    }
    assert.ok(compared >= 40, `only ${compared} pairs compared`);
    assert.ok(slower >= compared / 3, `only ${slower} of ${compared} routes slower than a car's`);
  });
}

test('the default city: a truck\'s steps sum to its legs; the answer names the preferences; every engine routes its times', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const vehicle = FLEET[1].vehicle;
  const points = [{ latitude: 57.7089, longitude: 11.9746 }, { latitude: 57.6877, longitude: 11.9519 }, { latitude: 57.7202, longitude: 11.9378 }];
  const route = router.route({ points, vehicle, steps: 'en' });
  for (const leg of route.legs) {
    const sum = leg.steps!.reduce((s, x) => s + x.duration, 0);
    assert.ok(Math.abs(sum - leg.duration) < 1e-6, `steps ${sum} s against the leg's ${leg.duration} s`);
  }
  assert.deepEqual(route.vehicle?.speedPreferences, vehicle.speedPreferences);
  // The other engines route the vehicle's times too (each on its own view of the graph).
  for (const engine of ['astar', 'ngraph'] as const) {
    const other = new Router(graph, { engine, landmarks: 4 }).route({ points, vehicle });
    assert.ok(close(other.duration, route.duration, 1e-9), `${engine}: ${other.duration} s against ${route.duration} s`);
  }
});

test('the default city: matrices for heavy vehicles and speed preferences equal their routes, around zones and stops inside them too, both modes', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const rand = seededRandom(4242);
  const zones = [randomZone(graph, rand, 'm1', 1000), randomZone(graph, rand, 'm2', 700)];
  const at = () => { const r = Math.floor(rand() * graph.roadCount); return { latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }; };
  const origins = Array.from({ length: 7 }, at), destinations = Array.from({ length: 6 }, at);
  // A stop inside a zone: its elements enter the zone as the route does.
  const inside = zones[0].roads[0];
  destinations.push({ latitude: graph.roadPointLat(inside, 1), longitude: graph.roadPointLon(inside, 1) });
  let compared = 0;
  for (const { vehicle } of FLEET) {
    for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      for (const z of [[], zones]) {
        const m = router.matrix({ origins, destinations, calculationMode, vehicle, zones: z });
        origins.forEach((o, i) => destinations.forEach((d, j) => {
          const k = i * destinations.length + j;
          let r: Route | undefined;
          try { r = router.route({ points: [o, d], calculationMode, vehicle, zones: z }); } catch { /* a failure: the matrix's too */ }
          if (!r) { assert.ok(m.failures.has(k), `${vehicle.type} ${calculationMode} ${i},${j}: the route fails, the matrix answers`); return; }
          assert.ok(close(m.duration[k], r.duration, 1e-9) && close(m.distance[k], r.distance, 1e-9),
            `${vehicle.type} ${calculationMode} zones ${z.length} ${i},${j}: matrix ${m.distance[k]} m ${m.duration[k]} s, route ${r.distance} m ${r.duration} s`);
          compared++;
        }));
      }
    }
  }
  assert.ok(compared > 500, `only ${compared} elements compared`);
});

/** West stub, then a direct primary road signed `maxspeed:hgv=20` and a longer secondary road round it, then the east stub. */
const SIGNED = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  <node id="1" lat="0" lon="-0.005"/>
  <node id="2" lat="0" lon="0"/>
  <node id="3" lat="0.01" lon="0.01"/>
  <node id="4" lat="0" lon="0.02"/>
  <node id="5" lat="0" lon="0.025"/>
  <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way>
  <way id="11"><nd ref="2"/><nd ref="4"/><tag k="highway" v="primary"/><tag k="maxspeed:hgv" v="20"/></way>
  <way id="12"><nd ref="2"/><nd ref="3"/><nd ref="4"/><tag k="highway" v="secondary"/><tag k="maxspeed:hgv" v="fast"/></way>
  <way id="13"><nd ref="4"/><nd ref="5"/><tag k="highway" v="residential"/><tag k="maxspeed:hgv" v="none"/></way>
</osm>
`;

test('maxspeed:hgv: read in its forms and counted; a truck keeps off a road signed slow for it where a car takes it', async () => {
  for (const [raw, want] of [['60', 60], ['60 km/h', 60], ['40 mph', 40 * 1.609344], ['none', 'none'], ['signals', undefined], ['-5', undefined]] as const) {
    const got = parseSpeedLimit(raw);
    if (typeof want === 'number') assert.ok(typeof got === 'number' && Math.abs(got - want) < 1e-9, `${raw}: ${got}`);
    else assert.equal(got, want, raw);
  }
  const dir = mkdtempSync(join(tmpdir(), 'detour-hgv-speed-'));
  writeFileSync(join(dir, 'signed.osm'), SIGNED);
  const { graph, summary } = await importOsmWithSummary(join(dir, 'signed.osm'), 'xml');
  assert.deepEqual([summary.vehicleLimits.read, summary.vehicleLimits.noLimit, summary.vehicleLimits.unreadable], [{ 'maxspeed:hgv': 1 }, { 'maxspeed:hgv': 1 }, { 'maxspeed:hgv': 1 }]);
  const router = new Router(graph);
  const primary = router.snap({ latitude: 0, longitude: 0.01 }, 'probe').road;
  assert.equal(graph.roadLimits(primary)?.hgvSpeedKmh, 20);
  const points = [{ latitude: 0, longitude: -0.004 }, { latitude: 0, longitude: 0.024 }];
  const roads = (r: Route) => r.legs[0].edges.map((e) => graph.edgeRoad[e]);
  const car = router.route({ points }), truck = router.route({ points, vehicle: FLEET[0].vehicle });
  assert.ok(roads(car).includes(primary), 'the car takes the primary road');
  assert.ok(!roads(truck).includes(primary), 'the truck goes round it');
  // The same truck forced onto it (THE_SHORTEST) drives it at 20 km/h.
  const shortest = router.route({ points, vehicle: FLEET[0].vehicle, calculationMode: 'THE_SHORTEST' });
  assert.ok(roads(shortest).includes(primary));
  assert.ok(shortest.duration > graph.roadMetres(primary) / (20 / 3.6), `${shortest.duration} s: not at 20 km/h on ${graph.roadMetres(primary)} m`);
  // A bus (heavy) keeps off it too; a light vehicle, with preferences for other road types, does not.
  assert.ok(!roads(router.route({ points, vehicle: FLEET[1].vehicle })).includes(primary));
  assert.ok(roads(router.route({ points, vehicle: vehicleOf('CAR_WITH_THREE_SIMPLE_AXLES', null, 'x', [{ roadType: 'HIGHWAY', speed: 50 }]) })).includes(primary));
});

test('the default city: a truck around zones with hours arrives when a time-dependent Dijkstra over its speeds that waits does', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const truck = FLEET[0].vehicle, view = oracleTimes(graph, true);
  const limited = vehicleRoads(graph, truck);
  const rand = seededRandom(77);
  const departure = Date.parse('2026-12-07T07:00:00Z'); // 08:00 in Stockholm, a Monday
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  let compared = 0, waited = 0;
  for (let k = 0; k < 6; k++) {
    const zones = [0, 1].map((i) => {
      const z = randomZone(graph, rand, `s${i}`, 900 + rand() * 1200), a = 470 + Math.floor(rand() * 20);
      return { ...z, zone: { ...z.zone, schedule: { timeZone: 'Europe/Stockholm', windows: [{ days: ['MON' as const], from: hhmm(a), to: hhmm(a + 5 + Math.floor(rand() * 30)) }] } } };
    });
    const wait = scheduleWaits(view, zones, departure);
    const blocked = new Uint8Array(graph.roadCount);
    for (const r of [...limited.forbidden, ...limited.destinationOnly]) blocked[r] = 1;
    for (let i = 0; i < 8; i++) {
      const pts = [0, 1].map(() => { const r = Math.floor(rand() * graph.roadCount); return { latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }; });
      const [a, b] = router.snapStops(pts, undefined, truck);
      if (blocked[a.road] || blocked[b.road]) continue;
      const oracle = Math.min(
        dijkstra(view, sourceEndpoints(view, a, 'duration'), targetEndpoints(view, b, 'duration'), 'duration', blocked, undefined, wait),
        directCost(view, a, b, 'duration').cost,
      );
      if (oracle === Infinity) continue;
      const route = router.route({ points: pts, zones, departure, vehicle: truck });
      assert.ok(Math.abs(route.duration - oracle) <= 1e-6 * oracle + 1e-3, `the truck arrives after ${route.duration} s, the oracle after ${oracle} s`);
      if (route.legs[0].waits) waited++;
      compared++;
    }
  }
  assert.ok(compared >= 30, `only ${compared} pairs compared`);
  assert.ok(waited > 0, 'no route waited for a zone');
});

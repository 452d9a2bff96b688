/**
 * Vehicles: OSM's limits on heavy vehicles read from real-world tag forms, stored compactly and
 * kept by the graph file; a hand-made network with a low bridge, a weight-limited bridge, an
 * hgv=no street, a height restrictor and an hgv=destination street; Maplink's vehicle types and
 * specifications; and trucks on the default city and Monaco against a plain Dijkstra that skips
 * the roads the test itself finds closed to them.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_GRAPH_PATH, DetourError, decodeGraph, encodeGraph, importOsmWithSummary, loadGraph, parseLengthLimit, parseWeightLimit, readRoadLimits,
  buildHierarchy, calculateZone, RoadGraph, Router, type HierarchyGraph, VEHICLE_TYPE_FIGURES, vehicleOf, zoneFromGeoJson, type CalculatedZone, type LatLon, type Metric, type Route, type Vehicle,
} from '../src/index.js';
import { VEHICLE_TYPES } from '../src/trip/maplinkVocabulary.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { CHQuery } from '../src/routing/CHQuery.js';
import { OverlayManyToMany } from '../src/routing/OverlayManyToMany.js';
import { EnclosureSearch } from '../src/routing/EnclosureSearch.js';
import { NodeRecords } from '../src/structures/NodeRecords.js';
import { roadTimes } from '../src/routing/roadTimes.js';
import { speedRules, vehicleRoads } from '../src/routing/vehicle.js';
import { uniformPenalty, ZONE_COST_PER_METRE } from '../src/routing/PathSearch.js';
import { levelView, type CellOverlay } from '../src/hierarchy/CellOverlay.js';
import { COST_STEP } from '../src/graph/RoadGraph.js';
import { attachSearchIndexes } from '../src/searchIndexes.js';
import { buildCountry, randomStop } from '../bench/scaleGraphs.js';
import { zonesOnPath } from '../bench/zonesOnPath.js';
import { CLI, close, dijkstra, oracleHeavy, oracleTimes, randomZone, seededRandom, sharedExtract } from './support/helpers.js';

test('limit values in the forms OSM uses: metres, centimetres, feet and inches, tonnes, kilograms, pounds; no-limit words; the rest unreadable', () => {
  const lengths: Array<[string, number | 'none' | undefined]> = [
    ['3.5', 3.5], ['3,5', 3.5], ['3.5 m', 3.5], ['3.5m', 3.5], ['350 cm', 3.5], [' 4 ', 4], ['12\'6"', 12 * 0.3048 + 6 * 0.0254],
    ['12\'', 12 * 0.3048], ['12 ft', 12 * 0.3048], ['12 ft 6 in', 12 * 0.3048 + 6 * 0.0254], ['none', 'none'], ['default', 'none'],
    ['unsigned', 'none'], ['below_default', undefined], ['3.5;4', undefined], ['-2', undefined], ['0', undefined], ['tall', undefined], ['', undefined],
  ];
  for (const [raw, want] of lengths) {
    const got = parseLengthLimit(raw);
    if (typeof want === 'number') assert.ok(typeof got === 'number' && Math.abs(got - want) < 1e-9, `${raw}: ${got}`);
    else assert.equal(got, want, raw);
  }
  const weights: Array<[string, number | 'none' | undefined]> = [
    ['7.5', 7.5], ['7,5', 7.5], ['7.5 t', 7.5], ['7.5t', 7.5], ['7500 kg', 7.5], ['10 st', 10 * 0.90718474], ['20000 lbs', 20000 * 0.00045359237],
    ['none', 'none'], ['5 tons', 5], ['heavy', undefined], ['7.5 kN', undefined],
  ];
  for (const [raw, want] of weights) {
    const got = parseWeightLimit(raw);
    if (typeof want === 'number') assert.ok(typeof got === 'number' && Math.abs(got - want) < 1e-9, `${raw}: ${got}`);
    else assert.equal(got, want, raw);
  }
});

test('access for heavy and goods vehicles: the most specific key decides, its first value; hazmat=no; counts of what was read', () => {
  const counts = { read: {}, noLimit: {}, unreadable: {}, conditional: 0 };
  assert.equal(readRoadLimits({ highway: 'residential' }, counts), undefined);
  assert.deepEqual(readRoadLimits({ hgv: 'no' }), { hgv: 1, goods: 0, noHazmat: false });
  assert.deepEqual(readRoadLimits({ hgv: 'destination;no', goods: 'delivery' }), { hgv: 2, goods: 2, noHazmat: false });
  assert.deepEqual(readRoadLimits({ motor_vehicle: 'destination', hgv: 'designated' }), { hgv: 0, goods: 2, noHazmat: false });
  assert.deepEqual(readRoadLimits({ access: 'private', motor_vehicle: 'yes' }), undefined);
  assert.deepEqual(readRoadLimits({ hazmat: 'no' }), { hgv: 0, goods: 0, noHazmat: true });
  const l = readRoadLimits({ maxheight: '3.2', maxweight: 'none', maxwidth: 'wide', 'maxweight:conditional': '7.5 @ (22:00-06:00)', 'hgv:conditional': 'no @ (Mo-Fr)' }, counts);
  assert.deepEqual(l, { hgv: 0, goods: 0, noHazmat: false, heightM: 3.2 });
  assert.deepEqual(counts, { read: { maxheight: 1 }, noLimit: { maxweight: 1 }, unreadable: { maxwidth: 1 }, conditional: 2 });
});

test('Maplink\'s vehicle types each have figures; trucks are heavy goods vehicles that weigh more with more axles; specifications win, in kilograms and metres', () => {
  for (const type of VEHICLE_TYPES) {
    assert.ok(type in VEHICLE_TYPE_FIGURES, type);
    const v = vehicleOf(type)!;
    assert.equal(v.type, type);
    if (type.startsWith('TRUCK')) {
      assert.equal(v.accessClass, 'hgv', type);
      for (const f of ['heightM', 'widthM', 'lengthM', 'weightT', 'axleLoadT'] as const) assert.ok(v[f]! > 0, `${type} ${f}`);
    }
    if (type.startsWith('BUS') || type.startsWith('CAR') || type === 'MOTORCYCLE') assert.equal(v.accessClass, 'none', type);
  }
  const trucks = VEHICLE_TYPES.filter((t) => t.includes('DOUBLE_AXLES') && t.startsWith('TRUCK')).map((t) => vehicleOf(t)!.weightT!);
  for (let i = 1; i < trucks.length; i++) assert.ok(trucks[i] >= trucks[i - 1], 'gross weight never falls with an axle more');
  assert.equal(vehicleOf(), undefined);
  assert.equal(vehicleOf(null, {}), undefined);
  assert.deepEqual(vehicleOf('CAR'), { type: 'CAR', accessClass: 'none', hazmat: false });
  const spec = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES', { maxHeight: 3.9, maxWeight: 12_000, maxWeightPerAxle: 8_000, maxWeightForDangerousMaterials: 500 })!;
  assert.deepEqual([spec.heightM, spec.weightT, spec.axleLoadT, spec.widthM, spec.hazmat, spec.accessClass], [3.9, 12, 8, 2.6, true, 'hgv']);
  assert.equal(vehicleOf(null, { maxWeight: 3000, loadTypes: ['GOODS'] })!.accessClass, 'goods');
  assert.equal(vehicleOf(null, { maxWeight: 3000 })!.accessClass, 'none');
  assert.equal(vehicleOf(null, { maxWeight: 20_000 })!.accessClass, 'hgv');
  const refused = (f: () => unknown) => {
    try { f(); } catch (e) { return [(e as DetourError).code, (e as DetourError).details?.field]; }
    return undefined;
  };
  assert.deepEqual(refused(() => vehicleOf(null, { maxHeight: 45 })), ['INVALID_VEHICLE', 'vehicleSpecification.maxHeight']);
  assert.deepEqual(refused(() => vehicleOf(null, { maxWeight: -1 })), ['INVALID_VEHICLE', 'vehicleSpecification.maxWeight']);
  assert.deepEqual(refused(() => vehicleOf(null, { maxWidth: 'wide' as unknown as number })), ['INVALID_VEHICLE', 'vehicleSpecification.maxWidth']);
  assert.deepEqual(refused(() => vehicleOf('SPACESHIP')), ['INVALID_VEHICLE', 'vehicleType']);
});

/**
 * West (stub 0-1) to east (3, stub 3-8), shortest first: a low bridge (way 10, maxheight 3.5), a
 * weight-limited bridge (way 11, maxweight 7.5), an hgv=no street (way 12), and a long trunk road
 * through a height restrictor of 3.8 m (node 6, way 13). North of the east stub, an hgv=destination
 * street (way 15, 8-20) is a shortcut from 7 to 8 (way 16 joins 20 to 7).
 */
const FIXTURE = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  <node id="0" lat="0" lon="-0.01"/>
  <node id="1" lat="0" lon="0"/>
  <node id="2" lat="0" lon="0.01"/>
  <node id="3" lat="0" lon="0.02"/>
  <node id="4" lat="0.004" lon="0.01"/>
  <node id="5" lat="-0.006" lon="0.01"/>
  <node id="6" lat="0.03" lon="0"><tag k="barrier" v="height_restrictor"/><tag k="maxheight" v="3.8"/></node>
  <node id="7" lat="0.03" lon="0.02"/>
  <node id="8" lat="0" lon="0.03"/>
  <node id="20" lat="0.01" lon="0.03"/>
  <way id="9"><nd ref="0"/><nd ref="1"/><tag k="highway" v="residential"/></way>
  <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="primary"/><tag k="bridge" v="yes"/><tag k="maxheight" v="3.5"/></way>
  <way id="11"><nd ref="1"/><nd ref="4"/><nd ref="3"/><tag k="highway" v="primary"/><tag k="bridge" v="yes"/><tag k="maxweight" v="7.5"/></way>
  <way id="12"><nd ref="1"/><nd ref="5"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="hgv" v="no"/></way>
  <way id="13"><nd ref="1"/><nd ref="6"/><nd ref="7"/><nd ref="3"/><tag k="highway" v="trunk"/><tag k="maxheight:conditional" v="3 @ (Mo-Fr)"/></way>
  <way id="14"><nd ref="3"/><nd ref="8"/><tag k="highway" v="residential"/></way>
  <way id="15"><nd ref="8"/><nd ref="20"/><tag k="highway" v="residential"/><tag k="hgv" v="destination"/></way>
  <way id="16"><nd ref="20"/><nd ref="7"/><tag k="highway" v="residential"/></way>
</osm>
`;

describe('a low bridge, a weight-limited bridge, an hgv=no street, a height restrictor and an hgv=destination street', () => {
  let graph: RoadGraph;
  let router: Router;
  let roadOfWay: (lat: number, lon: number) => number;
  const west = { latitude: 0.0001, longitude: -0.005 };
  const east = { latitude: 0.0001, longitude: 0.029 };
  const roadsOf = (route: Route) => route.legs.flatMap((l) => [l.from.road, ...l.edges.map((e) => graph.edgeRoad[e]), l.to.road]);

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'detour-trucks-'));
    writeFileSync(join(dir, 'trucks.osm'), FIXTURE);
    const { graph: g, summary } = await importOsmWithSummary(join(dir, 'trucks.osm'), 'xml');
    graph = g;
    router = new Router(graph);
    assert.deepEqual(
      [summary.vehicleLimits.ways, summary.vehicleLimits.nodes, summary.vehicleLimits.read, summary.vehicleLimits.conditional],
      [4, 1, { maxheight: 2, maxweight: 1 }, 1],
    );
    roadOfWay = (lat, lon) => router.snap({ latitude: lat, longitude: lon }, 'probe').road;
  });

  test('the limits sit on the roads of their ways and on the road through the restrictor', () => {
    assert.deepEqual(graph.roadLimits(roadOfWay(0, 0.005)), { hgv: 0, goods: 0, noHazmat: false, heightM: 3.5 });
    assert.deepEqual(graph.roadLimits(roadOfWay(0.002, 0.005)), { hgv: 0, goods: 0, noHazmat: false, weightT: 7.5 });
    assert.deepEqual(graph.roadLimits(roadOfWay(-0.003, 0.005)), { hgv: 1, goods: 0, noHazmat: false });
    assert.deepEqual(graph.roadLimits(roadOfWay(0.015, 0)), { hgv: 0, goods: 0, noHazmat: false, heightM: 3.8 });
    assert.deepEqual(graph.roadLimits(roadOfWay(0.005, 0.03)), { hgv: 2, goods: 0, noHazmat: false });
    assert.equal(graph.roadLimits(roadOfWay(0, 0.025)), undefined);
    assert.equal(graph.limitRoads.length, 5);
  });

  test('car and vehicles take the routes their limits leave; the answer carries the vehicle', () => {
    const shortest = (vehicle?: Vehicle) => router.route({ points: [west, east], calculationMode: 'THE_SHORTEST', vehicle });
    const over = (lat: number, lon: number, route: Route) => roadsOf(route).includes(roadOfWay(lat, lon));
    const car = shortest();
    assert.ok(over(0, 0.005, car), 'the car takes the low bridge');
    const low = vehicleOf(null, { maxHeight: 3, maxWeight: 5000 })!;
    assert.ok(over(0, 0.005, shortest(low)), 'a 3 m truck passes under it');
    const light = vehicleOf(null, { maxHeight: 3.6, maxWeight: 3000 })!;
    assert.ok(over(0.002, 0.005, shortest(light)), 'a 3.6 m, 3 t van takes the weight-limited bridge');
    const goods = vehicleOf(null, { maxHeight: 3.6, maxWeight: 9000 })!;
    const around = shortest(goods);
    assert.ok(over(0.015, 0, around) && !over(-0.003, 0.005, around), 'a 3.6 m, 9 t truck takes the trunk road, not the hgv=no street');
    assert.equal(around.vehicle, goods);
    assert.ok(around.distance > car.distance + 5000);
    const bus = vehicleOf('BUS_WITH_TWO_DOUBLE_AXLES', { maxHeight: 3.6, maxWeight: 9000 })!;
    assert.ok(over(-0.003, 0.005, shortest(bus)), 'a bus of 3.6 m and 9 t takes the hgv=no street');
  });

  test('no legal way: VEHICLE_NOT_ALLOWED names the limits of the car\'s way, or the one under a stop with no legal road in range; a stop beside a closed road snaps to a legal one', () => {
    const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
    assert.throws(() => router.route({ points: [west, east], vehicle: truck }), (e: DetourError) => {
      assert.equal(e.code, 'VEHICLE_NOT_ALLOWED');
      assert.match(e.message, /maxheight 3\.5 m \(the vehicle: 4\.4 m\)/);
      return true;
    });
    const onHgvNo = { latitude: -0.0031, longitude: 0.005 }, hgvNo = roadOfWay(-0.003, 0.005);
    const nineTonnes = vehicleOf(null, { maxWeight: 9000 })!;
    // The nearest road the truck may use, by brute force over the roads' points (the hgv=no street's excepted).
    let nearestLegal = Infinity;
    for (let r = 0; r < graph.roadCount; r++) {
      if (r === hgvNo || r === roadOfWay(0.002, 0.005)) continue; // the hgv=no street, and the 7.5 t bridge
      for (let k = 0; k < graph.roadPointCount(r); k++) nearestLegal = Math.min(nearestLegal, Math.hypot(graph.roadPointLat(r, k) - onHgvNo.latitude, graph.roadPointLon(r, k) - onHgvNo.longitude) * 111_195);
    }
    const beside = router.route({ points: [west, onHgvNo], vehicle: nineTonnes });
    assert.notEqual(beside.legs[0].to.road, hgvNo);
    assert.ok(beside.legs[0].to.distance > 300 && beside.legs[0].to.distance <= nearestLegal + 1, `${beside.legs[0].to.distance} m, the nearest legal point ${nearestLegal} m`);
    assert.equal(router.route({ points: [west, onHgvNo] }).legs[0].to.road, hgvNo, 'a car stops on it');
    const near = new Router(graph, { maxSnapDistance: 100 });
    assert.throws(() => near.route({ points: [west, onHgvNo], vehicle: nineTonnes }), (e: DetourError) => {
      assert.equal(e.code, 'VEHICLE_NOT_ALLOWED');
      assert.match(e.message, /points\[1\] lies on a road closed to the vehicle \(CUSTOM\): hgv=no/);
      return true;
    });
  });

  test('hgv=destination: never a shortcut, but a truck reaches a stop on it', () => {
    const truck = vehicleOf(null, { maxHeight: 3.6, maxWeight: 9000 })!;
    const north = { latitude: 0.0299, longitude: 0.015 };
    const dest = roadOfWay(0.005, 0.03);
    const car = router.route({ points: [north, east], calculationMode: 'THE_SHORTEST' });
    assert.ok(roadsOf(car).includes(dest), 'the car takes the shortcut');
    const through = router.route({ points: [north, east], calculationMode: 'THE_SHORTEST', vehicle: truck });
    assert.ok(!roadsOf(through).includes(dest), 'the truck does not');
    const onIt = router.route({ points: [west, { latitude: 0.005, longitude: 0.0301 }], calculationMode: 'THE_SHORTEST', vehicle: truck });
    assert.equal(onIt.legs[0].to.road, dest);
    assert.ok(!onIt.legs[0].edges.some((e) => graph.edgeRoad[e] === dest));
  });

  test('an hgv=destination road of no length is open to the truck: it charges no metre, so its shortcut is as good as an open road\'s', () => {
    const truck = vehicleOf(null, { maxHeight: 3.6, maxWeight: 9000 })!;
    const north = { latitude: 0.0299, longitude: 0.015 };
    const dest = roadOfWay(0.005, 0.03);
    assert.ok(vehicleRoads(graph, truck).destinationOnly.includes(dest));
    // The same graph with that road's length 0 (as some OSM ways are: their ends at one place).
    const arrays = graph.arrays();
    const roadLengthCm = arrays.roadLengthCm.slice();
    roadLengthCm[dest] = 0;
    const flat = new RoadGraph({ ...arrays, roadLengthCm }, graph.meta);
    const roads = vehicleRoads(flat, truck);
    assert.ok(!roads.destinationOnly.includes(dest) && !roads.forbidden.includes(dest), 'neither destination-only nor forbidden');
    assert.deepEqual([...roads.destinationOnly], [...vehicleRoads(graph, truck).destinationOnly].filter((r) => r !== dest));
    const through = new Router(flat).route({ points: [north, east], calculationMode: 'THE_SHORTEST', vehicle: truck });
    assert.ok(roadsOf(through).includes(dest), 'the truck takes the shortcut');
  });

  test('the matrix answers each pair as the route does', () => {
    const truck = vehicleOf(null, { maxHeight: 3.6, maxWeight: 9000 })!;
    const points: LatLon[] = [west, east, { latitude: 0.0299, longitude: 0.015 }, { latitude: 0.005, longitude: 0.0301 }, { latitude: -0.0031, longitude: 0.005 }];
    // Stops within 100 m of a road (the one on the hgv=no street has no legal road in range), and within 1 km (it has).
    for (const [maxSnapDistance, failing] of [[100, true], [1000, false]] as const) {
      const near = new Router(graph, { maxSnapDistance });
      const m = near.matrix({ origins: points, destinations: points, calculationMode: 'THE_SHORTEST', vehicle: truck });
      points.forEach((from, o) => points.forEach((to, d) => {
        const i = o * points.length + d;
        try {
          const r = near.route({ points: [from, to], calculationMode: 'THE_SHORTEST', vehicle: truck });
          assert.ok(close(m.distance[i], r.distance), `${o}->${d}: ${m.distance[i]} vs ${r.distance}`);
        } catch (e) {
          assert.equal(m.failures.get(i)?.code, (e as DetourError).code, `${o}->${d}`);
        }
      }));
      assert.equal(m.failures.size > 0, failing, `${maxSnapDistance} m: pairs at the hgv=no stop fail only when no legal road is in range`);
    }
  });

  test('the graph file keeps the limits; damaged limits are refused', () => {
    const again = decodeGraph(encodeGraph(graph));
    assert.deepEqual([...again.limitRoads], [...graph.limitRoads]);
    for (const r of graph.limitRoads) assert.deepEqual(again.roadLimits(r), graph.roadLimits(r));
    const damaged = new RoadGraph({ ...graph.arrays(), limitRoads: Uint32Array.from(graph.limitRoads).reverse() }, graph.meta);
    assert.throws(() => decodeGraph(encodeGraph(damaged)), /limitRoads are not ascending/);
  });
});

/** Per road, 1 where the vehicle may not drive, 2 where only to reach a stop: from the stored limits, by this test's own reading. */
function closedRoads(graph: RoadGraph, v: Vehicle): Uint8Array {
  const closed = new Uint8Array(graph.roadCount);
  for (const r of graph.limitRoads) {
    const l = graph.roadLimits(r)!;
    const over = (limit: number | undefined, own: number | undefined) => limit !== undefined && own !== undefined && own > limit;
    const access = v.accessClass === 'hgv' ? l.hgv : v.accessClass === 'goods' ? l.goods : 0;
    if (over(l.heightM, v.heightM) || over(l.widthM, v.widthM) || over(l.lengthM, v.lengthM) || over(l.weightT, v.weightT) ||
      over(l.axleLoadT, v.axleLoadT) || access === 1 || (v.hazmat && l.noHazmat)) closed[r] = 1;
    else if (access === 2) closed[r] = 2;
  }
  return closed;
}

function randomVehicle(rand: () => number): Vehicle {
  const maybe = (p: number, x: number) => (rand() < p ? x : undefined);
  return vehicleOf(rand() < 0.3 ? 'TRUCK_WITH_THREE_DOUBLE_AXLES' : null, {
    maxHeight: maybe(0.8, 2.5 + rand() * 2), maxWidth: maybe(0.3, 2 + rand()), maxLength: maybe(0.3, 6 + rand() * 14),
    maxWeight: maybe(0.8, 1000 + rand() * 40_000), maxWeightPerAxle: maybe(0.3, 2000 + rand() * 10_000),
    maxWeightForDangerousMaterials: maybe(0.2, 1000), loadTypes: rand() < 0.3 ? ['GOODS'] : [],
  })!;
}

for (const [name, open] of [
  ['the default city', async () => loadGraph(DEFAULT_GRAPH_PATH)],
  ['Monaco', async () => (await importOsmWithSummary(sharedExtract('monaco.osm.pbf').path, 'pbf')).graph],
] as const) {
  const skip = name === 'Monaco' ? sharedExtract('monaco.osm.pbf').skip : false;
  test(`${name}: random vehicles' routes cost what a plain Dijkstra skipping their closed roads finds`, { skip }, async () => {
    const graph = await open();
    const router = new Router(graph);
    // Prepared for each vehicle (the overlay's cells customized around its roads, where the graph has an overlay): the same answers.
    const prepared = new Router(graph);
    const rand = seededRandom(name.length * 7919);
    const zones = name === 'the default city' ? [randomZone(graph, rand, 'a', 800), randomZone(graph, rand, 'b', 1500)] : [];
    router.prepareZones(zones);
    prepared.prepareZones(zones);
    let compared = 0, differ = 0, refused = 0, atDestination = 0, preparedChecked = 0;
    for (let k = 0; k < 12; k++) {
      const vehicle = randomVehicle(rand);
      prepared.prepareVehicle(vehicle);
      const closed = closedRoads(graph, vehicle);
      // Heavy vehicles drive at their own speeds (truckSpeeds.test checks those rules): the oracle's view has them.
      const timed = oracleHeavy(vehicle) ? oracleTimes(graph, true) : graph;
      const blocked = closed.map((c) => (c > 0 ? 1 : 0));
      for (let i = 0; i < 15; i++) {
        const r1 = Math.floor(rand() * graph.roadCount), r2 = Math.floor(rand() * graph.roadCount);
        const points = [r1, r2].map((r) => ({ latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }));
        const metric: Metric = rand() < 0.5 ? 'duration' : 'distance';
        const [a, b] = router.snapStops(points, undefined, vehicle);
        const expected = closed[a.road] || closed[b.road] ? NaN : Math.min(
          dijkstra(timed, sourceEndpoints(timed, a, metric), targetEndpoints(timed, b, metric), metric, blocked),
          directCost(timed, a, b, metric).cost,
        );
        let got: Route | DetourError;
        try {
          got = router.route({ points, calculationMode: metric === 'distance' ? 'THE_SHORTEST' : 'THE_FASTEST', vehicle });
        } catch (e) {
          got = e as DetourError;
        }
        const mode = metric === 'distance' ? 'THE_SHORTEST' : 'THE_FASTEST';
        for (const z of [[], zones]) {
          const outcome = (r: Router) => { try { const x = r.route({ points, calculationMode: mode, vehicle, zones: z }); return metric === 'distance' ? x.distance : x.duration; } catch (e) { return (e as DetourError).code; } };
          const [plain, ready] = [outcome(router), outcome(prepared)];
          assert.ok(plain === ready || (typeof plain === 'number' && typeof ready === 'number' && close(plain, ready)), `prepared ${ready} vs ${plain}`);
          preparedChecked++;
        }
        if (got instanceof DetourError) {
          if (closed[a.road] === 1 || closed[b.road] === 1) assert.equal(got.code, 'VEHICLE_NOT_ALLOWED', got.message);
          if (!Number.isNaN(expected)) assert.equal(expected, Infinity, `${name}: refused (${got.code}) where Dijkstra finds ${expected}`);
          refused++;
          continue;
        }
        for (const l of got.legs) for (const e of l.edges) assert.notEqual(closed[graph.edgeRoad[e]], 1, 'drives a closed road');
        if (Number.isNaN(expected)) { atDestination++; continue; }
        const free = metric === 'distance' ? got.distance : got.duration;
        assert.ok(close(free, expected, 1e-9), `${name}: ${free} vs Dijkstra ${expected}`);
        const car = router.route({ points, calculationMode: metric === 'distance' ? 'THE_SHORTEST' : 'THE_FASTEST' });
        if (!close(metric === 'distance' ? car.distance : car.duration, free)) differ++;
        compared++;
      }
    }
    assert.ok(compared >= 60, `only ${compared} pairs compared`);
    if (name === 'the default city') assert.ok(differ > 0, 'no vehicle route differed from the car\'s');
    assert.equal(refused + compared + atDestination, 180);
    assert.equal(preparedChecked, 360);
  });
}

/** A small synthetic country: 3 % of its city streets hgv=destination, 3 % hgv=no (bench/scaleGraphs.ts); made once for the tests below. */
let smallCountry: Promise<RoadGraph> | undefined;
function truckCountry(): Promise<RoadGraph> {
  return (smallCountry ??= buildCountry({ key: 'test', kind: 'country', nodes: 20_000, seed: 3 }).then((graph) => {
    buildHierarchy(graph);
    attachSearchIndexes(graph);
    return graph;
  }));
}

/**
 * A router of the small country with the truck's class prepared, made once for the tests below
 * (preparing the class is much of each test's time); a test leaves it as it found it.
 */
let preparedTruck: Promise<Router> | undefined;
function truckRouter(): Promise<Router> {
  return (preparedTruck ??= truckCountry().then((graph) => {
    const router = new Router(graph);
    router.prepareVehicle(vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!);
    return router;
  }));
}

/** The Dijkstra's graph and the roads closed to a truck, by the test's own reading of the limits. */
function truckOracle(graph: RoadGraph, truck: Vehicle) {
  const closed = closedRoads(graph, truck);
  return { forbidden: closed.map((c) => (c === 1 ? 1 : 0)), destination: closed.map((c) => (c === 2 ? 1 : 0)), timed: oracleTimes(graph, true) };
}
const truckOracles = new Map<Vehicle, ReturnType<typeof truckOracle>>();

/**
 * One truck leg between two stops off its closed roads (and off the zones' roads), on a prepared
 * router and an unprepared one, around `zones` if given, against the Dijkstra over the test's
 * closed roads that charges destination-only metres and the zones' metres: both refuse where it
 * finds nothing, else cost what it finds (the charge counted from the route's roads) and the same
 * as each other. The charged metres driven, or undefined when refused.
 */
function checkTruckLeg(graph: RoadGraph, prepared: Router, plain: Router, truck: Vehicle, points: LatLon[], metric: Metric, label: string, zones?: CalculatedZone[]): number | undefined {
  const oracle = (truckOracles.get(truck) ?? truckOracles.set(truck, truckOracle(graph, truck)).get(truck))!;
  const { forbidden, timed } = oracle;
  let destination = oracle.destination;
  if (zones) {
    destination = destination.slice();
    for (const z of zones) for (const r of z.roads) destination[r] = 1;
  }
  const [a, b] = prepared.snapStops(points, undefined, truck);
  const mode = metric === 'duration' ? 'THE_FASTEST' : 'THE_SHORTEST';
  const outcome = (r: Router) => { try { return r.route({ points, calculationMode: mode, vehicle: truck, zones }); } catch (e) { return (e as DetourError).code; } };
  const got = outcome(prepared), unprepared = outcome(plain);
  const expected = dijkstra(timed, sourceEndpoints(timed, a, metric), targetEndpoints(timed, b, metric), metric, forbidden, { roads: destination, costPerMetre: [0, ZONE_COST_PER_METRE] });
  if (typeof got === 'string') {
    assert.equal(expected, Infinity, `${label}: refused (${got}) where Dijkstra finds ${expected}`);
    assert.equal(unprepared, got);
    return undefined;
  }
  assert.ok(typeof unprepared !== 'string', `${label}: unprepared refused (${unprepared})`);
  const metres = got.legs[0].edges.reduce((m, e) => m + (destination[graph.edgeRoad[e]] ? graph.roadMetres(graph.edgeRoad[e]) : 0), 0);
  const value = (r: Route) => (metric === 'duration' ? r.duration : r.distance);
  assert.ok(close(value(got) + ZONE_COST_PER_METRE * metres, expected, 1e-9), `${label} ${mode}: ${value(got)} (${metres} m destination-only) vs Dijkstra ${expected}`);
  assert.ok(close(value(unprepared), value(got), 1e-9), `${label} ${mode}: ${value(got)} vs unprepared ${value(unprepared)}`);
  return metres;
}

/**
 * While `run` runs, how many legs EnclosureSearch answered by its exits and entries and how many
 * it left to the penalised search (`aroundZones`: only legs around zones).
 */
function countEnclosureLegs(aroundZones: boolean, run: () => void): { decided: number; left: number } {
  const proto = EnclosureSearch.prototype as unknown as { decompose: (q: unknown, zones: unknown) => unknown };
  const decompose = proto.decompose;
  const counts = { decided: 0, left: 0 };
  proto.decompose = function (this: EnclosureSearch, q: unknown, zones: unknown) {
    const out = decompose.call(this, q, zones);
    if (!aroundZones || zones !== undefined) { if (out === undefined) counts.left++; else counts.decided++; }
    return out;
  };
  try {
    run();
  } finally {
    proto.decompose = decompose;
  }
  return counts;
}

test('a prepared class crosses the cells of its destination-only roads by penalised cliques: legs that must drive them cost what a Dijkstra charging them finds, as unprepared', async () => {
  const graph = await truckCountry();
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const prepared = await truckRouter(), plain = new Router(graph);
  assert.equal(prepared.vehicleClasses, 1);
  assert.ok((prepared.vehicleRoads(truck).prepared?.penalised?.cells.length ?? 0) > 10, 'the destination-only roads\' cells have penalised cliques');
  const closed = closedRoads(graph, truck);
  const rand = seededRandom(41);
  let checked = 0, throughDestination = 0;
  for (let k = 0; k < 400 && throughDestination < 25; k++) {
    const points = [randomStop(graph, rand), randomStop(graph, rand)];
    const [a, b] = prepared.snapStops(points, undefined, truck);
    // Stops off destination-only roads: the charge is then the metres of whole roads the path drives.
    if (closed[a.road] !== 0 || closed[b.road] !== 0 || a.road === b.road) continue;
    const metres = checkTruckLeg(graph, prepared, plain, truck, points, k % 2 === 0 ? 'duration' : 'distance', `pair ${k}`);
    if (metres === undefined) continue;
    checked++;
    if (metres > 0) throughDestination++;
  }
  assert.ok(throughDestination >= 10 && checked >= 40, `${checked} pairs checked, ${throughDestination} through destination-only roads`);
});

test('legs with a stop behind destination-only roads: exits and entries of the stops\' enclosures joined by the class\'s own hierarchies cost what a Dijkstra charging those roads finds; the enclosures are the nodes outside the largest component without the class\'s closed roads', async () => {
  const graph = await truckCountry();
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const prepared = await truckRouter(), plain = new Router(graph);
  const closed = closedRoads(graph, truck);
  // The largest strongly connected component over the open roads, by the test's own searches: the
  // nodes a breadth-first search reaches both ways from each node not yet placed.
  const n = graph.nodeCount, { firstOut, edgeHead, edgeRoad } = graph;
  const tails = new Int32Array(edgeHead.length);
  for (let v = 0; v < n; v++) for (let e = firstOut[v]; e < firstOut[v + 1]; e++) tails[e] = v;
  const outOf: number[][] = Array.from({ length: n }, () => []), into: number[][] = Array.from({ length: n }, () => []);
  for (let e = 0; e < edgeHead.length; e++) if (closed[edgeRoad[e]] === 0) { outOf[tails[e]].push(edgeHead[e]); into[edgeHead[e]].push(tails[e]); }
  const reach = (from: number, next: number[][]) => { const seen = new Uint8Array(n); const queue = [from]; seen[from] = 1; for (let i = 0; i < queue.length; i++) for (const w of next[queue[i]]) if (!seen[w]) { seen[w] = 1; queue.push(w); } return seen; };
  const placed = new Uint8Array(n);
  let largest = new Uint8Array(n), largestSize = 0;
  for (let v = 0; v < n; v++) {
    if (placed[v]) continue;
    const f = reach(v, outOf), b = reach(v, into);
    const component = new Uint8Array(n);
    let size = 0;
    for (let w = 0; w < n; w++) if (f[w] && b[w]) { component[w] = 1; placed[w] = 1; size++; }
    if (size > largestSize) { largest = component; largestSize = size; }
    if (largestSize > n / 2) break;
  }
  const enclosed = prepared.vehicleRoads(truck).prepared!.enclosed!;
  let enclosedCount = 0;
  const insideNodes: number[] = [];
  for (let v = 0; v < n; v++) {
    assert.equal(enclosed[v] === 0, largest[v] === 1, `node ${v}`);
    if (enclosed[v] !== 0) { enclosedCount++; insideNodes.push(v); }
  }
  assert.ok(enclosedCount > 100, `${enclosedCount} enclosed nodes`);
  // An enclosed node's mark is 1 + log2 of its own component's size, rounded down (sampled).
  const sample = seededRandom(59);
  for (let k = 0; k < 100; k++) {
    const v = insideNodes[Math.floor(sample() * insideNodes.length)];
    const f = reach(v, outOf), b = reach(v, into);
    let size = 0;
    for (let w = 0; w < n; w++) if (f[w] && b[w]) size++;
    assert.equal(enclosed[v], 1 + Math.floor(Math.log2(size)), `node ${v}: component of ${size}`);
  }

  // Which legs the enclosures answered, and which the penalised search.
  const rand = seededRandom(53);
  let checked = 0, charged = 0;
  const { decided, left } = countEnclosureLegs(false, () => {
    for (let k = 0; k < 3000 && checked < 60; k++) {
      const points = [randomStop(graph, rand), randomStop(graph, rand)];
      const [a, b] = prepared.snapStops(points, undefined, truck);
      // Stops off the class's closed roads (the charge is then whole roads' metres), at least one enclosed.
      if (closed[a.road] !== 0 || closed[b.road] !== 0 || a.road === b.road) continue;
      const inside = (s: typeof a) => enclosed[graph.roadFrom[s.road]] !== 0 || enclosed[graph.roadTo[s.road]] !== 0;
      if (!inside(a) && !inside(b)) continue;
      const metres = checkTruckLeg(graph, prepared, plain, truck, points, k % 2 === 0 ? 'duration' : 'distance', `pair ${k}`);
      if (metres === undefined) continue;
      checked++;
      if (metres > 0) charged++;
    }
  });
  assert.ok(checked >= 60 && charged >= 20, `${checked} legs checked, ${charged} through destination-only roads`);
  assert.ok(decided >= 20, `${decided} legs answered by the enclosures' exits and entries, ${left} left to the penalised search`);
});

test('legs around zones with a stop behind destination-only roads: the enclosures\' exits and entries joined by the class\'s own search around the zones cost what a Dijkstra charging those roads and the zones\' roads finds, as unprepared', async () => {
  const graph = await truckCountry();
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const prepared = await truckRouter(), plain = new Router(graph);
  const enclosed = prepared.vehicleRoads(truck).prepared!.enclosed!;
  const closed = closedRoads(graph, truck);
  // Which legs around zones the enclosures answered, and which they left to the penalised search.
  const rand = seededRandom(67);
  let checked = 0, charged = 0;
  const { decided, left } = countEnclosureLegs(true, () => {
    for (let k = 0; k < 3000 && checked < 40; k++) {
      const points = [randomStop(graph, rand), randomStop(graph, rand)];
      const [a, b] = prepared.snapStops(points, undefined, truck);
      const inside = (s: typeof a) => enclosed[graph.roadFrom[s.road]] !== 0 || enclosed[graph.roadTo[s.road]] !== 0;
      if (closed[a.road] !== 0 || closed[b.road] !== 0 || a.road === b.road || (!inside(a) && !inside(b))) continue;
      // Zones on and beside the car's path, as the benches place them (three: ten of 1-5 km cut this
      // small country's stops off), prepared as a service prepares them.
      let path: LatLon[];
      try { path = prepared.route({ points }).legs[0].points; } catch { continue; }
      const zones = zonesOnPath(path, points, rand, `e${k}`).slice(0, 3).map((z) => calculateZone(graph, z)).filter((z) => z.roads.length > 0);
      if (zones.length === 0 || zones.some((z) => z.roads.includes(a.road) || z.roads.includes(b.road))) continue;
      prepared.prepareZones(zones);
      const metres = checkTruckLeg(graph, prepared, plain, truck, points, k % 2 === 0 ? 'duration' : 'distance', `pair ${k}`, zones);
      for (const z of zones) prepared.forgetZone(z);
      if (metres === undefined) continue;
      checked++;
      if (metres > 0) charged++;
    }
  });
  assert.ok(checked >= 40 && charged >= 20, `${checked} legs checked, ${charged} through destination-only roads or zones`);
  assert.ok(decided >= 15, `${decided} legs around zones answered by the enclosures' exits and entries, ${left} left to the penalised search`);
});

test('the enclosures\' proof: with destination-only roads charged little, a path found is returned only when no path driving one of them between the component\'s first and last node costs less, each road bounded on its own; it then costs what the Dijkstra finds', async () => {
  const graph = await truckCountry();
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const prepared = await truckRouter();
  const roads = prepared.vehicleRoads(truck);
  const { forbidden, destination, timed } = truckOracle(graph, truck);
  const times = roadTimes(graph, speedRules(truck))!;
  const view = graph.withRoadTimes(times.speedKmh, times.millis);
  const records = [new NodeRecords(graph.nodeCount), new NodeRecords(graph.nodeCount)] as const;
  const lower = new CHQuery(graph, (graph as HierarchyGraph).hierarchy!, records);
  let lowered = 0, fellBack = 0;
  const lowerFind = lower.find.bind(lower);
  lower.find = (...args) => { lowered++; return lowerFind(...args); };
  // Cheap enough that driving one in the middle often pays: the proof must turn those legs away.
  const perMetre = 0.05;
  const search = new EnclosureSearch(
    view, roads.prepared!.enclosed!, new CHQuery(graph, prepared.ownHierarchies(truck)!, records), lower, records,
    { name: 'refused', find: () => { fellBack++; return null; } }, roads.destinationOnly, perMetre, roads.destinationOnly.length,
  );
  const penalty = uniformPenalty(Uint8Array.from(destination), perMetre);
  const rand = seededRandom(61);
  let decided = 0;
  for (let k = 0; k < 4000 && decided < 25; k++) {
    const points = [randomStop(graph, rand), randomStop(graph, rand)];
    const [a, b] = prepared.snapStops(points, undefined, truck);
    if (forbidden[a.road] || forbidden[b.road] || destination[a.road] || destination[b.road] || a.road === b.road) continue;
    const metric: Metric = k % 2 === 0 ? 'duration' : 'distance';
    const before = fellBack;
    const found = search.find({
      sources: sourceEndpoints(view, a, metric, penalty), targets: targetEndpoints(view, b, metric, penalty), metric,
      targetLatitude: b.latitude, targetLongitude: b.longitude, blockedRoads: Uint8Array.from(forbidden), penalty, roadMillis: times.millis,
    });
    if (fellBack > before) continue;
    const expected = dijkstra(timed, sourceEndpoints(timed, a, metric), targetEndpoints(timed, b, metric), metric, forbidden, { roads: destination, costPerMetre: [0, perMetre] });
    assert.ok(close(found?.cost ?? Infinity, expected, 1e-9), `pair ${k} ${metric}: ${found?.cost} vs Dijkstra ${expected}`);
    decided++;
  }
  assert.ok(decided >= 25 && fellBack >= 5 && lowered >= 20, `${decided} legs answered, ${fellBack} turned away by the proof, ${lowered} queries of the lower bound`);
});

test('a prepared class\'s matrix: free elements by its own hierarchies\' buckets, around zones by the overlay crossing its cells by cliques made once, those that must drive destination-only roads by the overlay crossing their cells by priced cliques made once; each the Dijkstra\'s or the route\'s, as unprepared', async () => {
  const graph = await truckCountry();
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const prepared = await truckRouter(), plain = new Router(graph);
  prepared.prepareMatrices();
  assert.ok(prepared.ownHierarchies(truck) !== undefined && plain.ownHierarchies(truck) === undefined);
  // Which path the matrix takes: it asks for the class's hierarchies, runs the overlay with its priced cliques, routes few elements one by one.
  let asked = 0, routed = 0, priced = 0;
  const own = prepared.ownHierarchies.bind(prepared), route = prepared.route.bind(prepared);
  prepared.ownHierarchies = (v) => { asked++; return own(v); };
  prepared.route = (r) => { routed++; return route(r); };
  const overlayRun = OverlayManyToMany.prototype.run;
  OverlayManyToMany.prototype.run = function (this: OverlayManyToMany, ...args: Parameters<typeof overlayRun>) {
    if (args[10]?.priced) priced++;
    return overlayRun.apply(this, args);
  };
  const closed = closedRoads(graph, truck);
  const forbidden = closed.map((c) => (c === 1 ? 1 : 0)), destination = closed.map((c) => (c === 2 ? 1 : 0));
  const timed = oracleTimes(graph, true);
  const rand = seededRandom(43);
  const points = Array.from({ length: 14 }, () => randomStop(graph, rand));
  // And a stop no legal route joins to the first, though a car's does: its elements are refused, limits named.
  for (let k = 0; k < 2000; k++) {
    const stop = randomStop(graph, rand);
    try { route({ points: [points[0], stop], vehicle: truck }); } catch (e) {
      if ((e as DetourError).code === 'VEHICLE_NOT_ALLOWED' && /car's route crosses/.test((e as DetourError).message)) { points.push(stop); break; }
    }
  }
  assert.equal(points.length, 15, 'a stop enclosed by limits');
  routed = 0;
  let throughDestination = 0, free = 0, refused = 0;
  try {
    for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      const metric: Metric = mode === 'THE_FASTEST' ? 'duration' : 'distance';
      const m = prepared.matrix({ origins: points, destinations: points, calculationMode: mode, vehicle: truck });
      const reference = plain.matrix({ origins: points, destinations: points, calculationMode: mode, vehicle: truck });
      const snaps = prepared.snapStops(points, undefined, truck);
      points.forEach((_, o) => points.forEach((__, d) => {
        const i = o * points.length + d;
        assert.equal(m.failures.get(i)?.code, reference.failures.get(i)?.code, `${mode} ${o}->${d}`);
        if (m.failures.has(i)) {
          // The route's own error, limits named, though the matrix did not search for the route again.
          assert.throws(() => plain.route({ points: [points[o], points[d]], calculationMode: mode, vehicle: truck, pointLabels: [`origins[${o}]`, `destinations[${d}]`] }),
            (e: DetourError) => e.code === m.failures.get(i)!.code && e.message === m.failures.get(i)!.message, `${mode} ${o}->${d}: ${m.failures.get(i)!.message}`);
          refused++;
          return;
        }
        assert.ok(close(m.duration[i], reference.duration[i], 1e-9) && close(m.distance[i], reference.distance[i], 1e-9), `${mode} ${o}->${d}: ${m.distance[i]} m ${m.duration[i]} s vs unprepared ${reference.distance[i]} m ${reference.duration[i]} s`);
        const a = snaps[o], b = snaps[d];
        if (o === d || closed[a.road] !== 0 || closed[b.road] !== 0 || a.road === b.road) return;
        // The Dijkstra charging destination-only metres: a charge below one metre's means the matrix's path drives none of them.
        const expected = dijkstra(timed, sourceEndpoints(timed, a, metric), targetEndpoints(timed, b, metric), metric, forbidden, { roads: destination, costPerMetre: [0, ZONE_COST_PER_METRE] });
        const value = metric === 'duration' ? m.duration[i] : m.distance[i];
        if (expected < value + ZONE_COST_PER_METRE) { assert.ok(close(value, expected, 1e-9), `${mode} ${o}->${d}: ${value} vs Dijkstra ${expected}`); free++; return; }
        // Through destination-only roads: what the route (its own search over the class's penalised cliques) drives.
        const r = route({ points: [points[o], points[d]], calculationMode: mode, vehicle: truck });
        assert.ok(close(m.duration[i], r.duration, 1e-9) && close(m.distance[i], r.distance, 1e-9), `${mode} ${o}->${d}: ${m.distance[i]} m ${m.duration[i]} s vs route ${r.distance} m ${r.duration} s`);
        throughDestination++;
      }));
    }
  } finally {
    OverlayManyToMany.prototype.run = overlayRun;
  }
  assert.ok(asked >= 2, 'the matrix asked for the class\'s own hierarchies');
  assert.ok(priced >= 2, 'the overlay crossed the destination-only roads\' cells by the class\'s priced cliques');
  assert.ok(routed <= 2 * points.length, `${routed} elements routed one by one`);
  assert.ok(free >= 100 && throughDestination >= 4 && refused >= 1, `${free} elements checked against the Dijkstra, ${throughDestination} through destination-only roads against routes, ${refused} refused as routes are`);

  // Around zones: the overlay crosses the class's cells by its cliques made once (prepareMatrices), customizing the zones' only.
  const zones = [randomZone(graph, rand, 'a', 600), randomZone(graph, rand, 'b', 900), randomZone(graph, rand, 'c', 400)].filter((z) => z.roads.length > 0);
  assert.ok(zones.length >= 2);
  const zoneRoads = new Uint8Array(graph.roadCount);
  for (const z of zones) for (const r of z.roads) zoneRoads[r] = 1;
  const run = OverlayManyToMany.prototype.run;
  let withClassCliques = 0;
  OverlayManyToMany.prototype.run = function (this: OverlayManyToMany, ...args: Parameters<typeof run>) {
    if (args[10] !== undefined) withClassCliques++;
    return run.apply(this, args);
  };
  let aroundChecked = 0;
  try {
    for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      const metric: Metric = mode === 'THE_FASTEST' ? 'duration' : 'distance';
      const m = prepared.matrix({ origins: points, destinations: points, calculationMode: mode, vehicle: truck, zones });
      const reference = plain.matrix({ origins: points, destinations: points, calculationMode: mode, vehicle: truck, zones });
      const snaps = prepared.snapStops(points, undefined, truck);
      const blocked = forbidden.map((f, r) => (f === 1 || zoneRoads[r] === 1 ? 1 : 0));
      points.forEach((_, o) => points.forEach((__, d) => {
        const i = o * points.length + d;
        assert.equal(m.failures.get(i)?.code, reference.failures.get(i)?.code, `around zones ${mode} ${o}->${d}`);
        if (m.failures.has(i)) return;
        assert.ok(close(m.duration[i], reference.duration[i], 1e-9) && close(m.distance[i], reference.distance[i], 1e-9), `around zones ${mode} ${o}->${d}: ${m.distance[i]} m ${m.duration[i]} s vs unprepared ${reference.distance[i]} m ${reference.duration[i]} s`);
        const a = snaps[o], b = snaps[d];
        if (o === d || closed[a.road] !== 0 || closed[b.road] !== 0 || zoneRoads[a.road] || zoneRoads[b.road] || a.road === b.road) return;
        // Around the zones' roads and the forbidden ones, destination-only metres charged: exact where the path drives none.
        const expected = dijkstra(timed, sourceEndpoints(timed, a, metric), targetEndpoints(timed, b, metric), metric, blocked, { roads: destination, costPerMetre: [0, ZONE_COST_PER_METRE] });
        const value = metric === 'duration' ? m.duration[i] : m.distance[i];
        if (expected < value + ZONE_COST_PER_METRE) { assert.ok(close(value, expected, 1e-9), `around zones ${mode} ${o}->${d}: ${value} vs Dijkstra ${expected}`); aroundChecked++; }
      }));
    }
  } finally {
    OverlayManyToMany.prototype.run = run;
  }
  assert.ok(withClassCliques >= 2, 'the overlay crossed the class\'s cells by its cliques');
  assert.ok(aroundChecked >= 80, `${aroundChecked} elements around zones checked against the Dijkstra`);
  // The shared router's own methods again.
  Reflect.deleteProperty(prepared, 'ownHierarchies');
  Reflect.deleteProperty(prepared, 'route');
});

test('a prepared class without destination-only roads (a bus): matrix elements that must enter zones cross its cells by its cliques made once, none routed one by one; each the route\'s', async () => {
  const graph = await truckCountry();
  const bus = vehicleOf('BUS_WITH_THREE_DOUBLE_AXLES')!;
  const prepared = new Router(graph), plain = new Router(graph);
  prepared.prepareVehicle(bus);
  prepared.prepareMatrices();
  const roads = prepared.vehicleRoads(bus);
  assert.ok(roads.forbidden.length > 0 && roads.destinationOnly.length === 0, 'a class with closed roads and no destination-only ones');
  const rand = seededRandom(47);
  const zones = [randomZone(graph, rand, 'a', 700), randomZone(graph, rand, 'b', 900)].filter((z) => z.roads.length > 0);
  assert.ok(zones.length === 2);
  // Stops inside the zones (their elements must enter them) and around.
  const points: LatLon[] = [];
  for (const z of zones) for (let k = 0; k < 3; k++) {
    const road = z.roads[Math.floor(rand() * z.roads.length)];
    points.push({ latitude: graph.roadPointLat(road, 0), longitude: graph.roadPointLon(road, 0) });
  }
  while (points.length < 14) points.push(randomStop(graph, rand));
  // The test's routes run unwrapped; the matrix's own would be counted.
  let routed = 0, withCliques = 0;
  const route = prepared.route.bind(prepared);
  prepared.route = (r) => { routed++; return route(r); };
  const run = OverlayManyToMany.prototype.run;
  OverlayManyToMany.prototype.run = function (this: OverlayManyToMany, ...args: Parameters<typeof run>) {
    if (args[7] !== undefined && args[10] !== undefined) withCliques++; // the zone-entering pass (a penalty) over the class's cliques
    return run.apply(this, args);
  };
  let entering = 0, checked = 0;
  try {
    for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      const m = prepared.matrix({ origins: points, destinations: points, calculationMode: mode, vehicle: bus, zones });
      const reference = plain.matrix({ origins: points, destinations: points, calculationMode: mode, vehicle: bus, zones });
      points.forEach((_, o) => points.forEach((__, d) => {
        const i = o * points.length + d;
        assert.equal(m.failures.get(i)?.code, reference.failures.get(i)?.code, `${mode} ${o}->${d}`);
        if (m.failures.has(i) || o === d) return;
        assert.ok(close(m.duration[i], reference.duration[i], 1e-9) && close(m.distance[i], reference.distance[i], 1e-9), `${mode} ${o}->${d}: ${m.distance[i]} m ${m.duration[i]} s vs unprepared ${reference.distance[i]} m ${reference.duration[i]} s`);
        const r = route({ points: [points[o], points[d]], calculationMode: mode, vehicle: bus, zones });
        assert.ok(close(m.duration[i], r.duration, 1e-9) && close(m.distance[i], r.distance, 1e-9), `${mode} ${o}->${d}: ${m.distance[i]} m ${m.duration[i]} s vs route ${r.distance} m ${r.duration} s`);
        checked++;
        if ((r.legs[0].zonesEntered?.length ?? 0) > 0) entering++;
      }));
    }
  } finally {
    OverlayManyToMany.prototype.run = run;
  }
  // But those of two stops on one zone's road (the diagonal's among them), whose straight drive route() weighs.
  const zoneRoads = new Set(zones.flatMap((z) => [...z.roads]));
  const snaps = prepared.snapStops(points, undefined, bus);
  const sameZoneRoad = snaps.reduce((n, a) => n + snaps.filter((b) => b.road === a.road && zoneRoads.has(a.road)).length, 0);
  assert.equal(routed, 2 * sameZoneRoad, 'the matrix routed no other element one by one');
  assert.ok(withCliques >= 2, 'the zone-entering pass crossed the class\'s cells by its cliques');
  assert.ok(entering >= 40 && checked >= 300, `${entering} elements entering zones, ${checked} checked against routes`);
});

test('a class\'s priced cliques: each entry to each exit of a cell costs what a Dijkstra inside the cell finds, its destination-only metres charged and its closed roads closed; the plain cost where none is driven', async () => {
  const graph = await truckCountry();
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const closed = closedRoads(graph, truck);
  const forbidden = closed.map((c) => (c === 1 ? 1 : 0)), destination = closed.map((c) => (c === 2 ? 1 : 0));
  const list = (mask: Uint8Array) => Uint32Array.from([...mask.keys()].filter((r) => mask[r] === 1));
  const overlay = (graph as HierarchyGraph).hierarchy!.overlay as CellOverlay & { fine: CellOverlay };
  const fine = overlay.fine;
  const penalty = { roads: destination, costPerMetre: Float64Array.of(0, ZONE_COST_PER_METRE), roadLists: [list(destination)] };
  const priced = new OverlayManyToMany(graph, overlay).fixedCliques('duration', forbidden, list(forbidden), undefined, penalty);
  assert.ok(priced.priced && priced.small.cells.length > 10 && priced.big.cells.length > 0);
  const level = levelView(fine);
  let checked = 0, charged = 0;
  for (let j = 0; j < priced.small.cells.length; j += Math.ceil(priced.small.cells.length / 12)) {
    const c = priced.small.cells[j];
    // Inside the cell: every road with an edge leaving it closed too.
    const outside = forbidden.slice();
    for (let e = 0; e < graph.edgeCount; e++) if (fine.cellOf[graph.edgeTailOf(e)] !== c || fine.cellOf[graph.edgeHead[e]] !== c) outside[graph.edgeRoad[e]] = 1;
    const closedToo = outside.map((v, r) => v | destination[r]);
    const e0 = level.entryFirst[c], E = level.entryFirst[c + 1] - e0, x0 = level.exitFirst[c], X = level.exitFirst[c + 1] - x0;
    for (let i = 0; i < E; i++) {
      for (let k = 0; k < X; k++) {
        const at = priced.small.first[j] + i * X + k;
        const from = [{ node: level.entryNode[e0 + i], cost: 0 }], to = [{ node: level.exitNode[x0 + k], cost: 0 }];
        const want = dijkstra(graph, from, to, 'duration', outside, penalty);
        const cost = priced.small.cost[at], plain = priced.small.plain![at] * COST_STEP.duration;
        assert.ok(want === Infinity ? cost === Infinity : cost < Infinity && close(cost, want, 1e-9), `cell ${c} entry ${i} exit ${k}: ${cost} vs Dijkstra ${want}`);
        if (cost === Infinity) continue;
        checked++;
        // Without its destination-only roads: the same cost where the clique drives none, and then its plain cost is that.
        const without = dijkstra(graph, from, to, 'duration', closedToo);
        if (without < Infinity && close(without, want, 1e-9)) assert.ok(close(plain, cost, 1e-9), `cell ${c} entry ${i} exit ${k}: plain ${plain} vs ${cost}`);
        else { assert.ok(cost - plain >= ZONE_COST_PER_METRE * 0.01 && plain < cost, `cell ${c} entry ${i} exit ${k}: charged ${cost - plain}`); charged++; }
      }
    }
  }
  assert.ok(checked >= 200 && charged >= 10, `${checked} clique entries checked, ${charged} charged`);
});

test('the CLI routes a vehicle and reports it; a bad figure is refused', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'route', '--from', '57.7055,11.95', '--to', '57.7055,11.985', ...args], { encoding: 'utf8' });
  const res = run('--vehicle', 'TRUCK_WITH_TWO_DOUBLE_AXLES', '--max-height', '3.9');
  assert.equal(res.status, 0, res.stderr);
  const out = JSON.parse(res.stdout);
  assert.deepEqual([out.vehicle.vehicleType, out.vehicle.height, out.vehicle.weight], ['TRUCK_WITH_TWO_DOUBLE_AXLES', 3.9, 16000]);
  const bad = run('--max-weight', 'heavy');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--max-weight/);
  // Speed caps per road type: a slower route, the preferences reported; a malformed or unknown one refused.
  const car = JSON.parse(run().stdout), slow = run('--speed', 'LOCAL_ROAD=12', '--speed', 'SECONDARY_ROAD=20/15');
  assert.equal(slow.status, 0, slow.stderr);
  const slowed = JSON.parse(slow.stdout);
  assert.ok(slowed.duration > car.duration * 1.2, `${slowed.duration} s against the car's ${car.duration} s`);
  assert.deepEqual(slowed.vehicle.speedPreferences, [{ roadType: 'LOCAL_ROAD', speed: 12 }, { roadType: 'SECONDARY_ROAD', speed: 20, speedAtToll: 15 }]);
  for (const arg of ['HIGHWAY', 'MOTORWAY=80']) {
    const refused = run('--speed', arg);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, arg === 'HIGHWAY' ? /--speed/ : /roadType/);
  }
});

test('the default city: a prepared class routes on hierarchies of its own, contracted in the graph\'s order without its closed and destination-only roads; their paths cost what a plain Dijkstra over the rest at its speeds finds', async () => {
  const graph = await loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const closed = closedRoads(graph, truck);
  assert.ok(closed.includes(1) && closed.includes(2), 'the truck has closed and destination-only roads on the default city');
  assert.equal(router.vehicleHierarchies(vehicleOf('CAR')!), undefined, 'a car drives every road as the graph\'s hierarchies do');
  const own = router.vehicleHierarchies(truck)!;
  const view = oracleTimes(graph, true);
  const blocked = closed.map((c) => (c > 0 ? 1 : 0));
  const query = new CHQuery(graph, own);
  const rand = seededRandom(4242);
  let reachable = 0;
  for (let i = 0; i < 600; i++) {
    const s = Math.floor(rand() * graph.nodeCount), t = Math.floor(rand() * graph.nodeCount);
    for (const metric of ['duration', 'distance'] as const) {
      const got = query.find([{ node: s, cost: 0, reversed: false }], [{ node: t, cost: 0, reversed: false }], metric);
      const expected = dijkstra(view, [{ node: s, cost: 0 }], [{ node: t, cost: 0 }], metric, blocked);
      assert.ok(got === null ? expected === Infinity : close(got.cost, expected, 1e-9), `${metric} ${s} -> ${t}: ${got?.cost} vs Dijkstra ${expected}`);
      if (got) for (const e of got.edges) assert.equal(blocked[graph.edgeRoad[e]], 0, 'drives a road the class may not');
      if (got) reachable++;
    }
  }
  assert.ok(reachable >= 100, `only ${reachable} reachable pairs`);

  // Prepared (its cells, its hierarchies, and the zones prepared before it customized for it too),
  // its routes around a zone cross the zone's cells by cliques made for the class, and cost what the Dijkstra finds.
  // Zones around roads closed to the truck, so their cells hold some: the class's cliques of those cells must avoid both.
  const closedList = [...closed.keys()].filter((r) => closed[r] === 1);
  const zones = Array.from({ length: 6 }, (_, k) => {
    const r = closedList[Math.floor(rand() * closedList.length)];
    const cy = graph.roadPointLat(r, 0), cx = graph.roadPointLon(r, 0), dy = 250 / 111_320, dx = dy / Math.cos((cy * Math.PI) / 180);
    return calculateZone(graph, zoneFromGeoJson(`z${k}`, { type: 'Polygon', coordinates: [[[cx - dx, cy - dy], [cx + dx, cy - dy], [cx + dx, cy + dy], [cx - dx, cy + dy], [cx - dx, cy - dy]]] }));
  });
  const zone = randomZone(graph, rand, 'z', 1500);
  // A zone without roads in the set: nothing to customize for it, the others still are.
  const empty = calculateZone(graph, zoneFromGeoJson('empty', { type: 'Polygon', coordinates: [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]] }));
  zones.push(zone, empty);
  router.prepareZones(zones);
  assert.equal(router.vehicleClasses, 0);
  router.prepareVehicle(truck);
  assert.equal(router.vehicleClasses, 1);
  const classRouter = (router as unknown as { classRouters: Map<string, Router> }).classRouters.values().next().value!;
  // The same zones and cells customized for the class as for the car, in the class's own cliques.
  assert.equal(empty.status.name, 'CALCULATED_WITHOUT_ROADS');
  assert.ok(router.preparedZones.zones >= 6);
  assert.deepEqual(classRouter.preparedZones, router.preparedZones);
  const search = classRouter.search, find = search.find.bind(search);
  let crossed = 0, compared = 0;
  search.find = (query) => { crossed += query.blockedCellCliques?.filter((c) => c !== undefined).length ?? 0; return find(query); };
  const around = blocked.slice();
  for (const z of zones) for (const r of z.roads) around[r] = 1;
  for (let i = 0; i < 600; i++) {
    const r1 = Math.floor(rand() * graph.roadCount), r2 = Math.floor(rand() * graph.roadCount);
    const points = [r1, r2].map((r) => ({ latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }));
    const [a, b] = router.snapStops(points, undefined, truck);
    if (around[a.road] || around[b.road]) continue;
    const expected = Math.min(dijkstra(view, sourceEndpoints(view, a, 'duration'), targetEndpoints(view, b, 'duration'), 'duration', around), directCost(view, a, b, 'duration').cost);
    if (expected === Infinity) continue;
    const got = router.route({ points, vehicle: truck, zones });
    assert.ok(close(got.duration, expected, 1e-9), `around the zones: ${got.duration} vs Dijkstra ${expected}`);
    compared++;
  }
  assert.ok(compared >= 300, `only ${compared} pairs compared`);
  assert.ok(crossed > 0, 'the zones\' cells were crossed by the class\'s cliques');
});

test('serve prepares the SDK\'s truck type by default, the types DETOUR_PREPARE_VEHICLES lists, or none; an unknown type stops it', async () => {
  const { configFromEnv } = await import('../src/service/startService.js');
  assert.deepEqual(configFromEnv({}).prepareVehicles, ['TRUCK_WITH_TWO_DOUBLE_AXLES']);
  assert.deepEqual(configFromEnv({ DETOUR_PREPARE_VEHICLES: 'BUS_WITH_TWO_DOUBLE_AXLES, TRUCK_WITH_SIX_DOUBLE_AXLES' }).prepareVehicles, ['BUS_WITH_TWO_DOUBLE_AXLES', 'TRUCK_WITH_SIX_DOUBLE_AXLES']);
  assert.deepEqual(configFromEnv({ DETOUR_PREPARE_VEHICLES: 'none' }).prepareVehicles, []);
  assert.throws(() => configFromEnv({ DETOUR_PREPARE_VEHICLES: 'TRUCK,CAR' }), /DETOUR_PREPARE_VEHICLES must list Maplink vehicle types.*got TRUCK/);
});

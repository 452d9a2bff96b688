import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  calculateZone, DEFAULT_GRAPH_PATH, importOsmWithSummary, loadGraph, Router, validateZone, vehicleOf,
  type CalculatedZone, type LatLon, type Route,
} from '../src/index.js';
import { activeIntervals, type ZoneSchedule } from '../src/zones/schedule.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import type { RoadGraph } from '../src/graph/RoadGraph.js';
import { entryNodes, exitNodes } from '../src/routing/zoneCrossings.js';
import type { Store } from '../src/store/Store.js';
import { close, dijkstra, randomZone, scheduleWaits, seededRandom, sharedExtract, square, zoneIssuePaths } from './support/helpers.js';
import {
  authorise, http, listen, newClient, postgresKind, postgresSkipReason, sqliteKind, TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';

/**
 * Zones with a schedule: the schedule read in its time zone (midnight, DST, exceptions) against
 * instants written out by hand; routes checked against the plain Dijkstra made time-dependent (it
 * may wait at any node: FIFO), driving a scheduled road only while none of its zones is active.
 */

// Asked before any test runs: the routing tests below hold the event loop for seconds.
const pgSkip = (await postgresSkipReason()) ?? false;

const geometries = [{ vertices: square(57.7, 11.97, 0.005) }];
const iso = (t: number) => new Date(t).toISOString();
const pairs = (iv: number[]) => Array.from({ length: iv.length / 2 }, (_, i) => [iso(iv[2 * i]), iso(iv[2 * i + 1])]);
const ZMRC: ZoneSchedule = {
  timeZone: 'America/Sao_Paulo',
  windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: '05:00', to: '21:00' }, { days: ['SAT'], from: '10:00', to: '14:00' }],
  exceptions: [{ date: '2026-12-25', active: false }],
};

test('a schedule: weekly windows in its time zone, a window across midnight, exceptions, each bad member named', () => {
  assert.deepEqual(validateZone({ name: 'z', geometries, schedule: ZMRC }).schedule, ZMRC);
  // São Paulo is UTC-3 all year: Saturday 10-14, none on Sunday.
  assert.deepEqual(pairs(activeIntervals(ZMRC, Date.parse('2026-12-24T00:00Z'), Date.parse('2026-12-28T12:00Z'))), [
    ['2026-12-24T08:00:00.000Z', '2026-12-25T00:00:00.000Z'], // Thursday 05:00 to 21:00; Christmas Friday off
    ['2026-12-26T13:00:00.000Z', '2026-12-26T17:00:00.000Z'],
    ['2026-12-28T08:00:00.000Z', '2026-12-28T12:00:00.000Z'],
  ]);
  const night: ZoneSchedule = { timeZone: 'Europe/Stockholm', windows: [{ days: ['SUN'], from: '22:00', to: '02:00' }], exceptions: [{ date: '2026-12-07', active: false }, { date: '2026-12-09', active: true }] };
  assert.deepEqual(pairs(activeIntervals(night, Date.parse('2026-11-29T00:00Z'), Date.parse('2026-12-10T00:00Z'))), [
    ['2026-11-29T21:00:00.000Z', '2026-11-30T01:00:00.000Z'], // Sunday 22:00 CET to Monday 02:00
    ['2026-12-06T21:00:00.000Z', '2026-12-06T23:00:00.000Z'], // stops at the midnight of an inactive Monday
    ['2026-12-08T23:00:00.000Z', '2026-12-09T23:00:00.000Z'], // an active Wednesday, whole
  ]);
  const bad = { timeZone: 'Mars/Olympus', windows: [{ days: ['MON', 'XYZ'], from: '25:00', to: '09:00', every: 2 }, { days: [], from: '10:00', to: '10:00' }], exceptions: [{ date: '2026-02-30', active: 'yes' }, { date: '2026-03-01', active: true }, { date: '2026-03-01', active: false }], color: 'red' };
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, schedule: bad }).sort(), [
    'schedule.color', 'schedule.exceptions[0].active', 'schedule.exceptions[0].date', 'schedule.exceptions[2].date', 'schedule.timeZone',
    'schedule.windows[0].days[1]', 'schedule.windows[0].every', 'schedule.windows[0].from', 'schedule.windows[1].days', 'schedule.windows[1].to',
  ]);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, schedule: 'weekdays' }), ['schedule']);
  assert.deepEqual(zoneIssuePaths({ name: 'z', geometries, schedule: { timeZone: 'UTC', windows: [{ days: ['MON'], from: '24:00', to: '01:00' }] } }), ['schedule.windows[0].from']);
});

test('local times across DST changes: a skipped time counts from the change, a repeated one at its first occurrence', () => {
  // New York: clocks go 02:00 -> 03:00 on 2026-03-08 and 02:00 -> 01:00 on 2026-11-01.
  const ny = (from: string, to: string): ZoneSchedule => ({ timeZone: 'America/New_York', windows: [{ days: ['SUN'], from, to }] });
  assert.deepEqual(pairs(activeIntervals(ny('01:00', '04:00'), Date.parse('2026-03-08T00:00Z'), Date.parse('2026-03-09T00:00Z'))), [['2026-03-08T06:00:00.000Z', '2026-03-08T08:00:00.000Z']]);
  assert.deepEqual(pairs(activeIntervals(ny('02:30', '03:30'), Date.parse('2026-03-08T00:00Z'), Date.parse('2026-03-09T00:00Z'))), []);
  assert.deepEqual(pairs(activeIntervals(ny('00:30', '01:30'), Date.parse('2026-11-01T00:00Z'), Date.parse('2026-11-02T00:00Z'))), [['2026-11-01T04:30:00.000Z', '2026-11-01T05:30:00.000Z']]);
  assert.deepEqual(pairs(activeIntervals(ny('08:00', '09:00'), Date.parse('2026-10-25T00:00Z'), Date.parse('2026-11-02T00:00Z'))), [
    ['2026-10-25T12:00:00.000Z', '2026-10-25T13:00:00.000Z'], // EDT, UTC-4
    ['2026-11-01T13:00:00.000Z', '2026-11-01T14:00:00.000Z'], // EST, UTC-5
  ]);
  // A whole day across the change lasts 23 hours.
  const iv = activeIntervals(ny('00:00', '24:00'), Date.parse('2026-03-08T00:00Z'), Date.parse('2026-03-10T00:00Z'));
  assert.equal((iv[1] - iv[0]) / 3_600_000, 23);
});

describe('routes around scheduled zones', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const withSchedule = (zone: CalculatedZone, schedule: ZoneSchedule, name = zone.zone.name): CalculatedZone => ({ ...zone, zone: { ...zone.zone, name, schedule } });
  // Monday 2026-12-07 08:00 in Gothenburg.
  const departure = Date.parse('2026-12-07T07:00:00Z');
  const local = (minutes: number) => { const m = ((minutes % 1440) + 1440) % 1440; return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`; };
  const v = (latitude: number, longitude: number) => ({ latitude, longitude });
  const points = [v(57.7055, 11.95), v(57.7055, 11.985)];
  const centre = calculateZone(graph, validateZone({ name: 'centre', geometries: [{ vertices: square(57.705, 11.9675, 0.006) }] }));
  /** Active from `a` to `b` minutes after 08:00 local on Mondays. */
  const closedFor = (a: number, b: number): ZoneSchedule => ({ timeZone: 'Europe/Stockholm', windows: [{ days: ['MON'], from: local(480 + a), to: local(480 + b) }] });

  test('THE_FASTEST arrives when a time-dependent Dijkstra that waits does; THE_SHORTEST drives the shortest path and waits on it', () => {
    const rand = seededRandom(2026);
    let compared = 0, waited = 0, changed = 0;
    for (let k = 0; k < 10; k++) {
      const zones = [0, 1, 2].map((i) => {
        const windows = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
          const a = Math.floor(rand() * 40) - 15;
          return { days: ['MON' as const], from: local(480 + a), to: local(480 + a + 1 + Math.floor(rand() * 40)) };
        });
        return withSchedule(randomZone(graph, rand, `z${i}`, 800 + rand() * 1500), { timeZone: 'Europe/Stockholm', windows });
      });
      // Half the sets prepared, as a service prepares every zone: legs during which they stay active cross their cliques.
      if (k % 2 === 0) router.prepareZones(zones);
      const wait = scheduleWaits(graph, zones, departure);
      for (let i = 0; i < 10; i++) {
        const pts = [0, 1].map((): LatLon => { const r = Math.floor(rand() * graph.roadCount); return v(graph.roadPointLat(r, 1), graph.roadPointLon(r, 1)); });
        const [a, b] = router.snapStops(pts);
        const oracle = Math.min(
          dijkstra(graph, sourceEndpoints(graph, a, 'duration'), targetEndpoints(graph, b, 'duration'), 'duration', undefined, undefined, wait),
          directCost(graph, a, b, 'duration').cost,
        );
        let fastest: Route;
        try {
          fastest = router.route({ points: pts, zones, departure });
        } catch (e) {
          assert.equal(oracle, Infinity, `${(e as Error).message}: the oracle arrives after ${oracle} s`);
          continue;
        }
        assert.ok(Math.abs(fastest.duration - oracle) <= 1e-6 * oracle + 1e-3, `route arrives after ${fastest.duration} s, the oracle after ${oracle} s`);
        const free = router.route({ points: pts, departure });
        if (fastest.duration > free.duration + 1e-6) changed++;
        if (fastest.legs[0].waits) {
          waited++;
          for (const w of fastest.legs[0].waits) {
            assert.ok(zones.some((z) => z.zone.name === w.zone) && w.seconds > 0 && Math.abs(Date.parse(w.until) - Date.parse(w.from) - w.seconds * 1000) <= 1, JSON.stringify(w));
          }
        }
        // THE_SHORTEST: every road here opens within the horizon, so the shortest path, with its waits.
        const shortest = router.route({ points: pts, zones, departure, calculationMode: 'THE_SHORTEST' });
        const plain = Math.min(dijkstra(graph, sourceEndpoints(graph, a, 'distance'), targetEndpoints(graph, b, 'distance'), 'distance'), directCost(graph, a, b, 'distance').cost);
        assert.ok(Math.abs(shortest.distance - plain) <= 1e-6 * plain + 0.05, `shortest ${shortest.distance} m, plain ${plain} m`);
        const leg = shortest.legs[0];
        const weight = graph.edgeCost('duration');
        // The first edge leaves when the start road's part is driven (no wait on a stop's own road).
        let t = leg.edges.length === 0 ? 0 : sourceEndpoints(graph, a, 'duration').find((s) => s.node === graph.edgeTailOf(leg.edges[0]))!.cost;
        let waits = 0;
        for (const e of leg.edges) { const w = wait(graph.edgeRoad[e], t, weight[e]); waits += w; t += w + weight[e]; }
        assert.ok(Math.abs(waits - (leg.waits ?? []).reduce((s, w) => s + w.seconds, 0)) < 1e-6, 'the shortest path waits as the oracle does on it');
        compared++;
      }
    }
    assert.ok(compared > 60 && changed > 5 && waited > 0, `${compared} compared, ${changed} changed by the zones, ${waited} waited`);
  });

  test('a route waits at the zone\'s edge when it opens soon, goes around when waiting costs more, drives through when it is inactive', () => {
    const free = router.route({ points, departure });
    const around = router.route({ points, zones: [centre], departure });
    assert.ok(around.distance > free.distance);
    const detour = around.duration - free.duration;
    // Closed until a few minutes after the departure: once that is soon enough, waiting at the edge costs less than the detour.
    const opens = [1, 2, 3, 4, 5, 6, 7, 8].find((m) => router.route({ points, zones: [withSchedule(centre, closedFor(-10, m))], departure }).legs[0].waits);
    assert.ok(opens, 'some closing time makes the route wait');
    const soon = router.route({ points, zones: [withSchedule(centre, closedFor(-10, opens))], departure });
    assert.equal(soon.distance, free.distance);
    const waits = soon.legs[0].waits!;
    assert.equal(waits.length, 1);
    assert.ok(soon.duration > free.duration && soon.duration < around.duration, `${soon.duration} s between ${free.duration} and ${around.duration}`);
    assert.ok(close(soon.duration, free.duration + waits[0].seconds, 1e-6));
    assert.equal((Date.parse(waits[0].until) - departure) % 60_000, 0, `the wait ends as the zone opens, on the minute: ${waits[0].until}`);
    // Its steps: the wait in the one it happens in, so they still sum to the leg.
    const stepped = router.route({ points, zones: [withSchedule(centre, closedFor(-10, opens))], departure, steps: 'pt_BR' });
    assert.ok(stepped.legs[0].waits, 'the same wait');
    assert.ok(close(stepped.legs[0].steps!.reduce((sum, s) => sum + s.duration, 0), stepped.legs[0].duration, 1e-9));
    // Closed for three hours: around.
    const late = router.route({ points, zones: [withSchedule(centre, closedFor(-10, 180))], departure });
    assert.deepEqual([late.distance, late.duration, late.legs[0].waits], [around.distance, around.duration, undefined]);
    // Closed only before the departure, or on another day: through, as if absent.
    for (const schedule of [closedFor(-60, -1), { timeZone: 'Europe/Stockholm', windows: [{ days: ['TUE' as const], from: '00:00', to: '24:00' }] }]) {
      const r = router.route({ points, zones: [withSchedule(centre, schedule)], departure });
      assert.deepEqual([r.distance, r.duration], [free.distance, free.duration]);
    }
    // The same zone always closed, and closed the whole horizon: as the HARD zone.
    const always = router.route({ points, zones: [withSchedule(centre, { timeZone: 'UTC', windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'], from: '00:00', to: '24:00' }] })], departure });
    assert.equal(always.distance, around.distance);
    assert.ok(detour > 0);
    // The second leg leaves when the first arrives: a zone closing after that turns it, not the first.
    const closesLater = withSchedule(centre, closedFor(Math.ceil(free.duration / 60) + 1, 240));
    const there = router.route({ points: [points[0], points[1], points[0]], zones: [closesLater], departure });
    const backAlone = router.route({ points: [points[1], points[0]], zones: [closesLater], departure: departure + there.legs[0].duration * 1000 });
    assert.equal(there.legs[0].distance, free.distance);
    assert.deepEqual([there.legs[1].distance, there.legs[1].duration], [backAlone.distance, backAlone.duration]);
    assert.notEqual(backAlone.duration, router.route({ points: [points[1], points[0]], departure }).duration);
    assert.throws(() => router.route({ points, zones: [centre], departure: 'tomorrow' }), (e: Error & { code?: string }) => e.code === 'INVALID_INPUT' && /departure/.test(e.message));
  });

  test('matrices around zones that share a timeline, opening or closing during the trips: every element as the time-dependent Dijkstra, few routes', () => {
    const rand = seededRandom(4242);
    const route = router.route.bind(router);
    let elements = 0, routed = 0, waited = 0, through = 0;
    try {
      router.route = (request) => { routed++; return route(request); };
      for (let k = 0; k < 12; k++) {
        // Closed at the departure and opening within the trips, or open and closing within them; a second window after.
        const a = k % 2 === 0 ? -20 : 2 + Math.floor(rand() * 8), b = a + (k % 2 === 0 ? 22 + Math.floor(rand() * 8) : 4 + Math.floor(rand() * 10));
        const gap = 2 + Math.floor(rand() * 4);
        const schedule: ZoneSchedule = { timeZone: 'Europe/Stockholm', windows: [{ days: ['MON'], from: local(480 + a), to: local(480 + b) }, { days: ['MON'], from: local(480 + b + gap), to: local(480 + b + gap + 10) }] };
        const zones = [0, 1, 2].map((i) => withSchedule(randomZone(graph, rand, `z${i}`, 700 + rand() * 1200), schedule));
        // On the big component (a pair on a tiny one is a route).
        const stops = Array.from({ length: 6 }, (): LatLon => {
          let r: number;
          do r = Math.floor(rand() * graph.roadCount); while (!router.snapIndex.inBigComponent(r));
          return v(graph.roadPointLat(r, 1), graph.roadPointLon(r, 1));
        });
        const wait = scheduleWaits(graph, zones, departure);
        const before = routed;
        const m = router.matrix({ origins: stops, destinations: stops, zones, departure });
        const routes = routed - before;
        // Elements arriving after the zones close again (opening again after that, when closed at the departure) may be routes.
        const second = 60 * (k % 2 === 0 ? b + gap + 10 : b);
        const closed = router.matrix({ origins: stops, destinations: stops, zones: zones.map((z) => ({ ...z, zone: { ...z.zone, schedule: undefined } })) });
        const free = router.matrix({ origins: stops, destinations: stops });
        const onZone = (s: { road: number }) => zones.some((z) => z.roads.includes(s.road));
        let mayRoute = 0;
        stops.forEach((_, i) => stops.forEach((__, j) => {
          // Snapped as a route's first and last stops, as a matrix snaps its origins and destinations.
          const e = i * stops.length + j, [a0, b0] = router.snapStops([stops[i], stops[j]]);
          const oracle = Math.min(dijkstra(graph, sourceEndpoints(graph, a0, 'duration'), targetEndpoints(graph, b0, 'duration'), 'duration', undefined, undefined, wait), directCost(graph, a0, b0, 'duration').cost);
          assert.ok(Math.abs(m.duration[e] - oracle) <= 1e-6 * oracle + 1e-3, `set ${k} element ${i},${j}: ${m.duration[e]} s, the oracle ${oracle} s`);
          if (onZone(a0) || onZone(b0) || !(oracle <= second)) mayRoute++;
          const r = route({ points: [stops[i], stops[j]], zones, departure });
          assert.ok(close(m.distance[e], r.distance, 1e-6), `set ${k} element ${i},${j}: ${m.distance[e]} m, the route ${r.distance} m`);
          if (r.legs[0].waits) waited++;
          else if (m.duration[e] < closed.duration[e] - 1e-6 && m.duration[e] > free.duration[e] + 1e-6) through++;
          elements++;
        }));
        // Only elements with a stop on a zone's road (a route's own rules serve such a stop) or arriving after the second change are routes.
        assert.ok(routes <= mayRoute, `set ${k}: ${routes} elements routed, ${mayRoute} may be`);
      }
    } finally {
      router.route = route;
    }
    assert.ok(waited >= 3 && through >= 3, `${elements} elements: ${waited} wait at a zone, ${through} drive a zone in its open time without waiting`);
    // Open at the departure, closing before the car gets there and opening again soon: it waits at the edge.
    let reopened = 0;
    for (let m = 2; m <= 8; m++) {
      const zones = [withSchedule(centre, closedFor(1, m))];
      const r = route({ points, zones, departure });
      const e = router.matrix({ origins: [points[0]], destinations: [points[1]], zones, departure });
      assert.ok(close(e.duration[0], r.duration) && close(e.distance[0], r.distance), `closed from 1 to ${m} minutes: ${e.duration[0]} s vs the route's ${r.duration} s`);
      if (r.legs[0].waits) reopened++;
    }
    assert.ok(reopened > 0, 'a route waits for the zone to open again');
    // A truck (its own times and closed roads) and a HARD zone beside the scheduled ones: every element as its route.
    const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
    const hard = randomZone(graph, rand, 'hard', 600);
    const timedZones = [0, 1].map((i) => withSchedule(randomZone(graph, rand, `t${i}`, 900), closedFor(-20, 8)));
    const stops = Array.from({ length: 5 }, (): LatLon => {
      let r: number;
      do r = Math.floor(rand() * graph.roadCount); while (!router.snapIndex.inBigComponent(r));
      return v(graph.roadPointLat(r, 1), graph.roadPointLon(r, 1));
    });
    // And two stops on roads at either end of roads closed to the truck: the car's way between them drives one.
    const closedToTruck = new Set(router.vehicleRoads(truck).forbidden);
    for (const f of [...closedToTruck].slice(0, 6)) {
      for (const end of [graph.roadFrom[f], graph.roadTo[f]]) {
        for (let r = 0; r < graph.roadCount; r++) {
          if (!closedToTruck.has(r) && (graph.roadFrom[r] === end || graph.roadTo[r] === end) && router.snapIndex.inBigComponent(r)) {
            stops.push(v(graph.roadPointLat(r, 1), graph.roadPointLon(r, 1)));
            break;
          }
        }
      }
    }
    const zones = [hard, ...timedZones];
    const routedBefore = routed;
    const m = router.matrix({ origins: stops, destinations: stops, zones, departure, vehicle: truck });
    const truckRoutes = routed - routedBefore;
    let differsFromCar = 0, onZone = 0;
    stops.forEach((o, i) => stops.forEach((d, j) => {
      const e = i * stops.length + j;
      let r: Route;
      try {
        r = route({ points: [o, d], zones, departure, vehicle: truck });
      } catch (err) {
        assert.equal(m.failures.get(e)?.code, (err as { code?: string }).code, `truck ${i},${j}: ${(err as Error).message}`);
        return;
      }
      assert.ok(close(m.duration[e], r.duration, 1e-6) && close(m.distance[e], r.distance, 1e-6), `truck ${i},${j}: ${m.duration[e]} s ${m.distance[e]} m vs ${r.duration} s ${r.distance} m`);
      if (!close(r.duration, route({ points: [o, d], zones, departure }).duration, 1e-6)) differsFromCar++;
      const [a0, b0] = router.snapStops([o, d]);
      if (zones.some((z) => z.roads.includes(a0.road) || z.roads.includes(b0.road))) onZone++;
    }));
    assert.ok(differsFromCar > 0, 'the truck\'s elements are not the car\'s');
    assert.ok(truckRoutes <= onZone && truckRoutes < stops.length ** 2, `${truckRoutes} of the truck's elements routed, ${onZone} with a stop on a zone's road`);
    // Bad stops are named, never a crash.
    for (const bad of [{ origins: 'x', destinations: stops }, { origins: stops, destinations: null }]) {
      assert.throws(() => router.matrix({ ...(bad as unknown as { origins: LatLon[]; destinations: LatLon[] }), zones, departure }), (e: Error & { code?: string }) => e.code === 'INVALID_INPUT' && /origins and destinations/.test(e.message));
    }
  });

  test('the border of zones\' roads: entry and exit nodes as a scan over every edge finds them', () => {
    const rand = seededRandom(77);
    for (let k = 0; k < 4; k++) {
      const zones = [0, 1].map((i) => randomZone(graph, rand, `b${i}`, 500 + rand() * 1500));
      const marked = new Uint8Array(graph.roadCount);
      for (const z of zones) for (const r of z.roads) marked[r] = 1;
      // Per node, whether an unmarked edge ends or starts there; then every marked edge's ends.
      const unmarkedIn = new Uint8Array(graph.nodeCount), unmarkedOut = new Uint8Array(graph.nodeCount);
      for (let e = 0; e < graph.edgeCount; e++) {
        if (!marked[graph.edgeRoad[e]]) { unmarkedIn[graph.edgeHead[e]] = 1; unmarkedOut[graph.edgeTailOf(e)] = 1; }
      }
      const entries = new Set<number>(), exits = new Set<number>();
      for (let e = 0; e < graph.edgeCount; e++) {
        if (!marked[graph.edgeRoad[e]]) continue;
        if (unmarkedIn[graph.edgeTailOf(e)]) entries.add(graph.edgeTailOf(e));
        if (unmarkedOut[graph.edgeHead[e]]) exits.add(graph.edgeHead[e]);
      }
      assert.deepEqual(Array.from(entryNodes(graph, marked, zones.map((z) => z.roads))), [...entries].sort((a, b) => a - b));
      assert.deepEqual(Array.from(exitNodes(graph, marked, zones.map((z) => z.roads))), [...exits].sort((a, b) => a - b));
      assert.ok(entries.size > 0 && exits.size > 0);
    }
  });

  test('a scheduled zone for some vehicles: a car and a VUC drive through, the heavy truck waits or goes around; matrices equal routes', () => {
    const heavyOnly = { ...withSchedule(centre, closedFor(-10, 180)), zone: { ...centre.zone, schedule: closedFor(-10, 180), vehicles: { minWeight: 13 } } };
    const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!, vuc = vehicleOf('TRUCK_WITH_TWO_SINGLE_AXIS')!;
    for (const vehicle of [undefined, vuc]) {
      assert.equal(router.route({ points, zones: [heavyOnly], departure, vehicle }).distance, router.route({ points, departure, vehicle }).distance);
    }
    assert.equal(router.route({ points, zones: [heavyOnly], departure, vehicle: truck }).distance, router.route({ points, zones: [centre], departure, vehicle: truck }).distance);
    // Closing soon (elements waiting or not), closed throughout, open throughout; a stop on the zone's road; both metrics.
    const stops = [points[0], points[1], v(57.712, 11.96), v(57.705, 11.9675), v(57.69, 11.99)];
    for (const [schedule, mode] of [[closedFor(-10, 2), 'THE_FASTEST'], [closedFor(-10, 180), 'THE_FASTEST'], [closedFor(60, 180), 'THE_FASTEST'], [closedFor(-10, 2), 'THE_SHORTEST']] as const) {
      const zones = [withSchedule(centre, schedule)];
      const m = router.matrix({ origins: stops, destinations: stops, zones, departure, calculationMode: mode });
      stops.forEach((o, i) => stops.forEach((d, j) => {
        const k = i * stops.length + j;
        const r = router.route({ points: [o, d], zones, departure, calculationMode: mode });
        assert.ok(close(m.duration[k], r.duration) && close(m.distance[k], r.distance), `${mode} ${schedule.windows[0].to} ${i},${j}: ${m.duration[k]} s ${m.distance[k]} m vs ${r.duration} s ${r.distance} m`);
      }));
    }
  });
});

test('on Andorra\'s extract, without a hierarchy (the A* engine): arrivals as the time-dependent Dijkstra\'s', { skip: sharedExtract('andorra.osm.pbf').skip }, async () => {
  const { graph } = await importOsmWithSummary(sharedExtract('andorra.osm.pbf').path, 'pbf');
  const router = new Router(graph);
  assert.equal(router.search.name, 'astar');
  const rand = seededRandom(376);
  const departure = Date.parse('2026-12-07T07:00:00Z');
  let compared = 0, changed = 0;
  for (let k = 0; k < 4; k++) {
    const zones = [0, 1].map((i) => {
      // Leaving at 08:00 local: active from 07:50-08:20 for 5-45 minutes.
      const from = 470 + Math.floor(rand() * 30), to = from + 5 + Math.floor(rand() * 40);
      const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
      const schedule: ZoneSchedule = { timeZone: 'Europe/Andorra', windows: [{ days: ['MON'], from: hhmm(from), to: hhmm(to) }] };
      const z = randomZone(graph, rand, `a${i}`, 1500 + rand() * 2500);
      return { ...z, zone: { ...z.zone, schedule } };
    });
    const wait = scheduleWaits(graph, zones, departure);
    for (let i = 0; i < 8; i++) {
      const pts = [0, 1].map((): LatLon => { const r = Math.floor(rand() * graph.roadCount); return { latitude: graph.roadPointLat(r, 1), longitude: graph.roadPointLon(r, 1) }; });
      let route: Route;
      try { route = router.route({ points: pts, zones, departure }); } catch { continue; }
      const [a, b] = router.snapStops(pts);
      const oracle = Math.min(dijkstra(graph, sourceEndpoints(graph, a, 'duration'), targetEndpoints(graph, b, 'duration'), 'duration', undefined, undefined, wait), directCost(graph, a, b, 'duration').cost);
      assert.ok(Math.abs(route.duration - oracle) <= 1e-6 * oracle + 1e-3, `route ${route.duration} s, oracle ${oracle} s`);
      if (route.duration > router.route({ points: pts, departure }).duration + 1e-6) changed++;
      compared++;
    }
  }
  assert.ok(compared > 20 && changed > 0, `${compared} compared, ${changed} changed by the zones`);
});

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: pgSkip },
];

for (const { make, skip } of kinds) {
  describe(`scheduled zones through the API on ${make === sqliteKind ? 'SQLite' : 'PostgreSQL'}`, { skip }, () => {
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

    test('kept and answered with the zone; trips and matrices leave at startDate; a bad schedule is 400 naming the member', async () => {
      const schedule = { timeZone: 'Europe/Stockholm', windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: '07:00', to: '19:00' }], exceptions: [{ date: '2026-12-25', active: false }] };
      const zone = { name: 'Dagtid', geometries: [{ name: 'block', vertices: square(57.705, 11.9675, 0.006) }], schedule };
      const posted = await http(`${svc.url}${ZONES_PATH}`, { json: zone, headers });
      assert.equal(posted.status, 201, posted.text);
      assert.deepEqual(posted.body.schedule, schedule);
      for (let i = 0; i < 50 && (await http(`${svc.url}${ZONES_PATH}/Dagtid`, { headers })).body.status.name !== 'CALCULATED'; i++) await new Promise((r) => setTimeout(r, 100));
      const read = await http(`${svc.url}${ZONES_PATH}/Dagtid`, { headers });
      assert.deepEqual([read.body.schedule, read.body.status.name], [schedule, 'CALCULATED']);
      const stops = [{ latitude: 57.7055, longitude: 11.95 }, { latitude: 57.7055, longitude: 11.985 }];
      const trip = (startDate?: string) => http(`${svc.url}${TRIP_PATH}`, { json: { points: stops, restrictionZones: ['Dagtid'], ...(startDate && { startDate }) }, headers });
      const day = await trip('2026-12-07T09:00:00Z'), night = await trip('2026-12-07T21:00:00Z'), christmas = await trip('2026-12-25T09:00:00Z');
      assert.ok(day.body.totalDistance > night.body.totalDistance, `${day.body.totalDistance} by day, ${night.body.totalDistance} by night`);
      assert.equal(christmas.body.totalDistance, night.body.totalDistance);
      // Leaving a minute before it closes for the night, the trip waits at its edge.
      const evening = await trip('2026-12-07T17:56:00Z');
      assert.equal(evening.body.totalDistance, night.body.totalDistance, evening.text);
      assert.equal(evening.body.legs[0].waits?.[0]?.zone, 'Dagtid', evening.text);
      for (const [startDate, want] of [['2026-12-07T09:00:00Z', day], ['2026-12-07T21:00:00Z', night]] as const) {
        const matrix = await http(`${svc.url}/matrix/v1/calculations`, { json: { origins: [{ ...stops[0], siteId: 'a' }], destinations: [{ ...stops[1], siteId: 'b' }], restrictionZones: ['Dagtid'], startDate }, headers });
        assert.equal(matrix.status, 200, matrix.text);
        assert.equal(Math.round(matrix.body.elements[0].distance), want.body.totalDistance, matrix.text);
      }
      const before1970 = await http(`${svc.url}${TRIP_PATH}`, { json: { points: stops, restrictionZones: ['Dagtid'], startDate: -5 }, headers });
      assert.deepEqual([before1970.status, before1970.body.errors?.[0]?.path], [400, 'startDate'], before1970.text);
      const bad = await http(`${svc.url}${ZONES_PATH}`, { json: { ...zone, name: 'bad', schedule: { timeZone: 'Nowhere/City', windows: [{ days: ['MON'], from: '7', to: '19:00' }] } }, headers });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['schedule.timeZone', 'schedule.windows[0].from']);
    });
  });
}

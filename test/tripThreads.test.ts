import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone, vehicleOf } from '../src/index.js';
import { routerOnSharedData, sharedRouterData, zoneFields } from '../src/routing/routerThread.js';
import { TripThreads } from '../src/trip/TripThreads.js';
import { MatrixRunner } from '../src/routing/MatrixRunner.js';
import { TripThreadState } from '../src/trip/tripWorker.js';
import type { VehicleRoads } from '../src/routing/vehicle.js';
import { authorise, http, listen, newClient, sqliteKind, TRIP_PATH, ZONES_PATH } from './support/service.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);

const block = (name: string, south: number, west: number, north: number, east: number) => ({
  name,
  geometries: [{ name: 'block', vertices: [[south, west], [south, east], [north, east], [north, west]].map(([latitude, longitude]) => ({ latitude, longitude })) }],
});
const centrum = block('Centrum', 57.7, 11.96, 57.71, 11.975);
const hisingen = block('Hisingen', 57.72, 11.93, 57.73, 11.95);
const west = { latitude: 57.7055, longitude: 11.95 }, east = { latitude: 57.7055, longitude: 11.985 };
const north = { latitude: 57.735, longitude: 11.94 };
const unprepared = (points: object[], zone: object) => new Router(graph, { zoneCliqueBytes: 0 }).route({ points: points as never, zones: [calculateZone(graph, validateZone(zone))] });

test('a trip thread customizes a registered zone\'s cells when it is sent, before any trip: trips naming it by key cross them by their cliques, customize nothing and route as an unprepared router does', () => {
  const router = new Router(graph);
  const state = new TripThreadState(router);
  const zone = calculateZone(graph, validateZone(centrum));
  assert.equal(state.handle({ op: 'zone', id: 1, key: 7, fields: zoneFields(zone) }), undefined, 'customized later, not on arrival');
  assert.equal(state.waiting, 1);
  const kept = state.prepareNext();
  assert.ok(kept && 'prepared' in kept && kept.id === 1 && kept.prepared.zones === 1 && kept.prepared.bytes > 0, JSON.stringify(kept));
  assert.equal(state.prepareNext(), undefined);

  // Every customization the router's engine does from here on is counted, and every search's customized cells seen.
  const search = router.search;
  const customize = search.customize!.bind(search), find = search.find.bind(search);
  let customized = 0, crossedByCliques = 0;
  search.customize = (...args) => { customized++; return customize(...args); };
  search.find = (query) => { crossedByCliques += query.blockedCellCliques?.filter((c) => c !== undefined).length ?? 0; return find(query); };
  const context = { clientId: 'c', id: 'trip', now: 0 };
  const reply = state.handle({ op: 'trip', id: 2, request: { points: [west, east], restrictionZones: ['Centrum'] }, context, zones: [{ key: 7 }] });
  assert.ok(reply && 'json' in reply, JSON.stringify(reply));
  assert.equal(customized, 0, 'the trip customized nothing');
  assert.ok(crossedByCliques > 0, 'the trip found the zone\'s cells customized');
  assert.equal(JSON.parse(reply.json).totalDistance, Math.round(unprepared([west, east], centrum).distance));

  // A zone sent with the trip (not kept) is routed around as well, and kept by no one.
  const other = state.handle({ op: 'trip', id: 3, request: { points: [north, east] }, context, zones: [{ fields: zoneFields(calculateZone(graph, validateZone(hisingen))) }] });
  assert.ok(other && 'json' in other, JSON.stringify(other));
  assert.equal(JSON.parse(other.json).totalDistance, Math.round(unprepared([north, east], hisingen).distance));
  const forgotten = state.handle({ op: 'forget', id: 4, key: 7 });
  assert.ok(forgotten && 'prepared' in forgotten && forgotten.prepared.zones === 0 && forgotten.prepared.bytes === 0, JSON.stringify(forgotten));
  // A zone let go before its turn is answered without being customized.
  state.handle({ op: 'zone', id: 6, key: 8, fields: zoneFields(zone) });
  state.handle({ op: 'forget', id: 7, key: 8 });
  const skipped = state.prepareNext();
  assert.ok(skipped && 'prepared' in skipped && skipped.id === 6 && skipped.prepared.zones === 0, JSON.stringify(skipped));

  // Failures come back as the router's codes.
  const inside = state.handle({ op: 'trip', id: 5, request: { points: [west, { latitude: 0, longitude: 0 }] }, context, zones: [] });
  assert.ok(inside && 'error' in inside && inside.error?.code === 'POINT_NOT_ROUTABLE', JSON.stringify(inside));
});

test('a trip thread prepares its vehicle classes a step per turn, after the zones waiting; trips between the steps answer as an unprepared router does; a truck trip then crosses the class\'s cliques', () => {
  const router = new Router(graph), unprepared = new Router(graph);
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!, bus = vehicleOf('BUS_WITH_TWO_DOUBLE_AXLES')!;
  // Steps of no time at all: a cell (or a big cell) per step.
  const state = new TripThreadState(router, [truck, bus], 0);
  state.handle({ op: 'zone', id: 1, key: 7, fields: zoneFields(calculateZone(graph, validateZone(centrum))) });
  assert.equal(state.waiting, 3);
  const first = state.prepareNext();
  assert.ok(first && 'prepared' in first && first.id === 1, 'the zone first');
  const context = { clientId: 'c', id: 't', now: 0 };
  const truckTrip = (id: number) => state.handle({ op: 'trip', id, request: { points: [west, east], vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }, context, zones: [] });
  const expected = Math.round(unprepared.route({ points: [west, east], vehicle: truck }).duration);
  let steps = 0;
  while (!router.vehicleRoads(truck).prepared && steps < 10_000) {
    assert.equal(state.prepareNext(), undefined);
    steps++;
    if (steps % 7 === 0) {
      const between = truckTrip(100 + steps);
      assert.ok(between && 'json' in between && JSON.parse(between.json).totalNominalDuration === expected, 'a trip between the steps');
    }
  }
  assert.ok(router.vehicleRoads(truck).prepared, 'then the truck');
  assert.ok(steps > 10, `the truck in ${steps} steps`);
  assert.equal(router.vehicleRoads(bus).prepared, undefined);
  while (state.waiting > 0 && steps < 20_000) { state.prepareNext(); steps++; }
  assert.ok(router.vehicleRoads(bus).prepared, 'then the bus');
  assert.equal(state.waiting, 0);
  const search = router.search, find = search.find.bind(search);
  let crossed = 0;
  search.find = (query) => { crossed += query.blockedCellCliques?.filter((c) => c !== undefined).length ?? 0; return find(query); };
  const reply = state.handle({ op: 'trip', id: 2, request: { points: [west, east], vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }, context: { clientId: 'c', id: 't', now: 0 }, zones: [] });
  assert.ok(reply && 'json' in reply, JSON.stringify(reply));
  assert.ok(crossed > 0, 'the truck\'s cells were crossed by its cliques');
  assert.equal(JSON.parse(reply.json).totalDistance, Math.round(new Router(graph).route({ points: [west, east], vehicle: truck }).distance));

  // Its own hierarchies arrive after the zone was customized: the zone waits its turn to be customized for the class's own router.
  const adopted = state.handle({ op: 'vehicleHierarchies', id: 3, vehicle: truck, hierarchies: router.vehicleHierarchies(truck)! });
  assert.ok(adopted && 'adopted' in adopted, JSON.stringify(adopted));
  assert.equal(router.vehicleClasses, 1);
  assert.equal(state.waiting, 1, 'the zone, for the truck\'s own router');
  assert.equal(state.prepareNext(), undefined);
  assert.equal(state.waiting, 0);
  const classRouter = (router as unknown as { classRouters: Map<string, Router> }).classRouters.values().next().value!;
  assert.ok(router.preparedZones.zones > 0);
  assert.deepEqual(classRouter.preparedZones, router.preparedZones);
  const zoned = state.handle({ op: 'trip', id: 4, request: { points: [west, east], vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }, context, zones: [{ key: 7 }] });
  assert.ok(zoned && 'json' in zoned, JSON.stringify(zoned));
  const want = unprepared.route({ points: [west, east], vehicle: truck, zones: [calculateZone(graph, validateZone(centrum))] });
  assert.equal(JSON.parse(zoned.json).totalNominalDuration, Math.round(want.duration));
});

test('the road times of the vehicles threads prepare are made once, on shared memory, and adopted by each thread\'s router', () => {
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!, bus = vehicleOf('BUS_WITH_TWO_DOUBLE_AXLES')!, car = vehicleOf('CAR')!;
  const data = sharedRouterData(graph, undefined, [truck, bus, car, vehicleOf('TRUCK_WITH_SIX_DOUBLE_AXLES')!]);
  assert.equal(data.roadTimes.length, 1, 'trucks and buses drive at the same heavy speeds; a car at its own');
  assert.ok(data.roadTimes[0].millis.buffer instanceof SharedArrayBuffer);
  const threadRouter = routerOnSharedData(data);
  assert.equal(threadRouter.timedRouter(bus)!.graph.roadMillis, data.roadTimes[0].millis, 'adopted, not made again');
  const points = [west, east];
  assert.equal(threadRouter.route({ points, vehicle: truck }).duration, new Router(graph).route({ points, vehicle: truck }).duration);
});

test('the service runs trips on threads: zones are customized there once calculated (/health counts them), trips answer as an unprepared router does, a deleted zone is let go, and the event loop answers while a trip is calculated', async () => {
  const kind = sqliteKind();
  const store = await kind.open();
  const svc = await listen(graph, store, { trips: { prepare: true, threads: 2 } });
  try {
    const auth = await authorise(svc.url, await newClient(store));
    const health = async (want: number) => {
      let h = await http(`${svc.url}/health`);
      for (let i = 0; i < 400 && !(h.body.zonesPrepared === want && h.body.zonesToPrepare === 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        h = await http(`${svc.url}/health`);
      }
      assert.deepEqual([h.body.zonesPrepared, h.body.zonesToPrepare], [want, 0], JSON.stringify(h.body));
    };
    for (const zone of [centrum, hisingen]) {
      const created = await http(`${svc.url}${ZONES_PATH}`, { json: zone, headers: auth.headers });
      assert.equal(created.status, 201, created.text);
    }
    await health(2);
    const started = await http(`${svc.url}/health`);
    assert.deepEqual([started.body.tripThreads, started.body.tripsUnderWay], ['2/2', 0], 'serve-like start: both threads up, nothing under way');
    const trip = (points: object[], restrictionZones: string[]) => http(`${svc.url}${TRIP_PATH}`, { json: { points, restrictionZones }, headers: auth.headers });
    // Trips at once spread over both threads; each answers as a router without customized cells.
    const answers = await Promise.all([trip([west, east], ['Centrum']), trip([north, east], ['Hisingen']), trip([west, east], ['Centrum', 'Hisingen']), trip([north, east], ['Hisingen'])]);
    for (const a of answers) assert.equal(a.status, 201, a.text);
    assert.equal(answers[0].body.totalDistance, Math.round(unprepared([west, east], centrum).distance));
    assert.equal(answers[1].body.totalDistance, Math.round(unprepared([north, east], hisingen).distance));
    assert.equal(answers[3].body.totalDistance, answers[1].body.totalDistance);
    const both = new Router(graph, { zoneCliqueBytes: 0 }).route({ points: [west, east], zones: [centrum, hisingen].map((z) => calculateZone(graph, validateZone(z))) });
    assert.equal(answers[2].body.totalDistance, Math.round(both.distance));
    // The solution kept is the one answered.
    const stored = await http(`${svc.url}/trip/v1/solutions/${answers[0].body.id}`, { headers: auth.headers });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(stored.body, answers[0].body);

    // A long trip holds its thread, not the event loop: /health is answered while it is calculated.
    const long = Array.from({ length: 100 }, (_, i) => [west, east, north][i % 3]);
    let longDone = false;
    const longTrip = trip(long, ['Centrum', 'Hisingen']).then((r) => { longDone = true; return r; });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await http(`${svc.url}/health`)).status, 200);
    assert.equal(longDone, false, 'the event loop answered /health while the long trip was calculated');
    assert.equal((await longTrip).status, 201);

    assert.equal((await http(`${svc.url}${ZONES_PATH}/Hisingen`, { method: 'DELETE', headers: auth.headers })).status, 200);
    await health(1);
    // Errors of the router keep their HTTP answer.
    const off = await trip([west, { latitude: 0, longitude: 0 }], []);
    assert.equal(off.status, 422, off.text);
    assert.equal(off.body.code, 'POINT_NOT_ROUTABLE');
  } finally {
    await svc.close();
    await store.close();
    await kind.dispose();
  }
});

test('trips past the queue bound are refused with 503 TRIPS_BUSY and Retry-After, not queued without end; they are answered again once the queue drains', async () => {
  const kind = sqliteKind();
  const store = await kind.open();
  const svc = await listen(graph, store, { trips: { threads: 1, maxQueued: 1 } });
  try {
    const auth = await authorise(svc.url, await newClient(store));
    const trip = (points: object[]) => http(`${svc.url}${TRIP_PATH}`, { json: { points }, headers: auth.headers });
    // Sent together: whichever arrives second finds the first still on the thread.
    const both = await Promise.all([trip(Array.from({ length: 100 }, (_, i) => [west, east, north][i % 3])), trip([west, east])]);
    assert.deepEqual(both.map((r) => r.status).sort(), [201, 503], both.map((r) => r.text).join('\n'));
    const refused = both.find((r) => r.status === 503)!;
    assert.equal(refused.body.code, 'TRIPS_BUSY');
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal((await trip([west, east])).status, 201);
  } finally {
    await svc.close();
    await store.close();
    await kind.dispose();
  }
});

test('clients take turns on the trip threads: one client\'s burst of long trips delays another\'s trip by about one of them, not the whole burst; every trip is answered as the router answers it', async () => {
  const threads = new TripThreads(graph, { threads: 1, tripsPerThread: 2 });
  try {
    const long = Array.from({ length: 40 }, (_, i) => [west, east, north][i % 3]);
    const done: string[] = [];
    const trip = (client: string, points: object[], label: string) =>
      threads.calculate({ points: points as never }, [], { clientId: client, id: label, now: 0 }).then((json) => { done.push(label); return JSON.parse(json); });
    const burst = Array.from({ length: 6 }, (_, i) => trip('A', long, `A${i}`));
    const other = trip('B', [west, east], 'B0');
    assert.equal(threads.trips, 7);
    const answers = await Promise.all([...burst, other]);
    assert.equal(threads.trips, 0);
    // Two trips go to the thread at once (A0, A1); then A and B alternate: B0 comes right after A2.
    assert.deepEqual(done, ['A0', 'A1', 'A2', 'B0', 'A3', 'A4', 'A5']);
    const router = new Router(graph);
    assert.equal(answers[0].totalDistance, Math.round(router.route({ points: long }).distance));
    assert.equal(answers[6].totalDistance, Math.round(router.route({ points: [west, east] }).distance));
  } finally {
    await threads.close();
  }
  await assert.rejects(threads.calculate({ points: [west, east] }, [], { clientId: 'A', id: 'late', now: 0 }), /closed/);
  assert.equal(threads.started, 0, 'a closed pool starts no thread');
});

test('a vehicle class\'s cells prepared on one trip thread are adopted by another on shared memory: it customizes nothing and its trips answer as the preparing thread\'s do', () => {
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const preparing = new TripThreadState(new Router(graph), [], 0);
  assert.equal(preparing.handle({ op: 'prepareVehicle', id: 9, vehicle: truck }), undefined, 'answered once prepared');
  let reply;
  for (let steps = 0; steps < 50_000 && !reply; steps++) reply = preparing.prepareNext();
  assert.ok(reply && 'vehicleRoads' in reply && reply.id === 9, JSON.stringify(reply)?.slice(0, 200));
  const roads = reply.vehicleRoads!;
  const prepared = roads.prepared!;
  assert.ok(prepared.cliques.cells.length > 0 && prepared.overlay, 'cells customized, the class\'s overlay cliques made');
  for (const array of [roads.forbidden, prepared.closed, prepared.cliques.duration, prepared.cliques.first, prepared.overlay!.duration, prepared.overlay!.fine!.distance, ...prepared.bigCliques.map((b) => b.distance)]) {
    assert.ok(array.buffer instanceof SharedArrayBuffer, 'on shared memory');
  }
  const router = new Router(graph);
  let customized = 0;
  const search = router.search as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['customizeCells', 'customizeBigCells', 'penaliseCells']) {
    const own = search[name].bind(search);
    search[name] = (...args: unknown[]) => { customized++; return own(...args); };
  }
  const adopting = new TripThreadState(router);
  const adopted = adopting.handle({ op: 'vehicleRoads', id: 3, roads });
  assert.ok(adopted && 'adopted' in adopted, JSON.stringify(adopted));
  assert.equal(router.vehicleRoads(truck).prepared, prepared, 'the same cliques, not a copy');
  assert.equal(adopting.waiting, 0);
  const hierarchies = (preparing.router.vehicleHierarchies(truck))!;
  for (const state of [preparing, adopting]) state.handle({ op: 'vehicleHierarchies', id: 4, vehicle: truck, hierarchies });
  assert.equal(router.vehicleClasses, 1, 'a router of the class\'s own');
  const context = { clientId: 'c', id: 't', now: 0 };
  for (const points of [[west, east], [north, east], [east, west, north]]) {
    const [a, b] = [preparing, adopting].map((state) => state.handle({ op: 'trip', id: 5, request: { points: points as never, vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }, context, zones: [] }));
    assert.ok(a && 'json' in a && b && 'json' in b, JSON.stringify(b));
    assert.equal(b.json, a.json);
    const want = new Router(graph).route({ points: points as never, vehicle: truck });
    assert.equal(JSON.parse(b.json).totalNominalDuration, Math.round(want.duration));
  }
  assert.equal(customized, 0, 'the adopting thread customized no cell');
});

test('a prepared vehicle class\'s own hierarchies (on worker threads) and cells (on the first trip thread) are made once, on shared memory, and adopted by every trip thread: its trips answer as a router that prepared it does', async () => {
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const threads = new TripThreads(graph, { threads: 2, vehicles: [truck, vehicleOf('CAR')!] });
  const adopted: unknown[] = [];
  try {
    threads.start();
    const cells = (threads as unknown as { preparedRoads: Map<string, VehicleRoads> }).preparedRoads;
    for (let i = 0; i < 1200 && (threads.vehicleClassesAdopted === 0 || cells.size < 2); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(cells.size, 2, 'both classes\' cells prepared once, by the first thread, and posted to the other');
    assert.ok([...cells.values()].find((r) => r.prepared)?.prepared?.cliques.duration.buffer instanceof SharedArrayBuffer);
    assert.equal(threads.vehicleClasses, 1, 'the truck\'s; a car drives every road as the graph\'s hierarchies do');
    assert.equal(threads.vehicleClassesAdopted, 1, 'by both threads');
    const made = (threads as unknown as { classes: Array<{ hierarchies: Record<string, { arcNode: Uint32Array }> }> }).classes[0].hierarchies;
    assert.ok(made.duration.arcNode.buffer instanceof SharedArrayBuffer && made.distance.arcNode.buffer instanceof SharedArrayBuffer);
    const prepared = new Router(graph);
    prepared.prepareVehicle(truck);
    for (const points of [[west, east], [north, east], [east, west, north]]) {
      for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
        // Two at once: one on each thread.
        const answers = await Promise.all([0, 1].map((i) => threads.calculate({ points: points as never, vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES', calculationMode }, [], { clientId: `c${i}`, id: `t${i}`, now: 0 })));
        const want = prepared.route({ points, vehicle: truck, calculationMode });
        for (const json of answers) {
          const answer = JSON.parse(json);
          adopted.push(answer);
          assert.equal(answer.totalDistance, Math.round(want.distance));
          assert.equal(answer.totalNominalDuration, Math.round(want.duration));
        }
      }
    }
    assert.equal(threads.started, 2);
  } finally {
    await threads.close();
  }
  assert.equal(adopted.length, 12);
});

test('the matrix worker adopts the vehicle classes the trip threads make (hierarchies and cells, on shared memory): its truck matrices answer as a router that prepared the class does', async () => {
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  const runner = new MatrixRunner(graph);
  const threads = new TripThreads(graph, { threads: 1, vehicles: [truck], onVehicleClass: (part) => runner.adoptVehicleClass(part) });
  try {
    runner.start();
    threads.start();
    for (let i = 0; i < 1200 && runner.vehicleClasses === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(runner.vehicleClasses, 1, 'the worker routes the truck on its class\'s own router');
    assert.equal(runner.pending, 0, 'class parts are not matrices');
    const prepared = new Router(graph);
    prepared.prepareVehicle(truck);
    const points = [west, east, north, { latitude: 57.69, longitude: 11.99 }, { latitude: 57.72, longitude: 12.01 }];
    for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      const got = await runner.run({ origins: points, destinations: points, calculationMode, vehicle: truck });
      const want = prepared.matrix({ origins: points, destinations: points, calculationMode, vehicle: truck });
      assert.deepEqual([...got.failures.keys()], [...want.failures.keys()]);
      assert.deepEqual(got.distance, want.distance);
      assert.deepEqual(got.duration, want.duration);
      assert.ok(got.failures.size < points.length ** 2);
    }
  } finally {
    await threads.close();
    await runner.close();
  }
});

test('the service\'s matrix worker takes the vehicle classes the trip threads make: /health says so (matrixVehicleClasses) once it has', async () => {
  const kind = sqliteKind();
  const store = await kind.open();
  const svc = await listen(graph, store, { trips: { prepare: true, threads: 1, vehicles: [vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!] }, matrix: { prepare: true } });
  try {
    let h = await http(`${svc.url}/health`);
    assert.equal(h.body.matrixVehicleClasses?.endsWith('/1'), true, JSON.stringify(h.body));
    for (let i = 0; i < 1200 && !(h.body.vehicleClasses === '1/1' && h.body.matrixVehicleClasses === '1/1'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      h = await http(`${svc.url}/health`);
    }
    assert.deepEqual([h.body.vehicleClasses, h.body.matrixVehicleClasses], ['1/1', '1/1'], JSON.stringify(h.body));
  } finally {
    await svc.close();
    await store.close();
    await kind.dispose();
  }
});

test('a routing thread\'s Router reads the caller\'s graph: arrays, indexes, the derived per-road milliseconds and reverse adjacency on shared memory, adopted rather than made again', () => {
  const data = sharedRouterData(graph);
  const router = routerOnSharedData(data);
  assert.ok(router.graph.roadMillis === graph.roadMillis && graph.roadMillis.buffer instanceof SharedArrayBuffer, 'roadMillis adopted from the caller, on a SharedArrayBuffer');
  assert.ok(router.graph.edgeHead.buffer instanceof SharedArrayBuffer);
  assert.equal(router.graph.indexes, graph.indexes);
  assert.throws(() => router.graph.adoptRoadMillis(new Uint32Array(3)), /roadMillis of 3 roads for a graph of/);
  // The reverse adjacency too: made once by the caller, every edge under its head, adopted.
  assert.ok(router.graph.firstIn === data.reverse.firstIn && router.graph.inEdge === data.reverse.inEdge && data.reverse.inEdge.buffer instanceof SharedArrayBuffer);
  const into: number[][] = Array.from({ length: graph.nodeCount }, () => []);
  for (let e = 0; e < graph.edgeCount; e++) into[graph.edgeHead[e]].push(e);
  for (let v = 0; v < graph.nodeCount; v++) {
    const got = Array.from(data.reverse.inEdge.subarray(data.reverse.firstIn[v], data.reverse.firstIn[v + 1]));
    if (got.length !== into[v].length || got.some((e, i) => e !== into[v][i])) assert.fail(`node ${v}: in-edges ${got} instead of ${into[v]}`);
  }
  assert.throws(() => router.graph.adoptReverseAdjacency({ firstIn: new Uint32Array(3), inEdge: data.reverse.inEdge }), (e: Error & { code?: string }) => e.code === 'INVALID_INPUT' && /reverse adjacency of 2 nodes/.test(e.message));
  const points = [west, east];
  assert.deepEqual(router.route({ points }).legs[0].coordinates, new Router(graph).route({ points }).legs[0].coordinates);
});

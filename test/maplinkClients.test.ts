import { after, before, describe, test } from 'node:test';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import booleanIntersects from '@turf/boolean-intersects';
import distance from '@turf/distance';
import { lineString, point, polygon } from '@turf/helpers';
import polyline from '@mapbox/polyline';
import { calculateZone, Router, vehicleOf, zoneFromGeoJson, DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import type { Store } from '../src/store/Store.js';
import { tripBodySchema } from '../src/service/schemas.js';
import { ROOT } from './support/helpers.js';
import {
  authorise, callbackReceiver, http, listen, newClient, postgresKind, postgresSkipReason, sqliteKind, TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';

/**
 * Maplink's own clients, unchanged: the requests of ../shared/maplink/ (its official SDK's wire
 * JSON, bodies from its documentation and the SDK's test resources) get the answers its README
 * gives, with no clientId header where the SDK sends none; stored and asynchronous trips.
 */

const MAPLINK = join(ROOT, '..', 'shared', 'maplink') + '/';
const maplinkSkip = existsSync(MAPLINK) ? false : `${MAPLINK} not found (Maplink's requests live in ../shared/maplink)`;
const body = (name: string) => JSON.parse(readFileSync(MAPLINK + name, 'utf8'));

const graph = loadGraph(DEFAULT_GRAPH_PATH);
const v = (latitude: number, longitude: number) => ({ latitude, longitude });
const centrum = { name: 'Centrum', geometries: [{ name: 'block', vertices: [v(57.7, 11.96), v(57.7, 11.975), v(57.71, 11.975), v(57.71, 11.96)] }] };
const centrumPolygon = polygon([[...centrum.geometries[0].vertices.map((p) => [p.longitude, p.latitude]), [11.96, 57.7]]]);
const west = { latitude: 57.7055, longitude: 11.95, siteId: 'west' };
const east = { latitude: 57.7055, longitude: 11.985, siteId: 'east' };

/** A leg's polyline (the default pointsMode) as a turf line, [lon, lat]. */
const legLine = (encoded: string) => lineString(polyline.decode(encoded).map(([lat, lon]) => [lon, lat]));

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: maplinkSkip },
  { make: postgresKind, skip: maplinkSkip || ((await postgresSkipReason()) ?? false) },
];

for (const { make, skip } of kinds) {
  describe(`Maplink's clients on ${make === sqliteKind ? 'SQLite' : 'PostgreSQL'}`, { skip }, () => {
    let kind: StoreKind;
    let store: Store;
    let svc: TestService;
    let client: { clientId: string; clientSecret: string };
    let auth: Awaited<ReturnType<typeof authorise>>;
    /** What Maplink's SDK sends on trips: the token and Content-Type, no clientId header. */
    let sdkHeaders: Record<string, string>;

    let callbacks: Awaited<ReturnType<typeof callbackReceiver>>;

    before(async () => {
      callbacks = await callbackReceiver();
      kind = make();
      store = await kind.open();
      svc = await listen(graph, store, { matrix: { pollMillis: 50, callbackHosts: ['127.0.0.1'] } });
      client = await newClient(store);
      auth = await authorise(svc.url, client);
      sdkHeaders = { authorization: auth.headers.authorization };
      assert.equal((await http(`${svc.url}${ZONES_PATH}`, { json: centrum, headers: auth.headers })).status, 201);
    });
    after(async () => {
      await svc?.close();
      await store?.close();
      await kind?.dispose();
      callbacks?.close();
    });

    const trip = (json: unknown, headers = sdkHeaders, query = '') => http(`${svc.url}${TRIP_PATH}${query}`, { json, headers });
    const get = (path: string, headers = sdkHeaders) => http(`${svc.url}${path}`, { headers });

    test('the SDK\'s plain trip, without a clientId header: 201 and a route around Centrum', async () => {
      const res = await trip(body('sdk-trip-plain.json'));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.clientId, client.clientId);
      assert.equal(booleanIntersects(legLine(res.body.legs[0].points), centrumPolygon), false, 'the route stays out of Centrum');
      const free = await trip({ ...body('sdk-trip-plain.json'), restrictionZones: [] });
      assert.equal(booleanIntersects(legLine(free.body.legs[0].points), centrumPolygon), true, 'without the zone the route crosses it');
      assert.ok(res.body.totalDistance > free.body.totalDistance);
    });

    test('the SDK\'s trip with a truck and turn-by-turn: a truck\'s route with Portuguese instructions', async () => {
      const sdk = await trip(body('sdk-trip-truck-turnbyturn.json'));
      assert.equal(sdk.status, 201, sdk.text);
      const steps = sdk.body.legs[0].turnByTurn;
      assert.ok(steps.length >= 3, sdk.text);
      assert.equal(steps.at(-1).type, 'LAST_POINT');
      assert.equal(steps.at(-1).text, 'Você chegou ao seu destino');
      assert.match(steps[0].text, /^Siga (norte|sul|leste|oeste|nordeste|noroeste|sudeste|sudoeste)/);
      assert.ok(steps.some((s: { text: string }) => /^(Vire|Siga|Continue|Permaneça|Mantenha-se|Entre na rotatória|Saia da rotatória|Faça)/.test(s.text) && s !== steps[0]));
      // Maplink's units: metres per step summing to the leg's, whole milliseconds summing to its seconds; each step's points its stretch of the leg.
      const metres = steps.reduce((sum: number, s: { distance: number }) => sum + s.distance, 0);
      assert.ok(Math.abs(metres - sdk.body.legs[0].distance) <= 1, `${metres} m of steps, ${sdk.body.legs[0].distance} m of leg`);
      const millis = steps.reduce((sum: number, s: { duration: number }) => sum + s.duration, 0);
      assert.ok(steps.every((s: { duration: number }) => Number.isInteger(s.duration)));
      assert.ok(Math.abs(millis / 1000 - sdk.body.legs[0].nominalDuration) <= 1, `${millis} ms of steps, ${sdk.body.legs[0].nominalDuration} s of leg`);
      const legPoints = polyline.decode(sdk.body.legs[0].points);
      assert.deepEqual(polyline.decode(steps[0].points)[0], legPoints[0]);
      assert.deepEqual(polyline.decode(steps.at(-2).points).at(-1), legPoints.at(-1));
      const { turnByTurn: _, ...truckTrip } = body('sdk-trip-truck-turnbyturn.json');
      const truck = await trip(truckTrip);
      assert.equal(truck.body.legs[0].turnByTurn, undefined, 'no instructions unless asked');
      assert.equal(truck.body.totalDistance, sdk.body.totalDistance);
      assert.equal(truck.status, 201, truck.text);
      assert.deepEqual([truck.body.vehicle.vehicleType, truck.body.vehicle.height, truck.body.vehicle.weight], ['TRUCK_WITH_TWO_DOUBLE_AXLES', 4.4, 16000]);
      const car = await trip({ ...truckTrip, vehicleType: undefined });
      assert.equal(car.body.vehicle, undefined, 'a trip naming no vehicle reports none');
      // The route a Router gives the same truck on this graph around the same zone and avoiding tunnels.
      const expected = new Router(graph).route({
        points: truckTrip.points, zones: [calculateZone(graph, zoneFromGeoJson('Centrum', centrumPolygon.geometry))], avoidanceTypes: ['TUNNELS'],
        vehicle: vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES'),
      });
      assert.equal(truck.body.totalDistance, Math.round(expected.distance));
      assert.equal(booleanIntersects(legLine(truck.body.legs[0].points), centrumPolygon), false);
      assert.ok(truck.body.totalDistance >= car.body.totalDistance);
    });

    test('the documentation\'s zone, the SDK\'s zone with a GET\'s members; São Paulo trips understood, then 422 off this graph', async () => {
      const inserted = await http(`${svc.url}${ZONES_PATH}`, { json: body('docs-zone-insert.json'), headers: auth.headers });
      assert.equal(inserted.status, 201, inserted.text);
      assert.equal(inserted.body.status.name, 'CALCULATED_WITHOUT_ROADS');
      const posted = await http(`${svc.url}${ZONES_PATH}`, { json: body('sdk-sample-zone-with-get-members.json'), headers: auth.headers });
      assert.equal(posted.status, 201, posted.text);
      for (const name of ['sdk-resource-trip-request.json', 'docs-trip-mandatory-only.json', 'docs-trip-toll-free-flow.json']) {
        const res = await trip(body(name));
        assert.deepEqual([res.status, res.body.code], [422, 'POINT_NOT_ROUTABLE'], `${name}: ${res.text}`);
      }
      const matrix = await http(`${svc.url}/matrix/v1/problems`, { json: body('docs-matrix-start-date.json'), headers: sdkHeaders });
      assert.equal(matrix.status, 202, matrix.text);
      assert.match(matrix.body.id, /^[0-9a-f-]{36}$/);
    });

    test('the SDK resource\'s members take effect where detour has them: the same trip on this graph names toll, crossedBorders, vehicleSpecification, FRONTIERS', async () => {
      const resource = body('sdk-resource-trip-request.json');
      const here = { ...resource, points: [{ ...west, latitude: String(west.latitude), longitude: String(west.longitude) }, east], restrictionZones: ['Centrum'] };
      const res = await trip(here);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual([...res.body.members].sort(), ['avoidanceTypes', 'crossedBorders', 'toll']);
      const { toll: _t, crossedBorders: _c, ...supported } = here;
      const routed = await trip({ ...supported, avoidanceTypes: ['TUNNELS', 'BRIDGES'], avoidanceBehavior: 'STRONG', expireIn: new Date(Date.now() + 3600_000).toISOString() });
      assert.equal(routed.status, 201, routed.text);
      // Its vehicleSpecification (kilograms, metres) applies: 1 t and 4 m, neither a heavy nor a goods vehicle.
      assert.deepEqual(routed.body.vehicle, { vehicleType: 'CUSTOM', height: 4, weight: 1000, accessClass: 'none', dangerousGoods: false, heavySpeeds: false });
      assert.equal(booleanIntersects(legLine(routed.body.legs[0].points), centrumPolygon), false);
    });

    test('every Maplink member: its default passes, any other value is UNSUPPORTED_FEATURE naming it; a misspelt member is refused', async () => {
      const points = [west, east];
      const defaults = {
        speedPreferences: [], avoidanceTypes: [], avoidanceBehavior: 'FAIL', toll: null, crossedBorders: { level: 'NONE', reverseGeocode: 'NONE' },
        freight: null, emission: {}, place: null, turnByTurn: null, vehicleType: 'CAR', vehicleSpecification: {}, profileName: 'MAPLINKBR',
        startDate: 0, clientId: client.clientId, restrictionZones: [],
      };
      const ok = await trip({ points, ...defaults });
      assert.equal(ok.status, 201, ok.text);
      const asked: Record<string, unknown> = {
        toll: { vehicleType: 'CAR', billing: 'DEFAULT' },
        crossedBorders: { level: 'CITY' },
        freight: { operationType: ['A'] },
        emission: { fuelType: 'DIESEL', autonomy: 3 },
        place: { categories: ['POSTOS_DE_COMBUSTIVEL'] },
      };
      for (const [member, value] of Object.entries(asked)) {
        const res = await trip({ points, [member]: value });
        assert.deepEqual([res.status, res.body.code, res.body.members], [400, 'UNSUPPORTED_FEATURE', [member]], `${member}: ${res.text}`);
        assert.match(res.body.message, new RegExp(member));
      }
      // speedPreferences cap the roads of their type: slower than the car, reported with the vehicle.
      const car = await trip({ points, calculationMode: 'THE_FASTEST' });
      const slow = await trip({ points, calculationMode: 'THE_FASTEST', speedPreferences: [{ roadType: 'LOCAL_ROAD', speed: 15 }, { roadType: 'SECONDARY_ROAD', speed: 20, speedAtToll: 0 }] });
      assert.equal(slow.status, 201, slow.text);
      assert.ok(slow.body.totalNominalDuration > car.body.totalNominalDuration * 1.1, `${slow.body.totalNominalDuration} s against the car's ${car.body.totalNominalDuration} s`);
      assert.deepEqual(slow.body.vehicle.speedPreferences, [{ roadType: 'LOCAL_ROAD', speed: 15 }, { roadType: 'SECONDARY_ROAD', speed: 20 }]);
      for (const [prefs, path] of [
        [[{ roadType: 'HIGHWAY', speed: 80 }, { roadType: 'HIGHWAY', speed: 60 }], 'speedPreferences[1].roadType'],
        [[{ roadType: 'ROAD', speed: 80 }], 'speedPreferences[0].roadType'],
        [[{ roadType: 'HIGHWAY', speed: 301 }], 'speedPreferences[0].speed'],
      ] as const) {
        const res = await trip({ points, speedPreferences: prefs });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.errors?.[0]?.path, path, res.text);
      }
      const typo = await trip({ points, restrictionZone: ['Centrum'] });
      assert.deepEqual([typo.status, typo.body.code], [400, 'INVALID_REQUEST']);
      assert.deepEqual(typo.body.errors, [{ path: 'restrictionZone', message: 'is not a known member' }]);
      const badEnum = await trip({ points, vehicleType: 'SPACESHIP' });
      assert.deepEqual([badEnum.status, badEnum.body.code, badEnum.body.errors[0].path], [400, 'INVALID_REQUEST', 'vehicleType']);
      const tooTall = await trip({ points, vehicleSpecification: { maxHeight: 42 } });
      assert.deepEqual([tooTall.status, tooTall.body.code, tooTall.body.errors?.[0]?.path], [400, 'INVALID_VEHICLE', 'vehicleSpecification.maxHeight'], tooTall.text);
      const noLanguage = await trip({ points, turnByTurn: {} });
      assert.deepEqual([noLanguage.status, noLanguage.body.errors?.[0]?.path], [400, 'turnByTurn.language'], noLanguage.text);
      const twoLanguages = await trip({ points, turnByTurn: { language: 'en', languageCode: 'es_AR' } });
      assert.deepEqual([twoLanguages.status, twoLanguages.body.errors?.[0]?.path], [400, 'turnByTurn.languageCode'], twoLanguages.text);
      const klingon = await trip({ points, turnByTurn: { language: 'tlh' } });
      assert.deepEqual([klingon.status, klingon.body.code, klingon.body.errors?.[0]?.path], [400, 'INVALID_REQUEST', 'turnByTurn.language'], klingon.text);
      for (const [language, arrival] of [['en', 'You have arrived at your destination'], ['es_AR', 'Has llegado a tu destino'], ['pt_BR', 'Você chegou ao seu destino']]) {
        const worded = await trip({ points, turnByTurn: { language } }, sdkHeaders, '?pointsMode=object');
        assert.equal(worded.status, 201, worded.text);
        assert.equal(worded.body.legs[0].turnByTurn.at(-1).text, arrival);
        assert.deepEqual(Object.keys(worded.body.legs[0].turnByTurn[0].points[0]), ['latitude', 'longitude']);
      }
      const callback = await trip({ points, callback: { url: 'http://127.0.0.1:9/' } });
      assert.deepEqual([callback.status, callback.body.errors[0].path], [400, 'callback']);
    });

    test('coordinates as strings holding decimals route as the numbers do; anything else in a coordinate is refused', async () => {
      const asNumbers = await trip({ points: [west, east] });
      const asStrings = await trip({ points: [{ ...west, latitude: '57.7055', longitude: '11.95' }, { ...east, latitude: ' 57.7055', longitude: '1.1985e1' }] });
      assert.equal(asStrings.status, 201, asStrings.text);
      assert.equal(asStrings.body.totalDistance, asNumbers.body.totalDistance);
      for (const [latitude, path] of [['57,7', 'points[0].latitude'], ['0x39', 'points[0].latitude'], ['', 'points[0].latitude'], ['-91', 'points[0].latitude']]) {
        const res = await trip({ points: [{ latitude, longitude: 11.95 }, east] });
        assert.deepEqual([res.status, res.body.code, res.body.errors?.[0]?.path], [400, 'INVALID_REQUEST', path], `${latitude}: ${res.text}`);
      }
    });

    test('clientId: absent is the token\'s client; present it must be the token\'s (header or v1 body); zones still require it', async () => {
      assert.equal((await trip({ points: [west, east] }, auth.headers)).status, 201);
      const other = await newClient(store);
      const header = await trip({ points: [west, east] }, { ...sdkHeaders, clientid: other.clientId });
      assert.deepEqual([header.status, header.body.code], [403, 'CLIENT_ID_MISMATCH']);
      const inBody = await trip({ points: [west, east], clientId: other.clientId });
      assert.deepEqual([inBody.status, inBody.body.code], [403, 'CLIENT_ID_MISMATCH']);
      const zones = await http(`${svc.url}${ZONES_PATH}`, { headers: sdkHeaders });
      assert.deepEqual([zones.status, zones.body.code], [400, 'CLIENT_ID_REQUIRED']);
      const matrix = await http(`${svc.url}/matrix/v1/calculations`, { json: { origins: [{ siteId: 'w', ...v(57.7055, 11.95) }], destinations: [{ siteId: 'e', ...v(57.7055, 11.985) }] }, headers: sdkHeaders });
      assert.equal(matrix.status, 200, matrix.text);
    });

    test('a trip\'s id reads back at /trip/v1/solutions/{id}, as answered or in another pointsMode; another client gets 404; expireIn bounds it', async () => {
      const answered = await trip({ points: [west, east], restrictionZones: ['Centrum'], turnByTurn: { language: 'es_AR' } });
      assert.equal(answered.status, 201);
      assert.ok(Date.parse(answered.body.expiryIn) - Date.parse(answered.body.createdAt) >= 7 * 24 * 3600_000 - 1000);
      const read = await get(`/trip/v1/solutions/${answered.body.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body, answered.body);
      const asArray = await get(`/trip/v1/solutions/${answered.body.id}?pointsMode=array`);
      const decoded = polyline.decode(answered.body.legs[0].points);
      assert.deepEqual(asArray.body.legs[0].points, decoded);
      assert.deepEqual({ ...asArray.body, legs: undefined }, { ...answered.body, legs: undefined });
      // The instructions' points are the leg's, rewritten the same way.
      const steps = asArray.body.legs[0].turnByTurn;
      assert.deepEqual(steps.map((s: { points: unknown }) => s.points), answered.body.legs[0].turnByTurn.map((s: { points: string }) => polyline.decode(s.points)));
      assert.deepEqual(steps.map((s: { text: string }) => s.text), answered.body.legs[0].turnByTurn.map((s: { text: string }) => s.text));
      const other = await authorise(svc.url, await newClient(store));
      const theirs = await get(`/trip/v1/solutions/${answered.body.id}`, { authorization: other.headers.authorization });
      assert.deepEqual([theirs.status, theirs.body.code], [404, 'TRIP_JOB_NOT_FOUND']);
      assert.equal((await get('/trip/v1/solutions/not-an-id')).status, 404);

      const past = await trip({ points: [west, east], expireIn: '2022-12-25T00:00:00-03:00' });
      assert.equal(past.status, 201, 'an expireIn already passed is answered, and not kept');
      assert.equal((await get(`/trip/v1/solutions/${past.body.id}`)).status, 404);
      const soon = Date.now() + 3600_000;
      const kept = await trip({ points: [west, east], expireIn: soon });
      assert.equal(Date.parse(kept.body.expiryIn), soon);
      assert.equal((await get(`/trip/v1/solutions/${kept.body.id}`)).status, 200);
      // Stored solved, without an event row: its one event is read from the job.
      const events = await get(`/trip/v1/events?jobId=${kept.body.id}`);
      assert.deepEqual(events.body.map((e: { status: string; jobId: string }) => [e.status, e.jobId]), [['SOLVED', kept.body.id]]);
      const far = await trip({ points: [west, east], expireIn: Date.now() + 8 * 24 * 3600_000 });
      assert.deepEqual([far.status, far.body.errors?.[0]?.path], [400, 'expireIn'], 'no longer than the service keeps trips (7 days here)');
      assert.match(far.body.message, /at most 7 days ahead/);
      const garbled = await trip({ points: [west, east], expireIn: 'next tuesday' });
      assert.deepEqual([garbled.status, garbled.body.errors?.[0]?.path], [400, 'expireIn']);
    });

    test('an asynchronous trip (POST /trip/v1/problems): 201 {id}, ENQUEUED -> PROCESSING -> SOLVED, its solution the synchronous answer', async () => {
      const problem = {
        profileName: 'MAPLINKBR', points: [west, east], calculationMode: 'THE_SHORTEST', restrictionZones: ['Centrum'],
        callback: { url: callbacks.url('/trip'), user: 'u', password: 'p' },
      };
      const posted = await http(`${svc.url}/trip/v1/problems`, { json: problem, headers: sdkHeaders });
      assert.equal(posted.status, 201, posted.text);
      const id = posted.body.id as string;
      let status = '';
      for (let i = 0; i < 200 && status !== 'SOLVED' && status !== 'FAILED'; i++) {
        status = (await get(`/trip/v1/jobs/${id}`)).body.status;
        if (status !== 'SOLVED') await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(status, 'SOLVED');
      const events = await get(`/trip/v1/events?jobId=${id}`);
      assert.deepEqual(events.body.map((e: { status: string }) => e.status), ['ENQUEUED', 'PROCESSING', 'SOLVED']);
      assert.ok(events.body.every((e: { jobId: string; type: string; description: string; status: string }) => e.jobId === id && e.type === 'STATUS_CHANGE' && e.description === e.status));
      const solution = await get(`/trip/v1/solutions/${id}`);
      assert.equal(solution.status, 200, solution.text);
      const sync = await trip({ points: problem.points, calculationMode: 'THE_SHORTEST', restrictionZones: ['Centrum'] }, sdkHeaders, '?pointsMode=object');
      const legs = (r: { legs: unknown[] }) => r.legs;
      assert.equal(solution.body.id, id);
      assert.deepEqual(legs(solution.body), legs(sync.body), 'object points by default, as Maplink answers asynchronous trips');
      assert.deepEqual([solution.body.totalDistance, solution.body.totalNominalDuration], [sync.body.totalDistance, sync.body.totalNominalDuration]);
      const called = callbacks.received;
      for (let i = 0; i < 100 && called.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(called[0]?.body, { id, jobId: id, status: 'SOLVED' }, 'the callback is called when the trip is solved');
      assert.equal(called[0]?.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
      // Jobs are the client's, and of their API: a trip job is no matrix job.
      assert.equal((await get(`/matrix/v1/jobs/${id}`)).status, 404);
      const other = await authorise(svc.url, await newClient(store));
      assert.equal((await get(`/trip/v1/jobs/${id}`, { authorization: other.headers.authorization })).status, 404);
    });

    test('asynchronous trips are checked when posted: unknown zones, features, stops off the graph, and at most 10 unfinished per client', async () => {
      const post = (json: unknown) => http(`${svc.url}/trip/v1/problems`, { json, headers: sdkHeaders });
      assert.deepEqual((await post({ points: [west, east], restrictionZones: ['nope'] })).body.code, 'ZONE_NOT_FOUND');
      assert.deepEqual((await post({ points: [west, east], turnByTurn: {} })).body.errors?.[0]?.path, 'turnByTurn.language');
      const tooHeavy = await post({ points: [west, east], vehicleSpecification: { maxWeight: 1e9 } });
      assert.deepEqual([tooHeavy.status, tooHeavy.body.code, tooHeavy.body.errors?.[0]?.path], [400, 'INVALID_VEHICLE', 'vehicleSpecification.maxWeight']);
      assert.equal((await post(body('docs-trip-mandatory-only.json'))).status, 422);
      const past = await post({ points: [west, east], expireIn: 0 });
      assert.deepEqual([past.status, past.body.errors?.[0]?.path], [400, 'expireIn']);
      const badCallback = await post({ points: [west, east], callback: { url: 'ftp://example.com/' } });
      assert.deepEqual([badCallback.status, badCallback.body.errors?.[0]?.path], [400, 'callback.url']);
      const crowded = await newClient(store);
      const at = Date.now();
      for (let i = 0; i < 10; i++) {
        await store.insertJob({ id: crypto.randomUUID(), clientId: crowded.clientId, kind: 'trip', status: 'PROCESSING', request: {}, attempts: 1, createdAt: at, updatedAt: at, expiresAt: at + 3600_000 });
      }
      const crowdedAuth = await authorise(svc.url, crowded);
      const refused = await http(`${svc.url}/trip/v1/problems`, { json: { points: [west, east] }, headers: { authorization: crowdedAuth.headers.authorization } });
      assert.deepEqual([refused.status, refused.body.code, refused.headers.get('retry-after')], [429, 'TRIP_JOBS_LIMIT', '5']);
      const matrixStillOpen = await http(`${svc.url}/matrix/v1/problems`, { json: { origins: [{ siteId: 'a', ...v(57.7, 11.95) }], destinations: [{ siteId: 'b', ...v(57.7, 11.98) }] }, headers: { authorization: crowdedAuth.headers.authorization } });
      assert.equal(matrixStillOpen.status, 202, 'trip jobs do not count against the matrix limit');
    });

    test('Matrix: tripProfile LINEAR gives great-circle distances and durations at 60 km/h; it refuses zones; startDate is accepted', async () => {
      const sites = [{ siteId: 'w', ...v(57.7055, 11.95) }, { siteId: 'e', latitude: '57.7055', longitude: '11.985' }, { siteId: 'n', ...v(57.75, 11.97) }];
      const res = await http(`${svc.url}/matrix/v1/calculations`, { json: { origins: sites, destinations: sites, tripProfile: 'LINEAR', startDate: '2026-12-01T08:00:00Z' }, headers: sdkHeaders });
      assert.equal(res.status, 200, res.text);
      const at = (s: (typeof sites)[number]) => point([Number(s.longitude), Number(s.latitude)]);
      for (const e of res.body.elements) {
        const o = sites.find((s) => s.siteId === e.origin)!, d = sites.find((s) => s.siteId === e.destination)!;
        const metres = distance(at(o), at(d), { units: 'meters' });
        assert.ok(Math.abs(e.distance - metres) <= 0.003 * metres + 1, `${e.origin}->${e.destination}: ${e.distance} vs turf ${metres}`);
        assert.ok(Math.abs(e.nominalDuration - metres / (60 / 3.6)) <= 1 + 0.003 * metres, `${e.origin}->${e.destination} duration`);
      }
      const road = await http(`${svc.url}/matrix/v1/calculations`, { json: { origins: sites.slice(0, 1), destinations: sites.slice(1, 2), tripProfile: 'MAPLINKBR' }, headers: sdkHeaders });
      assert.ok(road.body.elements[0].distance > res.body.elements[1].distance, 'other profiles route on roads, longer than the straight line');
      const zoned = await http(`${svc.url}/matrix/v1/calculations`, { json: { origins: sites, destinations: sites, tripProfile: 'LINEAR', restrictionZones: ['Centrum'] }, headers: sdkHeaders });
      assert.deepEqual([zoned.status, zoned.body.errors?.[0]?.path], [400, 'restrictionZones']);
      const badDate = await http(`${svc.url}/matrix/v1/calculations`, { json: { origins: sites, destinations: sites, startDate: 'soon' }, headers: sdkHeaders });
      assert.deepEqual([badDate.status, badDate.body.errors?.[0]?.path], [400, 'startDate']);
    });
  });
}

test('the service reference\'s Maplink table names every member of the Trip request, with its state here; the README links to it', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.match(readme, /\(docs\/SERVICE\.md#maplink-compatibility\)/, 'the README links to the table');
  const reference = readFileSync(join(ROOT, 'docs', 'SERVICE.md'), 'utf8');
  const section = reference.slice(reference.indexOf('## Maplink compatibility'));
  assert.ok(section.length > 100, 'docs/SERVICE.md has a "Maplink compatibility" section');
  for (const member of [...Object.keys(tripBodySchema.properties), 'callback']) {
    assert.match(section, new RegExp(`\\| \`${member}\` \\|[^\\n]*\\| (implemented|default only|accepted)[^|\\n]* \\|\\n`), `docs/SERVICE.md row for ${member}`);
  }
});

test('JobWriter: the jobs written in one turn of the event loop go in one transaction, at most 256 KB of solutions each, one a turn; its failure fails each of them', async () => {
  const { JobWriter } = await import('../src/service/JobWriter.js');
  const batches: string[][] = [];
  let fail = false;
  const store = {
    insertJobs: async (jobs: readonly { id: string }[]) => {
      batches.push(jobs.map((j) => j.id));
      if (fail) throw new Error('disk full');
    },
  };
  const writer = new JobWriter(store as never);
  const job = (id: string) => ({ id, clientId: 'c', kind: 'trip', status: 'SOLVED', request: {}, solutionJson: '{}', attempts: 0, createdAt: 0, updatedAt: 0, expiresAt: 1 }) as const;
  await Promise.all([writer.write(job('a')), writer.write(job('b')), writer.write(job('c'))]);
  await writer.write(job('d'));
  assert.deepEqual(batches, [['a', 'b', 'c'], ['d']]);
  fail = true;
  const results = await Promise.allSettled([writer.write(job('e')), writer.write(job('f'))]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  assert.deepEqual(batches.at(-1), ['e', 'f']);

  // Large solutions (a 100-point trip's is about 166 KB): at most 256 KB of them a transaction, one
  // transaction a turn, a larger one alone; the small ones after them share one again.
  fail = false;
  batches.length = 0;
  const sized = (id: string, chars: number) => ({ ...job(id), solutionJson: 'x'.repeat(chars) });
  // Turns of the event loop counted by an immediate that sets the next (one runs a turn).
  const turns: number[] = [];
  let turn = 0, counting = true;
  const tick = () => { turn++; if (counting) setImmediate(tick); };
  tick();
  const timedStore = store.insertJobs;
  store.insertJobs = async (jobs) => { turns.push(turn); return timedStore(jobs); };
  try {
    await Promise.all([writer.write(sized('g', 166_000)), writer.write(sized('h', 166_000)), writer.write(sized('i', 300_000)), writer.write(sized('j', 50_000)), writer.write(job('k'))]);
  } finally {
    counting = false;
  }
  assert.deepEqual(batches, [['g'], ['h'], ['i'], ['j', 'k']]);
  assert.equal(new Set(turns).size, turns.length, 'one batch a turn');
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import booleanIntersects from '@turf/boolean-intersects';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import { lineString, point, polygon } from '@turf/helpers';
import polyline from '@mapbox/polyline';
import ngeohash from 'ngeohash';
import { calculateZone, haversineMetres, Router, validateZone, DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import {
  authorise, http, listen, newClient, postgresKind, postgresSkipReason, requestToken, sqliteKind,
  TOKEN_PATH, TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';
import type { Store } from '../src/store/Store.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);

/** A block of central Gothenburg, and two stops west and east of it. */
const centrum = {
  name: 'Centrum',
  geometries: [{ name: 'block', vertices: [v(57.7, 11.96), v(57.7, 11.975), v(57.71, 11.975), v(57.71, 11.96)] }],
};
const west = { latitude: 57.7055, longitude: 11.95, siteId: 'west' };
const east = { latitude: 57.7055, longitude: 11.985, siteId: 'east' };
const inside = { latitude: 57.7052, longitude: 11.9675, siteId: 'inside' };

function v(latitude: number, longitude: number) {
  return { latitude, longitude };
}

const turfPolygon = (zone: typeof centrum) =>
  polygon(zone.geometries.map((g) => [...g.vertices.map((p) => [p.longitude, p.latitude]), [g.vertices[0].longitude, g.vertices[0].latitude]]));

/** The trip's leg geometry as [lon, lat] from pointsMode=array. */
const lonLat = (points: Array<[number, number]>) => points.map(([lat, lon]) => [lon, lat]);

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: (await postgresSkipReason()) ?? false },
];

for (const { make, skip } of kinds) {
  describe(`HTTP service on ${make === sqliteKind ? 'SQLite' : 'PostgreSQL'}`, { skip }, () => {
    let kind: StoreKind;
    let store: Store;
    let svc: TestService;
    let clock = Date.now();
    let client: { clientId: string; clientSecret: string };
    let auth: Awaited<ReturnType<typeof authorise>>;

    before(async () => {
      kind = make();
      store = await kind.open();
      svc = await listen(graph, store, { now: () => clock, failedLogins: { perClient: 1000, perAddress: 1000 } });
      client = await newClient(store);
      auth = await authorise(svc.url, client);
    });
    after(async () => {
      await svc?.close();
      await store?.close();
      await kind?.dispose();
    });

    const zones = (path = '', init: Parameters<typeof http>[1] = {}) => http(`${svc.url}${ZONES_PATH}${path}`, { ...init, headers: { ...auth.headers, ...init.headers } });
    const trip = (body: unknown, query = '?pointsMode=array', headers = auth.headers) => http(`${svc.url}${TRIP_PATH}${query}`, { json: body, headers });

    test('the whole flow: token, insert, read with status, route around, delete, 404, route without', async () => {
      const created = await zones('', { json: centrum });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.status, { name: 'CALCULATED', description: 'Roads inside restriction zone calculated' });
      assert.deepEqual({ name: created.body.name, geometries: created.body.geometries }, centrum);

      const read = await zones('/Centrum');
      assert.equal(read.status, 200);
      assert.equal(read.body.status.name, 'CALCULATED');
      const list = await zones();
      assert.deepEqual(list.body.map((z: { name: string }) => z.name), ['Centrum']);

      const free = await trip({ points: [west, east] });
      const around = await trip({ points: [west, east], restrictionZones: ['Centrum'] });
      assert.equal(free.status, 201, free.text);
      assert.equal(around.status, 201, around.text);
      const zonePolygon = turfPolygon(centrum);
      // @turf, not detour, judges: the free route crosses the zone, the restricted one does not touch it.
      assert.ok(booleanIntersects(lineString(lonLat(free.body.legs[0].points)), zonePolygon));
      assert.ok(!booleanIntersects(lineString(lonLat(around.body.legs[0].points)), zonePolygon));
      assert.ok(around.body.totalDistance > free.body.totalDistance);
      // The adapter reports what the library computes.
      const lib = new Router(graph).route({ points: [west, east], zones: [calculateZone(graph, validateZone(centrum))] });
      assert.equal(around.body.totalDistance, Math.round(lib.distance));
      assert.equal(around.body.totalNominalDuration, Math.round(lib.duration));
      assert.equal(around.body.clientId, client.clientId);
      assert.equal(around.body.legs[0].departureSiteId, 'west');
      assert.equal(around.body.legs[0].arrivalSiteId, 'east');
      assert.equal(around.body.legs[0].restrictionZonesEntered, undefined);
      assert.ok(!Number.isNaN(Date.parse(around.body.createdAt)));
      // Snapping distances: from each point as sent to the leg's first and last point (the snapped positions), by haversine here.
      const [startLat, startLon] = around.body.legs[0].points[0], [endLat, endLon] = around.body.legs[0].points.at(-1);
      assert.ok(Math.abs(around.body.legs[0].departureSnapDistance - haversineMetres(west.latitude, west.longitude, startLat, startLon)) <= 0.06);
      assert.ok(Math.abs(around.body.legs[0].arrivalSnapDistance - haversineMetres(east.latitude, east.longitude, endLat, endLon)) <= 0.06);

      const deleted = await zones('/Centrum', { method: 'DELETE' });
      assert.equal(deleted.status, 200);
      assert.equal((await zones('/Centrum')).status, 404);
      assert.equal((await zones('/Centrum', { method: 'DELETE' })).status, 404);
      const gone = await trip({ points: [west, east], restrictionZones: ['Centrum'] });
      assert.equal(gone.status, 400);
      assert.equal(gone.body.code, 'ZONE_NOT_FOUND');
      const again = await trip({ points: [west, east] });
      assert.equal(again.body.totalDistance, free.body.totalDistance);
    });

    test('token response: exactly the Apigee members, valid for 60 minutes, then 401 expired', async () => {
      const res = await requestToken(svc.url, { client_id: client.clientId, client_secret: client.clientSecret });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'access_token', 'api_product_list', 'api_product_list_json', 'application_name', 'client_id', 'developer.email', 'expires_in',
        'issued_at', 'organization_name', 'refresh_count', 'refresh_token_expires_in', 'scope', 'status', 'token_type',
      ]);
      for (const [k, value] of Object.entries(res.body)) if (k !== 'api_product_list_json') assert.equal(typeof value, 'string', k);
      assert.equal(res.body.token_type, 'BearerToken');
      assert.equal(res.body.expires_in, '3599');
      assert.equal(res.body.issued_at, String(clock));
      assert.equal(res.body.api_product_list, '[Trip, Restriction Zone, Matrix]');
      assert.deepEqual(res.body.api_product_list_json, ['Trip', 'Restriction Zone', 'Matrix']);
      assert.equal(res.body['developer.email'], 'dev@example.com');
      assert.equal(res.body.status, 'approved');
      const headers = { authorization: `Bearer ${res.body.access_token}`, clientid: client.clientId };
      const started = clock;
      try {
        clock = started + 3599_000;
        assert.equal((await http(`${svc.url}${ZONES_PATH}`, { headers })).status, 200);
        clock = started + 3600_000;
        const expired = await http(`${svc.url}${ZONES_PATH}`, { headers });
        assert.equal(expired.status, 401);
        assert.equal(expired.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
        assert.deepEqual(expired.body, { fault: { faultstring: 'Access Token expired', detail: { errorcode: 'keymanagement.service.access_token_expired' } } });
        const fresh = await authorise(svc.url, client);
        assert.equal((await http(`${svc.url}${ZONES_PATH}`, { headers: fresh.headers })).status, 200);
      } finally {
        clock = started;
      }
    });

    test('token endpoint errors come in Apigee\'s shape and never say whether the id or the secret was wrong', async () => {
      const form = { client_id: client.clientId, client_secret: client.clientSecret };
      const cases: Array<[string, Promise<Awaited<ReturnType<typeof http>>>, number, unknown]> = [
        ['no grant_type', requestToken(svc.url, form, ''), 400, { ErrorCode: 'invalid_request', Error: 'Required param : grant_type' }],
        ['wrong grant_type', requestToken(svc.url, form, '?grant_type=password'), 400, { ErrorCode: 'unsupported_grant_type', Error: 'Unsupported grant type : password' }],
        ['no client_id', requestToken(svc.url, { client_secret: 'x' }), 400, { ErrorCode: 'invalid_request', Error: 'Required param : client_id' }],
        ['no client_secret', requestToken(svc.url, { client_id: client.clientId }), 400, { ErrorCode: 'invalid_request', Error: 'Required param : client_secret' }],
        ['JSON body', http(`${svc.url}${TOKEN_PATH}?grant_type=client_credentials`, { json: form }), 400, { ErrorCode: 'invalid_request', Error: 'Content-Type must be application/x-www-form-urlencoded' }],
        ['broken JSON body', http(`${svc.url}${TOKEN_PATH}?grant_type=client_credentials`, { method: 'POST', body: '{"client_id": ', headers: { 'content-type': 'application/json' } }), 400, { ErrorCode: 'invalid_request', Error: 'Content-Type must be application/x-www-form-urlencoded' }],
        ['text body', http(`${svc.url}${TOKEN_PATH}?grant_type=client_credentials`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } }), 400, { ErrorCode: 'invalid_request', Error: 'Content-Type must be application/x-www-form-urlencoded' }],
        ['unknown client', requestToken(svc.url, { client_id: 'nobody', client_secret: 'x' }), 401, { ErrorCode: 'invalid_client', Error: 'Client credentials are invalid' }],
        ['wrong secret', requestToken(svc.url, { client_id: client.clientId, client_secret: 'wrong' }), 401, { ErrorCode: 'invalid_client', Error: 'Client credentials are invalid' }],
      ];
      for (const [label, pending, status, body] of cases) {
        const res = await pending;
        assert.equal(res.status, status, `${label}: ${res.text}`);
        assert.deepEqual(res.body, body, label);
      }
      const revoked = await newClient(store);
      assert.equal((await requestToken(svc.url, { client_id: revoked.clientId, client_secret: revoked.clientSecret })).status, 200);
      const revokedAuth = await authorise(svc.url, revoked);
      assert.ok(await store.revokeClient(revoked.clientId, clock));
      const after = await requestToken(svc.url, { client_id: revoked.clientId, client_secret: revoked.clientSecret });
      assert.deepEqual([after.status, after.body.ErrorCode], [401, 'invalid_client']);
      const used = await http(`${svc.url}${ZONES_PATH}`, { headers: revokedAuth.headers });
      assert.equal(used.status, 401, 'a revoked client\'s tokens stop working');
    });

    test('bearer token and clientId header: 401 missing/malformed/unknown, 400 no clientId, 403 another client\'s id', async () => {
      const invalid = { fault: { faultstring: 'Invalid Access Token', detail: { errorcode: 'keymanagement.service.invalid_access_token' } } };
      for (const authorization of [undefined, 'Bearer', `Basic ${auth.token}`, 'Bearer not-a-token', `Bearer ${auth.token}x`, `Bearer ${auth.token} extra`]) {
        const headers: Record<string, string> = { clientid: client.clientId };
        if (authorization) headers.authorization = authorization;
        for (const url of [`${svc.url}${ZONES_PATH}`, `${svc.url}${TRIP_PATH}`]) {
          const res = await http(url, { headers, ...(url.endsWith('calculations') && { json: { points: [west, east] } }) });
          assert.equal(res.status, 401, `${authorization}: ${res.text}`);
          assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
          assert.deepEqual(res.body, invalid);
        }
      }
      const noClientId = await http(`${svc.url}${ZONES_PATH}`, { headers: { authorization: auth.headers.authorization } });
      assert.deepEqual([noClientId.status, noClientId.body.code], [400, 'CLIENT_ID_REQUIRED']);
      const other = await newClient(store);
      const wrongId = await http(`${svc.url}${ZONES_PATH}`, { headers: { authorization: auth.headers.authorization, clientid: other.clientId } });
      assert.deepEqual([wrongId.status, wrongId.body.code], [403, 'CLIENT_ID_MISMATCH']);
    });

    test('zones are private: another client cannot list, read, replace, delete or route with them', async () => {
      assert.equal((await zones('', { json: { ...centrum, name: 'mine' } })).status, 201);
      const other = await newClient(store);
      const otherAuth = await authorise(svc.url, other);
      const theirs = (path = '', init: Parameters<typeof http>[1] = {}) => http(`${svc.url}${ZONES_PATH}${path}`, { ...init, headers: { ...otherAuth.headers } });
      assert.deepEqual((await theirs()).body, []);
      assert.equal((await theirs('/mine')).status, 404);
      assert.equal((await theirs('/mine', { method: 'PUT', json: { ...centrum, name: 'mine' } })).status, 404);
      assert.equal((await theirs('/mine', { method: 'DELETE' })).status, 404);
      const routed = await trip({ points: [west, east], restrictionZones: ['mine'] }, '', otherAuth.headers);
      assert.deepEqual([routed.status, routed.body.code, routed.body.zones], [400, 'ZONE_NOT_FOUND', ['mine']]);
      // The other client may use the same name for a zone of its own.
      assert.equal((await theirs('', { json: { ...centrum, name: 'mine' } })).status, 201);
      assert.equal((await zones('/mine', { method: 'DELETE' })).status, 200);
      assert.equal((await theirs('/mine')).status, 200);
    });

    test('a token without the product gets 403 saying so', async () => {
      const tripOnly = await newClient(store, ['Trip']);
      const tripAuth = await authorise(svc.url, tripOnly);
      const res = await http(`${svc.url}${ZONES_PATH}`, { headers: tripAuth.headers });
      assert.equal(res.status, 403);
      assert.equal(res.body.fault.detail.errorcode, 'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound');
      assert.match(res.body.fault.faultstring, /do not include Restriction Zone/);
      assert.equal((await trip({ points: [west, east] }, '', tripAuth.headers)).status, 201);
      const zonesOnly = await newClient(store, ['Restriction Zone']);
      const zonesAuth = await authorise(svc.url, zonesOnly);
      const denied = await trip({ points: [west, east] }, '', zonesAuth.headers);
      assert.equal(denied.status, 403);
      assert.match(denied.body.fault.faultstring, /do not include Trip/);
    });

    test('zone API errors: every validation problem with its path, 409 on a taken name, PUT replaces, bad JSON', async () => {
      const bad = await zones('', { json: { name: 'a/b', geometries: [{ vertices: [v(0, 0), { latitude: '1', longitude: 2 }, v(95, 1)] }, null] } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'INVALID_ZONE');
      assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['geometries[0].vertices[1].latitude', 'geometries[0].vertices[2].latitude', 'geometries[1]', 'name']);
      for (const body of [null, [], 'zone', { name: 'x' }, { name: 'x', geometries: [[]] }, { name: 'x', geometries: [{ vertices: [] }] }]) {
        const res = await zones('', { json: body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(res.body.errors.length > 0 && res.body.errors.every((e: { path: string; message: string }) => e.path && e.message), res.text);
      }
      const selfCrossing = await zones('', { json: { name: 'bow', geometries: [{ vertices: [v(0, 0), v(1, 1), v(0, 1), v(1, 0)] }] } });
      assert.match(selfCrossing.body.errors[0].message, /self-intersecting: segment 0 .* crosses segment 2/);
      const extra = await zones('', { json: { ...centrum, name: 'extra', colour: 'red' } });
      assert.equal(extra.status, 201, 'unknown members of a zone are ignored, as the schema allows');

      assert.equal((await zones('', { json: { ...centrum, name: 'dup' } })).status, 201);
      const dup = await zones('', { json: { ...centrum, name: 'dup' } });
      assert.deepEqual([dup.status, dup.body.code], [409, 'ZONE_EXISTS']);

      const smaller = { name: 'dup', geometries: [{ name: 'small', vertices: [v(57.704, 11.966), v(57.704, 11.969), v(57.706, 11.969)] }] };
      const replaced = await zones('/dup', { method: 'PUT', json: smaller });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual((await zones('/dup')).body.geometries, smaller.geometries);
      const renamed = await zones('/dup', { method: 'PUT', json: { ...smaller, name: 'other' } });
      assert.deepEqual([renamed.status, renamed.body.errors[0].path], [400, 'name']);
      assert.equal((await zones('/absent', { method: 'PUT', json: { ...smaller, name: 'absent' } })).status, 404);

      const notJson = await zones('', { method: 'POST', body: '{"name": ', headers: { 'content-type': 'application/json' } });
      assert.deepEqual([notJson.status, notJson.body.code], [400, 'INVALID_JSON']);
      const wrongType = await zones('', { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.deepEqual([wrongType.status, wrongType.body.code], [415, 'UNSUPPORTED_MEDIA_TYPE']);
      const huge = await zones('', { method: 'POST', body: `{"name":"${'x'.repeat(9 * 1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } });
      assert.deepEqual([huge.status, huge.body.code], [413, 'BODY_TOO_LARGE']);
      for (const name of ['dup', 'extra']) await zones(`/${name}`, { method: 'DELETE' });
    });

    test('any name validation accepts round-trips through the path', async () => {
      const names = ['Zône Ünïcode ✓', 'with space', '100%', '%41', 'what?', 'a#b', 'x+y=z', 'a&b', '...', '🚧 obras', "quote'\"", 'ä'.repeat(100), ' padded '];
      for (const name of names) {
        const created = await zones('', { json: { ...centrum, name } });
        assert.equal(created.status, 201, `${name}: ${created.text}`);
        const path = `/${encodeURIComponent(name)}`;
        const read = await zones(path);
        assert.equal(read.status, 200, name);
        assert.equal(read.body.name, name);
        assert.equal((await zones(path, { method: 'PUT', json: { ...centrum, name } })).status, 200, name);
        const routed = await trip({ points: [west, east], restrictionZones: [name] });
        assert.equal(routed.status, 201, name);
      }
      const listed = (await zones()).body.map((z: { name: string }) => z.name);
      assert.deepEqual([...listed].sort(), [...names].sort());
      for (const name of names) assert.equal((await zones(`/${encodeURIComponent(name)}`, { method: 'DELETE' })).status, 200, name);
    });

    test('trip errors: unknown zones listed, a point off the roads named by siteId, invalid bodies with paths', async () => {
      assert.equal((await zones('', { json: centrum })).status, 201);
      const unknown = await trip({ points: [west, east], restrictionZones: ['Centrum', 'nope', 'nada'] });
      assert.deepEqual([unknown.status, unknown.body.code, unknown.body.zones], [400, 'ZONE_NOT_FOUND', ['nope', 'nada']]);
      assert.match(unknown.body.message, /"nope", "nada"/);
      const sea = await trip({ points: [west, { latitude: 57.6, longitude: 11.6, siteId: 'boat' }] });
      assert.deepEqual([sea.status, sea.body.code], [422, 'POINT_NOT_ROUTABLE']);
      assert.match(sea.body.message, /siteId "boat"/);
      const bodies: Array<[unknown, string]> = [
        [{ points: [west] }, 'points'],
        [{ points: [west, { latitude: '57.7N', longitude: 11.9 }] }, 'points[1].latitude'],
        [{ points: [west, { latitude: '91', longitude: 11.9 }] }, 'points[1].latitude'],
        [{ points: [west, { latitude: 57.7, longitude: true }] }, 'points[1].longitude'],
        [{ points: [west, { latitude: 91, longitude: 11.9 }] }, 'points[1].latitude'],
        [{ points: [west, { longitude: 11.9 }] }, 'points[1].latitude'],
        [{ points: [west, east], calculationMode: 'THE_PRETTIEST' }, 'calculationMode'],
        [{ points: [west, east], restrictionZones: 'Centrum' }, 'restrictionZones'],
        [{ points: [west, east], restrictionZone: ['Centrum'] }, 'restrictionZone'],
        [{}, 'points'],
      ];
      for (const [body, path] of bodies) {
        const res = await trip(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'INVALID_REQUEST');
        assert.ok(res.body.errors.some((e: { path: string }) => e.path === path), `${JSON.stringify(body)}: ${res.text}`);
      }
      const badMode = await trip({ points: [west, east] }, '?pointsMode=wkt');
      assert.deepEqual([badMode.status, badMode.body.errors[0].path], [400, 'pointsMode']);
      assert.equal((await zones('/Centrum', { method: 'DELETE' })).status, 200);
    });

    test('pointsMode: polyline (default), object, array and geohash encode the same geometry', async () => {
      const body = { points: [west, east], calculationMode: 'THE_SHORTEST' };
      const array = (await trip(body, '?pointsMode=array')).body.legs[0].points as Array<[number, number]>;
      const encoded = (await trip(body, '')).body.legs[0].points as string;
      const objects = (await trip(body, '?pointsMode=object')).body.legs[0].points as Array<{ latitude: number; longitude: number }>;
      const hashes = (await trip(body, '?pointsMode=geohash')).body.legs[0].points as string[];
      assert.equal(typeof encoded, 'string');
      const decoded = polyline.decode(encoded);
      assert.equal(decoded.length, array.length);
      assert.ok(array.length > 10);
      array.forEach(([lat, lon], i) => {
        assert.ok(Math.abs(decoded[i][0] - lat) <= 0.5e-5 + 1e-9 && Math.abs(decoded[i][1] - lon) <= 0.5e-5 + 1e-9, `polyline point ${i}`);
        assert.deepEqual(objects[i], { latitude: lat, longitude: lon });
        assert.equal(hashes[i].length, 9);
        const cell = ngeohash.decode_bbox(hashes[i]);
        assert.ok(lat >= cell[0] && lat <= cell[2] && lon >= cell[1] && lon <= cell[3], `geohash point ${i}`);
      });
    });

    test('a stop inside a zone is served; the leg lists the zone and the metres inside', async () => {
      assert.equal((await zones('', { json: centrum })).status, 201);
      const res = await trip({ points: [west, inside, east], restrictionZones: ['Centrum'] });
      assert.equal(res.status, 201, res.text);
      const [toInside, fromInside] = res.body.legs;
      for (const leg of [toInside, fromInside]) {
        assert.equal(leg.restrictionZonesEntered.length, 1);
        assert.equal(leg.restrictionZonesEntered[0].name, 'Centrum');
        assert.ok(leg.restrictionZonesEntered[0].distanceInside > 0);
        assert.ok(leg.restrictionZonesEntered[0].distanceInside <= leg.distance);
      }
      assert.ok(booleanPointInPolygon(point([inside.longitude, inside.latitude]), turfPolygon(centrum)));
      assert.equal((await zones('/Centrum', { method: 'DELETE' })).status, 200);
    });

    test('two instances on one database act as one service: tokens, inserts, replacements and deletes', async () => {
      const secondStore = await kind.open();
      const second = await listen(graph, secondStore, { now: () => clock });
      try {
        const onSecond = (path: string, init: Parameters<typeof http>[1] = {}) => http(`${second.url}${path}`, { ...init, headers: { ...auth.headers, ...init.headers } });
        // A token issued by the first instance works on the second.
        assert.equal((await onSecond(ZONES_PATH)).status, 200);
        const free = (await onSecond(`${TRIP_PATH}?pointsMode=array`, { json: { points: [west, east] } })).body;

        assert.equal((await zones('', { json: centrum })).status, 201);
        const around = await onSecond(`${TRIP_PATH}?pointsMode=array`, { json: { points: [west, east], restrictionZones: ['Centrum'] } });
        assert.equal(around.status, 201, around.text);
        assert.ok(!booleanIntersects(lineString(lonLat(around.body.legs[0].points)), turfPolygon(centrum)));
        assert.equal((await onSecond(`${ZONES_PATH}/Centrum`)).body.status.name, 'CALCULATED');

        // Replaced on the first: the second routes around the new polygon at once.
        const north = { name: 'Centrum', geometries: [{ name: 'north', vertices: [v(57.72, 11.96), v(57.72, 11.975), v(57.73, 11.975), v(57.73, 11.96)] }] };
        assert.equal((await zones('/Centrum', { method: 'PUT', json: north })).status, 200);
        const afterReplace = await onSecond(`${TRIP_PATH}?pointsMode=array`, { json: { points: [west, east], restrictionZones: ['Centrum'] } });
        const expected = new Router(graph).route({ points: [west, east], zones: [calculateZone(graph, validateZone(north))] });
        assert.equal(afterReplace.body.totalDistance, Math.round(expected.distance), 'the new polygon applies, the old one no longer');
        assert.notEqual(afterReplace.body.totalDistance, around.body.totalDistance);

        assert.equal((await zones('/Centrum', { method: 'DELETE' })).status, 200);
        const afterDelete = await onSecond(TRIP_PATH, { json: { points: [west, east], restrictionZones: ['Centrum'] } });
        assert.deepEqual([afterDelete.status, afterDelete.body.code], [400, 'ZONE_NOT_FOUND']);

        // And the other way round.
        assert.equal((await onSecond(ZONES_PATH, { json: { ...centrum, name: 'from-second' } })).status, 201);
        assert.equal((await zones('/from-second')).body.status.name, 'CALCULATED');
        assert.equal((await onSecond(`${ZONES_PATH}/from-second`, { method: 'DELETE' })).status, 200);
      } finally {
        await second.close();
        await secondStore.close();
      }
    });

    test('stored zones are recalculated when a service starts on the graph', async () => {
      assert.equal((await zones('', { json: { ...centrum, name: 'kept' } })).status, 201);
      const { recalculateStoredZones } = await import('../src/service/startService.js');
      const reopened = await kind.open();
      const restarted = await listen(graph, reopened, { now: () => clock });
      try {
        assert.equal(restarted.app.zoneCache.size, 0);
        const warm = await recalculateStoredZones(restarted.app);
        assert.ok(warm.zones >= 1);
        assert.equal(restarted.app.zoneCache.size, warm.zones);
        const health = await http(`${restarted.url}/health`);
        assert.deepEqual([health.status, health.body.status, health.body.store], [200, 'ok', reopened.kind]);
        assert.equal(health.body.zonesCalculated, warm.zones);
        const read = await http(`${restarted.url}${ZONES_PATH}/kept`, { headers: auth.headers });
        assert.equal(read.body.status.name, 'CALCULATED');
      } finally {
        await restarted.close();
        await reopened.close();
      }
      assert.equal((await zones('/kept', { method: 'DELETE' })).status, 200);
    });
  });
}

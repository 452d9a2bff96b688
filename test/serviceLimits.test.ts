import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import { ZONE_PAGE } from '../src/service/schemas.js';
import { configFromEnv } from '../src/service/startService.js';
import { DEFAULT_ZONE_QUOTA, UnstorableText, type Page, type Store, type StoredZone } from '../src/store/Store.js';
import { CLI } from './support/helpers.js';
import {
  authorise, http, listen, newClient, PG_TEST_URL, postgresKind, postgresSkipReason, requestToken, sqliteKind,
  TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);

/** A convex ring of n vertices (a valid polygon) around a point in central Gothenburg. */
function ring(n: number, lat = 57.705, lon = 11.967, radius = 0.002) {
  return Array.from({ length: n }, (_, i) => ({
    latitude: lat + radius * Math.sin((2 * Math.PI * i) / n),
    longitude: lon + 2 * radius * Math.cos((2 * Math.PI * i) / n),
  }));
}
const zone = (name: string, vertices = 4) => ({ name, geometries: [{ name: 'g', vertices: ring(vertices) }] });
const west = { latitude: 57.7055, longitude: 11.95 };
const east = { latitude: 57.7055, longitude: 11.985 };

type Auth = Awaited<ReturnType<typeof authorise>>;
const call = (svc: TestService, auth: Auth, path: string, init: Parameters<typeof http>[1] = {}) =>
  http(`${svc.url}${path}`, { ...init, headers: { ...auth.headers, ...init.headers } });

/** One raw HTTP/1.1 request (for bytes fetch refuses to send); resolves with the status code. */
function rawStatus(url: string, request: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

/** The store with every listZones call recorded, to check how the service reads pages. */
function recordingStore(store: Store, calls: Array<Page | undefined>): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'listZones') return (clientId: string, page?: Page) => (calls.push(page), target.listZones(clientId, page));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: (await postgresSkipReason()) ?? false },
];

for (const { make, skip } of kinds) {
  describe(`service limits on ${make === sqliteKind ? 'SQLite' : 'PostgreSQL'}`, { skip }, () => {
    let kind: StoreKind;
    let store: Store;
    let secondStore: Store;
    let svc: TestService;
    /** Quota 4 zones, 40 vertices; `tight2` is a second instance on the same database. */
    let tight: TestService;
    let tight2: TestService;
    const listCalls: Array<Page | undefined> = [];
    const QUOTA = { zones: 4, vertices: 40 };
    const failedLogins = { perClient: 1000, perAddress: 1000 };

    before(async () => {
      kind = make();
      store = await kind.open();
      secondStore = await kind.open();
      svc = await listen(graph, recordingStore(store, listCalls), { failedLogins });
      tight = await listen(graph, store, { failedLogins, zoneQuota: QUOTA });
      tight2 = await listen(graph, secondStore, { failedLogins, zoneQuota: QUOTA });
    });
    after(async () => {
      for (const s of [svc, tight, tight2]) await s?.close();
      await store?.close();
      await secondStore?.close();
      await kind?.dispose();
    });

    const freshAuth = async (on: TestService = svc) => authorise(on.url, await newClient(store));

    test('NUL bytes and lone surrogates get 400 in every place, never 500, and the service stays up', async () => {
      const auth = await freshAuth();
      assert.equal((await call(svc, auth, ZONES_PATH, { json: zone('kept') })).status, 201);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await call(svc, auth, `${ZONES_PATH}/a%00b`, method === 'PUT' ? { method, json: zone('a\u0000b') } : { method });
        assert.equal(res.status, 400, `${method} ${res.text}`);
        assert.equal(res.body.code, 'INVALID_REQUEST');
        assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path), ['name']);
        assert.match(res.body.errors[0].message, /NUL/);
      }
      // A lone surrogate cannot be percent-encoded as UTF-8: its bytes are a bad encoding.
      const surrogatePath = await call(svc, auth, `${ZONES_PATH}/%ED%A0%80`);
      assert.deepEqual([surrogatePath.status, surrogatePath.body.code], [400, 'BAD_URL']);

      for (const [name, reason] of [['a\u0000b', /NUL/], ['\uD800x', /lone surrogate \(U\+D800/], ['x\uDFFF', /lone surrogate \(U\+DFFF/]] as const) {
        const res = await call(svc, auth, ZONES_PATH, { json: zone(name) });
        assert.deepEqual([res.status, res.body.code], [400, 'INVALID_ZONE'], res.text);
        assert.equal(res.body.errors[0].path, 'name');
        assert.match(res.body.errors[0].message, reason);
      }

      const trip = await call(svc, auth, TRIP_PATH, { json: { points: [west, east], restrictionZones: ['kept', 'a\u0000b', '\uDC00'] } });
      assert.equal(trip.status, 400, trip.text);
      assert.deepEqual(trip.body.errors.map((e: { path: string }) => e.path), ['restrictionZones[1]', 'restrictionZones[2]']);

      const token = await requestToken(svc.url, { client_id: 'a\u0000b', client_secret: 'x' });
      assert.equal(token.status, 400, token.text);
      assert.equal(token.body.ErrorCode, 'invalid_request');
      assert.match(token.body.Error, /client_id must not contain NUL/);

      // fetch refuses a NUL in a header, so the bytes go over a socket: node's parser answers 400.
      const header = await rawStatus(svc.url, `GET ${ZONES_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.headers.authorization}\r\nclientId: a\u0000b\r\nConnection: close\r\n\r\n`);
      assert.equal(header, 400);

      // The store refuses them too, before any query, whoever calls it.
      await assert.rejects(store.getClient('a\u0000b'), UnstorableText);
      await assert.rejects(store.getZones('c', ['ok', '\uD800']), UnstorableText);

      const health = await http(`${svc.url}/health`);
      assert.deepEqual([health.status, health.body.status], [200, 'ok']);
      assert.equal((await call(svc, auth, `${ZONES_PATH}/kept`)).status, 200);
    });

    test('names: NFC, so composed and decomposed spellings are one zone; Cf, control and lone surrogates rejected with reason', async () => {
      const auth = await freshAuth();
      const composed = 'Caf\u00e9 Z\u00fcrich';
      const decomposed = 'Cafe\u0301 Zu\u0308rich';
      assert.notEqual(composed, decomposed);
      const created = await call(svc, auth, ZONES_PATH, { json: zone(decomposed) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.name, composed, 'stored in NFC');
      const again = await call(svc, auth, ZONES_PATH, { json: zone(composed) });
      assert.deepEqual([again.status, again.body.code], [409, 'ZONE_EXISTS']);
      for (const spelling of [composed, decomposed]) {
        const read = await call(svc, auth, `${ZONES_PATH}/${encodeURIComponent(spelling)}`);
        assert.deepEqual([read.status, read.body.name], [200, composed]);
        const trip = await call(svc, auth, TRIP_PATH, { json: { points: [west, east], restrictionZones: [spelling] } });
        assert.equal(trip.status, 201, trip.text);
      }
      const replaced = await call(svc, auth, `${ZONES_PATH}/${encodeURIComponent(composed)}`, { method: 'PUT', json: zone(decomposed, 6) });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual((await call(svc, auth, ZONES_PATH)).body.map((z: { name: string }) => z.name), [composed]);
      assert.equal((await call(svc, auth, `${ZONES_PATH}/${encodeURIComponent(decomposed)}`, { method: 'DELETE' })).status, 200);
      assert.equal((await call(svc, auth, `${ZONES_PATH}/${encodeURIComponent(composed)}`)).status, 404);

      // 100 characters once composed, though 200 code points as sent.
      assert.equal((await call(svc, auth, ZONES_PATH, { json: zone('e\u0301'.repeat(100)) })).status, 201);
      assert.equal((await call(svc, auth, ZONES_PATH, { json: zone('e\u0301'.repeat(101)) })).status, 400);

      const rejected: Array<[string, RegExp]> = [
        ['a\u200bb', /invisible format characters \(Unicode Cf: U\+200B at character 1\)/], // zero-width space
        ['a\u200db', /Cf: U\+200D/], // zero-width joiner
        ['\ufeffa', /Cf: U\+FEFF at character 0/], // BOM
        ['a\u202eb', /Cf: U\+202E/], // right-to-left override
        ['a\u2066b', /Cf: U\+2066/], // bidi isolate
        ['a\u00adb', /Cf: U\+00AD/], // soft hyphen
        ['a\u0007b', /control characters \(U\+0007 at character 1\)/],
        ['a\u0085b', /control characters \(U\+0085/],
        ['a\u007fb', /control characters \(U\+007F/],
        ['\ud83d', /lone surrogate/],
      ];
      for (const [name, reason] of rejected) {
        assert.ok(/\p{Cf}|\p{Cc}|\p{Cs}/u.test(name), 'the oracle: each is a format, control or surrogate code point');
        const res = await call(svc, auth, ZONES_PATH, { json: zone(name) });
        assert.equal(res.status, 400, JSON.stringify(name));
        assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path), ['name']);
        assert.match(res.body.errors[0].message, reason);
      }
      // Look-alikes that are other characters stay distinct zones (names compare exactly after NFC).
      for (const name of ['Zone', 'zone', '\uff3aone', 'Zone ', '\ud83d\udea7 works']) {
        assert.equal((await call(svc, auth, ZONES_PATH, { json: zone(name) })).status, 201, JSON.stringify(name));
      }
    });

    test('quotas: zones and vertices per client, on insert and replace, with the usage; other clients unaffected', async () => {
      const auth = await freshAuth(tight);
      for (const name of ['a', 'b', 'c']) assert.equal((await call(tight, auth, ZONES_PATH, { json: zone(name, 8) })).status, 201);
      // 24 vertices stored: a zone of 17 would make 41.
      const overVertices = await call(tight, auth, ZONES_PATH, { json: zone('d', 17) });
      assert.equal(overVertices.status, 409, overVertices.text);
      assert.equal(overVertices.body.code, 'ZONE_QUOTA_EXCEEDED');
      assert.deepEqual(overVertices.body.quota, { limit: 'vertices', zones: { used: 3, max: 4 }, vertices: { used: 24, max: 40 } });
      assert.match(overVertices.body.message, /17 vertices would bring this client's zones to 41 vertices, over the limit of 40/);
      assert.equal((await call(tight, auth, ZONES_PATH, { json: zone('d', 16) })).status, 201, 'exactly at the limit is allowed');

      const overZones = await call(tight, auth, ZONES_PATH, { json: zone('e', 3) });
      assert.deepEqual([overZones.status, overZones.body.code, overZones.body.quota.limit], [409, 'ZONE_QUOTA_EXCEEDED', 'zones']);
      assert.deepEqual(overZones.body.quota.zones, { used: 4, max: 4 });
      assert.match(overZones.body.message, /stores 4 zones, the most allowed is 4/);
      const taken = await call(tight, auth, ZONES_PATH, { json: zone('a', 3) });
      assert.equal(taken.body.code, 'ZONE_EXISTS', 'a taken name is still named as such');

      // Replacing counts the new vertices instead of the old: a (8) -> 8 fits, 9 does not (40 stored).
      assert.equal((await call(tight, auth, `${ZONES_PATH}/a`, { method: 'PUT', json: zone('a', 8) })).status, 200);
      const overReplace = await call(tight, auth, `${ZONES_PATH}/a`, { method: 'PUT', json: zone('a', 9) });
      assert.deepEqual([overReplace.status, overReplace.body.quota.limit, overReplace.body.quota.vertices.used], [409, 'vertices', 32]);
      assert.equal((await call(tight, auth, `${ZONES_PATH}/a`)).body.geometries[0].vertices.length, 8, 'the refused write changed nothing');
      assert.equal((await call(tight, auth, `${ZONES_PATH}/absent`, { method: 'PUT', json: zone('absent', 3) })).status, 404);
      assert.equal((await call(tight, auth, `${ZONES_PATH}/a`, { method: 'PUT', json: zone('a', 3) })).status, 200);
      assert.deepEqual(await store.zoneUsage(auth.headers.clientid), { zones: 4, vertices: 35 });

      // Deleting frees room; another client has its own quota.
      assert.equal((await call(tight, auth, `${ZONES_PATH}/b`, { method: 'DELETE' })).status, 200);
      assert.equal((await call(tight, auth, ZONES_PATH, { json: zone('e', 3) })).status, 201);
      const other = await freshAuth(tight);
      for (const name of ['a', 'b', 'c', 'd']) assert.equal((await call(tight, other, ZONES_PATH, { json: zone(name, 10) })).status, 201);
    });

    test('parallel inserts through two instances on one database cannot exceed the quota', async () => {
      const auth = await freshAuth(tight);
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => call(i % 2 ? tight : tight2, auth, ZONES_PATH, { json: zone(`p${i}`, 3) })),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, QUOTA.zones, statuses.join(' '));
      assert.ok(results.every((r) => r.status === 201 || r.body.code === 'ZONE_QUOTA_EXCEEDED'));
      assert.deepEqual(await store.zoneUsage(auth.headers.clientid), { zones: QUOTA.zones, vertices: 3 * QUOTA.zones });

      // Vertices too: 4 parallel replacements of 3 -> 12 vertices; 40 allows only 2 of them (12 + 9 + 9 + 3 + 3 > 40).
      const replaced = await Promise.all(
        results.filter((r) => r.status === 201).map((r, i) => call(i % 2 ? tight : tight2, auth, `${ZONES_PATH}/${r.body.name}`, { method: 'PUT', json: zone(r.body.name, 12) })),
      );
      assert.equal(replaced.filter((r) => r.status === 200).length, 3, replaced.map((r) => r.status).join(' '));
      assert.ok((await store.zoneUsage(auth.headers.clientid)).vertices <= QUOTA.vertices);
    });

    test('pages: walking Link rel="next" gives the whole list once; X-Total-Count; bounds; fields', async () => {
      const auth = await freshAuth();
      const names = Array.from({ length: 7 }, (_, i) => `page ${i}`);
      for (const name of names) assert.equal((await call(svc, auth, ZONES_PATH, { json: zone(name) })).status, 201);

      const full = await call(svc, auth, ZONES_PATH);
      assert.equal(full.status, 200);
      assert.ok(Array.isArray(full.body), 'the default answer is a JSON array of zones, as Maplink');
      assert.deepEqual(full.body.map((z: { name: string }) => z.name), names, 'oldest first');
      assert.deepEqual(Object.keys(full.body[0]), ['name', 'geometries', 'status']);
      assert.deepEqual(full.body[0].geometries, zone(names[0]).geometries);
      assert.equal(full.headers.get('x-total-count'), '7');
      assert.equal(full.headers.get('link'), null);
      assert.match(full.headers.get('content-type') ?? '', /^application\/json/);

      listCalls.length = 0;
      const walked: string[] = [];
      const sizes: number[] = [];
      let next: string | null = `${ZONES_PATH}?limit=3&fields=name,status`;
      while (next) {
        const page = await call(svc, auth, next);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.headers.get('x-total-count'), '7');
        for (const z of page.body) assert.deepEqual(Object.keys(z), ['name', 'status']);
        walked.push(...page.body.map((z: { name: string }) => z.name));
        sizes.push(page.body.length);
        next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1] ?? null;
        assert.ok(sizes.length <= 3);
      }
      assert.deepEqual(walked, names);
      assert.deepEqual(sizes, [3, 3, 1]);
      assert.ok(listCalls.every((p) => p !== undefined && p.limit <= ZONE_PAGE.batch), 'read a few zones per query, never the whole list');

      const names1 = await call(svc, auth, `${ZONES_PATH}?offset=5&fields=name`);
      assert.deepEqual(names1.body, [{ name: names[5] }, { name: names[6] }]);
      const beyond = await call(svc, auth, `${ZONES_PATH}?offset=50`);
      assert.deepEqual([beyond.status, beyond.body, beyond.headers.get('x-total-count'), beyond.headers.get('link')], [200, [], '7', null]);
      assert.equal((await call(svc, auth, `${ZONES_PATH}?limit=${ZONE_PAGE.max}`)).body.length, 7);

      for (const [query, path] of [
        ['limit=0', 'limit'], [`limit=${ZONE_PAGE.max + 1}`, 'limit'], ['limit=-1', 'limit'], ['limit=abc', 'limit'], ['limit=1.5', 'limit'],
        ['limit=', 'limit'], ['limit=1e3', 'limit'], ['offset=-1', 'offset'], ['offset=x', 'offset'], [`offset=${'9'.repeat(12)}`, 'offset'],
        ['fields=colour', 'fields'], ['fields=', 'fields'], ['fields=name,,status', 'fields'],
      ]) {
        const res = await call(svc, auth, `${ZONES_PATH}?${query}`);
        assert.deepEqual([res.status, res.body.code], [400, 'INVALID_REQUEST'], `${query}: ${res.text}`);
        assert.equal(res.body.errors[0].path, path, query);
      }
      assert.equal((await call(svc, auth, `${ZONES_PATH}?limit=1&limit=2`)).status, 400);

      const list = (await http(`${svc.url}/docs/json`)).body.paths[ZONES_PATH].get;
      assert.deepEqual(['limit', 'offset', 'fields'].filter((p) => list.parameters.some((q: { name: string; in: string }) => q.name === p && q.in === 'query')), ['limit', 'offset', 'fields']);
      assert.deepEqual(Object.keys(list.responses['200'].headers).sort(), ['Link', 'X-Total-Count'], 'the OpenAPI document tells the paging headers');
    });

    test(`the default page is ${ZONE_PAGE.default} zones; the next page says where the rest is`, async () => {
      const { headers } = await freshAuth();
      const clientId = headers.clientid;
      const at = Date.now();
      const count = ZONE_PAGE.default + 2;
      for (let i = 0; i < count; i++) {
        const name = `z${String(i).padStart(3, '0')}`;
        const body = zone(name);
        const stored: StoredZone = { clientId, name, body, revision: `r${i}`, createdAt: at + i, updatedAt: at + i };
        assert.equal(await store.insertZone(stored), true);
      }
      const first = await http(`${svc.url}${ZONES_PATH}?fields=name`, { headers });
      assert.equal(first.body.length, ZONE_PAGE.default);
      assert.equal(first.headers.get('x-total-count'), String(count));
      assert.equal(first.headers.get('link'), `<${ZONES_PATH}?limit=${ZONE_PAGE.default}&offset=${ZONE_PAGE.default}&fields=name>; rel="next"`);
      const rest = await http(`${svc.url}${ZONES_PATH}?limit=${ZONE_PAGE.default}&offset=${ZONE_PAGE.default}&fields=name`, { headers });
      assert.deepEqual(rest.body.map((z: { name: string }) => z.name), [`z${ZONE_PAGE.default}`, `z${ZONE_PAGE.default + 1}`]);
    });

    test('protocol quirks: empty bodies with a Content-Type, non-JSON types get 415, bad percent-encoding gets our shape', async () => {
      const auth = await freshAuth();
      assert.equal((await call(svc, auth, ZONES_PATH, { json: zone('q1') })).status, 201);
      const json = { 'content-type': 'application/json' };
      assert.equal((await call(svc, auth, `${ZONES_PATH}/q1`, { method: 'GET', headers: json })).status, 200);
      assert.equal((await call(svc, auth, ZONES_PATH, { method: 'GET', headers: json })).status, 200);
      const deleted = await call(svc, auth, `${ZONES_PATH}/q1`, { method: 'DELETE', headers: json, body: '' });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal((await call(svc, auth, ZONES_PATH, { json: zone('q2') })).status, 201);
      const deletedText = await call(svc, auth, `${ZONES_PATH}/q2`, { method: 'DELETE', headers: { 'content-type': 'text/plain' }, body: '' });
      assert.equal(deletedText.status, 200, deletedText.text);
      const charset = await call(svc, auth, ZONES_PATH, { body: JSON.stringify(zone('q3')), headers: { 'content-type': 'application/json; charset=utf-8' } });
      assert.equal(charset.status, 201);

      for (const [method, path, type] of [
        ['POST', ZONES_PATH, 'text/plain'], ['PUT', `${ZONES_PATH}/q3`, 'text/plain'], ['POST', TRIP_PATH, 'text/plain; charset=utf-8'],
        ['POST', ZONES_PATH, 'application/xml'], ['POST', TRIP_PATH, 'application/x-www-form-urlencoded'], ['DELETE', `${ZONES_PATH}/q3`, 'text/plain'],
      ]) {
        const res = await call(svc, auth, path, { method, body: JSON.stringify(zone('q3')), headers: { 'content-type': type } });
        assert.deepEqual([res.status, res.body.code], [415, 'UNSUPPORTED_MEDIA_TYPE'], `${method} ${path} ${type}: ${res.text}`);
        assert.match(res.body.message, /application\/json/);
      }
      const empty = await call(svc, auth, ZONES_PATH, { method: 'POST', body: '', headers: json });
      assert.deepEqual([empty.status, empty.body.code], [400, 'INVALID_JSON']);
      // Bytes that are not UTF-8 (a Latin-1 "é" in a zone name, in a siteId): refused, never stored as U+FFFD.
      for (const [path, text] of [[ZONES_PATH, JSON.stringify(zone('caf\u00e9'))], [TRIP_PATH, JSON.stringify({ points: [{ ...west, siteId: 'caf\u00e9' }, east] })]] as const) {
        const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { ...auth.headers, 'content-type': 'application/json' }, body: Buffer.from(text, 'latin1') });
        const answer = await res.json() as { code: string; message: string };
        assert.deepEqual([res.status, answer.code], [400, 'INVALID_JSON'], `${path}: ${JSON.stringify(answer)}`);
        assert.match(answer.message, /UTF-8/);
      }
      assert.equal((await call(svc, auth, `${ZONES_PATH}/${encodeURIComponent('caf\ufffd')}`)).status, 404, 'nothing was stored');
      for (const [method, path] of [['POST', ZONES_PATH], ['PUT', `${ZONES_PATH}/q3`], ['POST', TRIP_PATH]]) {
        const none = await call(svc, auth, path, { method }); // no body and no Content-Type at all
        assert.deepEqual([none.status, none.body.code], [400, method === 'POST' && path === TRIP_PATH ? 'INVALID_REQUEST' : 'INVALID_JSON'], `${method} ${path}: ${none.text}`);
      }

      for (const path of [`${ZONES_PATH}/%E0%A4%A`, `${ZONES_PATH}/%ZZ`, `${ZONES_PATH}/a%`]) {
        const res = await call(svc, auth, path);
        assert.equal(res.status, 400, path);
        assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message'], res.text);
        assert.equal(res.body.code, 'BAD_URL');
      }
      assert.equal((await call(svc, auth, `${ZONES_PATH}/q3`, { method: 'DELETE' })).status, 200);
    });
  });
}

/** A database as the first release left it (migration 1 only): a client `c` and three zones, two of them look-alikes. */
const OLD_ZONES: Array<[string, object, number]> = [
  ['Cafe\u0301', { name: 'Cafe\u0301', geometries: [{ vertices: ring(5) }, { vertices: ring(7) }] }, 1],
  ['Z\u00fcrich', zone('Z\u00fcrich', 9), 2],
  ['Zu\u0308rich', zone('Zu\u0308rich', 4), 3],
];

/** Migrations 2 and 3: vertex counts from the bodies, names in NFC unless their NFC twin exists. */
async function checkMigrated(store: Store): Promise<void> {
  assert.deepEqual(await store.zoneUsage('c'), { zones: 3, vertices: 5 + 7 + 9 + 4 });
  const zones = await store.listZones('c');
  assert.deepEqual(zones.map((z) => z.name), ['Caf\u00e9', 'Z\u00fcrich', 'Zu\u0308rich']);
  assert.deepEqual(zones.map((z) => z.body.name), ['Caf\u00e9', 'Z\u00fcrich', 'Zu\u0308rich'], 'the name inside the body too');
  assert.equal(zones[0].body.geometries.length, 2);
}

test('an SQLite database of the first release is migrated on open; a look-alike kept from then stays readable', async () => {
  const { SqliteStore } = await import('../src/store/SqliteStore.js');
  const { MIGRATIONS } = await import('../src/store/schemaSql.js');
  const { tokenHash } = await import('../src/service/credentials.js');
  const { openSqlite } = await import('../src/store/sqliteDriver.js');
  const dir = mkdtempSync(join(tmpdir(), 'detour-old-'));
  const path = join(dir, 'old.sqlite');
  const old = openSqlite(path);
  old.exec(MIGRATIONS[0] as string);
  old.pragma('user_version = 1');
  old.prepare('INSERT INTO clients VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run('c', 'app', 'org', 'e@x', '[]', 'hash', 1, null);
  for (const [name, body, at] of OLD_ZONES) old.prepare('INSERT INTO zones VALUES (?, ?, ?, ?, ?, ?)').run('c', name, JSON.stringify(body), 'r', at, at);
  old.close();
  const migrated = new SqliteStore(path);
  const svc = await listen(graph, migrated);
  try {
    await checkMigrated(migrated);
    await migrated.saveToken({ tokenHash: tokenHash('old-token'), clientId: 'c', products: ['Restriction Zone'], issuedAt: Date.now(), expiresAt: Date.now() + 60_000 });
    const headers = { authorization: 'Bearer old-token', clientid: 'c' };
    const zoneAt = (spelling: string, method = 'GET') => http(`${svc.url}${ZONES_PATH}/${encodeURIComponent(spelling)}`, { method, headers });
    assert.equal((await zoneAt('Cafe\u0301')).body.name, 'Caf\u00e9');
    assert.equal((await zoneAt('Zu\u0308rich')).body.geometries[0].vertices.length, 9, 'the NFC zone first');
    assert.equal((await zoneAt('Z\u00fcrich', 'DELETE')).status, 200);
    const legacy = await zoneAt('Zu\u0308rich');
    assert.deepEqual([legacy.status, legacy.body.name, legacy.body.geometries[0].vertices.length], [200, 'Zu\u0308rich', 4]);
    assert.equal((await zoneAt('Zu\u0308rich', 'DELETE')).status, 200);
    assert.equal((await zoneAt('Zu\u0308rich')).status, 404);
  } finally {
    await svc.close();
    await migrated.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a PostgreSQL database of the first release is migrated on open', { skip: (await postgresSkipReason()) ?? false }, async () => {
  const { PostgresStore } = await import('../src/store/PostgresStore.js');
  const { MIGRATIONS } = await import('../src/store/schemaSql.js');
  const schema = `detour_test_old_${process.pid}`;
  const db = new pg.Client({ connectionString: PG_TEST_URL });
  await db.connect();
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}; SET search_path = ${schema}`);
    await db.query(MIGRATIONS[0] as string);
    await db.query('CREATE TABLE detour_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL); INSERT INTO detour_migrations VALUES (1, 0)');
    await db.query('INSERT INTO clients VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', ['c', 'app', 'org', 'e@x', '[]', 'hash', 1, null]);
    for (const [name, body, at] of OLD_ZONES) await db.query('INSERT INTO zones VALUES ($1, $2, $3, $4, $5, $6)', ['c', name, JSON.stringify(body), 'r', at, at]);
    const migrated = await PostgresStore.open({ connectionString: PG_TEST_URL, schema });
    try {
      await checkMigrated(migrated);
    } finally {
      await migrated.close();
    }
  } finally {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  }
});

test('quota configuration: defaults, DETOUR_ZONES_PER_CLIENT and DETOUR_VERTICES_PER_CLIENT, clear errors', () => {
  assert.deepEqual(configFromEnv({}).zoneQuota, DEFAULT_ZONE_QUOTA);
  assert.deepEqual(DEFAULT_ZONE_QUOTA, { zones: 1000, vertices: 1_000_000 });
  assert.deepEqual(configFromEnv({ DETOUR_ZONES_PER_CLIENT: '50', DETOUR_VERTICES_PER_CLIENT: '20000' }).zoneQuota, { zones: 50, vertices: 20000 });
  for (const value of ['0', '-1', 'many', '1.5', '99999999999']) {
    assert.throws(() => configFromEnv({ DETOUR_ZONES_PER_CLIENT: value }), /DETOUR_ZONES_PER_CLIENT must be a whole number from 1/);
    assert.throws(() => configFromEnv({ DETOUR_VERTICES_PER_CLIENT: value }), /DETOUR_VERTICES_PER_CLIENT must be a whole number from 1/);
  }
});

test('serve --zones-per-client / --vertices-per-client reach the configuration (a bad value is refused before start)', async () => {
  const { spawnSync } = await import('node:child_process');
  // The error names what was typed: the flag, or the variable when it came from the environment.
  for (const [flag, variable] of [['--zones-per-client', 'DETOUR_ZONES_PER_CLIENT'], ['--vertices-per-client', 'DETOUR_VERTICES_PER_CLIENT']]) {
    const run = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', flag, 'none'], { encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr + run.stdout, new RegExp(`${flag} must be a whole number from 1 to 2147483647, got "none"`));
    const viaEnv = spawnSync(process.execPath, [CLI, 'serve', '--port', '0'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, [variable]: 'none' } });
    assert.notEqual(viaEnv.status, 0);
    assert.match(viaEnv.stderr + viaEnv.stdout, new RegExp(`${variable} must be a whole number from 1 to 2147483647, got "none"`));
  }
});

// Large zones travel as JSON text: checked and calculated on the zone worker, stored and answered
// as text. Each step is compared with the plain in-process path it replaces.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateZone, Router, validateZone, ZoneValidationError, DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import { PreparedPolygon } from '../src/geo/PreparedPolygon.js';
import { pointInPolygonIndexed } from '../src/geo/PreparedPolygon.js';
import { textSlices } from '../src/service/jsonText.js';
import { storedZoneFromJson, zoneBodyJson, ZoneQuotaExceeded, type Store } from '../src/store/Store.js';
import { LARGE_ZONE_VERTICES, LARGE_ZONE_WRITE, SqliteStore } from '../src/store/SqliteStore.js';
import { openSqlite } from '../src/store/sqliteDriver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LARGE_ZONE_JSON, ZoneCalculator } from '../src/zones/ZoneCalculator.js';
import { checkZoneJson } from '../src/zones/zoneJson.js';
import { seededRandom } from './support/helpers.js';
import {
  authorise, http, listen, newClient, postgresKind, postgresSkipReason, sqliteKind, TRIP_PATH, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);

/** A valid ring of n vertices around central Gothenburg: a circle with a wobbling radius (star-like, simple). */
function wobblyRing(n: number, lat = 57.705, lon = 11.967, radius = 0.004) {
  return Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const r = radius * (1 + 0.15 * Math.sin(37 * a));
    return { latitude: lat + r * Math.sin(a), longitude: lon + 2 * r * Math.cos(a) };
  });
}
/** The body as the API stores it: name, and per geometry its name and {latitude, longitude} vertices. */
const normalised = (body: { name: string; geometries: Array<{ name?: string; vertices: Array<{ latitude: number; longitude: number }> }> }) => ({
  name: body.name.normalize('NFC'),
  geometries: body.geometries.map((g) => ({ name: g.name ?? '', vertices: g.vertices.map((v) => ({ latitude: v.latitude, longitude: v.longitude })) })),
});

describe('zone bodies as JSON text', () => {
  test('checkZoneJson answers as validateZone does and stores only what the API defines, in NFC', () => {
    const rand = seededRandom(7);
    for (let i = 0; i < 200; i++) {
      const vertices = wobblyRing(3 + Math.floor(rand() * 40)).map((v) => ({ ...v, extra: 1 }));
      if (rand() < 0.3) vertices[Math.floor(rand() * vertices.length)].latitude = rand() < 0.5 ? 91 : (Number.NaN as number);
      if (rand() < 0.2) vertices.reverse().splice(1, 0, vertices[vertices.length - 2]); // may self-intersect
      const body = { name: rand() < 0.5 ? 'Cafe\u0301' : `zone ${i}`, geometries: [{ name: rand() < 0.5 ? undefined : 'g', vertices }], junk: true };
      const text = JSON.stringify(body);
      const checked = checkZoneJson(text);
      let expected: ZoneValidationError | undefined;
      try {
        validateZone(JSON.parse(text));
      } catch (err) {
        expected = err as ZoneValidationError;
      }
      if (expected) {
        assert.ok(!checked.ok && 'issues' in checked, `ring ${i}`);
        assert.deepEqual(checked.issues, expected.issues);
      } else {
        assert.ok(checked.ok, `ring ${i}`);
        const parsed = JSON.parse(text);
        assert.deepEqual(JSON.parse(checked.json), normalised(parsed));
        assert.equal(checked.name, parsed.name.normalize('NFC'));
        assert.equal(checked.vertexCount, vertices.length);
      }
    }
    const broken = checkZoneJson('{"name": "x", "geometries": [');
    assert.ok(!broken.ok && 'notJson' in broken && broken.notJson.length > 0);
  });

  test('a revived PreparedPolygon (a structured clone of its fields) tests points as the original; rings() gives the rings back', () => {
    const rand = seededRandom(3);
    const rings = [wobblyRing(500).map((v) => [v.longitude, v.latitude]), wobblyRing(50, 57.705, 11.967, 0.001).map((v) => [v.longitude, v.latitude])];
    const original = new PreparedPolygon(rings);
    const revived = PreparedPolygon.revive(structuredClone({ ...original }));
    assert.ok(revived instanceof PreparedPolygon);
    for (let i = 0; i < 5000; i++) {
      const x = 11.95 + rand() * 0.035, y = 57.698 + rand() * 0.014;
      assert.equal(pointInPolygonIndexed(revived, x, y), pointInPolygonIndexed(original, x, y));
    }
    assert.deepEqual(revived.rings(), rings);
  });

  test('textSlices never cuts a surrogate pair and gives the text back whole', () => {
    const text = 'a😀b😀😀c'.repeat(50) + '€😀';
    for (let size = 2; size <= 9; size++) {
      const slices = [...textSlices(text, size)];
      assert.equal(slices.join(''), text);
      for (const s of slices) {
        assert.ok(s.length <= size && s.length > 0);
        assert.equal(Buffer.from(s, 'utf8').toString('utf8'), s, 'each slice is well-formed UTF-16');
      }
    }
  });

  test('ZoneCalculator: a large body is checked and calculated on the worker with the same answers as in-process', async () => {
    const calculator = new ZoneCalculator(graph);
    try {
      const body = { name: 'large', geometries: [{ name: 'a', vertices: wobblyRing(6000) }, { name: 'b', vertices: wobblyRing(600, 57.69, 11.94, 0.002) }] };
      const text = JSON.stringify(body);
      assert.ok(text.length > LARGE_ZONE_JSON);
      const checked = await calculator.checkJson(text);
      assert.deepEqual(checked, checkZoneJson(text));
      assert.ok(checked.ok);
      const onWorker = await calculator.calculateJson('large', checked.json);
      const inline = calculateZone(graph, validateZone(body));
      assert.equal(onWorker.status.name, 'CALCULATED');
      assert.deepEqual([...onWorker.roads], [...inline.roads]);
      assert.equal(onWorker.metresInside, inline.metresInside);
      assert.deepEqual(onWorker.zone.polygons, inline.zone.polygons);
      assert.deepEqual(onWorker.prepared.map((p) => ({ ...p })), inline.prepared.map((p) => ({ ...p })));
      const bad = await calculator.checkJson(text.replace(/"latitude":57\.70\d*/, '"latitude":91'));
      assert.ok(!bad.ok && 'issues' in bad);
      const damaged = await calculator.calculateJson('damaged', '{"name":"damaged"}');
      assert.equal(damaged.status.name, 'CALCULATION_ERROR');
    } finally {
      await calculator.close();
    }
  });

  test('ZoneCalculator: a body sent as UTF-8 bytes on shared memory is checked and calculated there, and its arrays come back shared', async () => {
    const calculator = new ZoneCalculator(graph);
    try {
      const body = { name: 'Gro\u0308ßes', extra: true, geometries: [{ name: 'a', vertices: wobblyRing(6000) }] };
      const shared = (text: string) => {
        const bytes = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)));
        Buffer.from(bytes.buffer).write(text);
        return bytes;
      };
      const decode = (json: string | Uint8Array) => (typeof json === 'string' ? json : Buffer.from(json).toString('utf8'));
      const asStored = checkZoneJson(JSON.stringify(body));
      assert.ok(asStored.ok);
      // Pretty-printed, with a member the API does not define and a name not in NFC: stored
      // otherwise than sent; then the text as stored, which comes back as the very bytes sent.
      for (const text of [JSON.stringify(body, null, 1), asStored.json]) {
        const expected = checkZoneJson(text);
        assert.ok(expected.ok);
        const sent = shared(text);
        const checked = await calculator.checkJson(sent);
        assert.ok(checked.ok && checked.json instanceof Uint8Array && checked.json.buffer instanceof SharedArrayBuffer, 'the stored text comes back as shared bytes');
        assert.equal(checked.json === sent, text === asStored.json);
        assert.deepEqual({ ...checked, json: decode(checked.json) }, expected);
        const onWorker = await calculator.calculateJson('large', checked.json);
        const inline = calculateZone(graph, validateZone(JSON.parse(expected.json)));
        assert.equal(onWorker.status.name, 'CALCULATED');
        assert.deepEqual([...onWorker.roads], [...inline.roads]);
        assert.deepEqual(onWorker.prepared.map((p) => ({ ...p })), inline.prepared.map((p) => ({ ...p })));
        // Posted on to the trip threads, these are shared, not copied on the event loop.
        for (const array of [onWorker.roads, onWorker.roadMetresInside, ...onWorker.prepared.flatMap((p) => [p.xy, p.next, p.rowStart, p.rowEdges])]) {
          assert.ok(array.buffer instanceof SharedArrayBuffer);
        }
      }
      const notJson = await calculator.checkJson(shared(`${JSON.stringify(body)} x`));
      assert.ok(!notJson.ok && 'notJson' in notJson);
    } finally {
      await calculator.close();
    }
  });
});

test('SqliteStore writes a large zone on its writer thread as it writes it in process: same rows, quota and conflict answers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'detour-zone-writer-'));
  // Two stores on two files: one with the writer thread, one writing everything in process (the oracle).
  const threaded = new SqliteStore(join(dir, 'threaded.sqlite'));
  const inline = new SqliteStore(join(dir, 'inline.sqlite'), undefined, { zoneWriter: false });
  try {
    const body = { name: 'large', geometries: [{ name: 'a', vertices: wobblyRing(6000) }] };
    const json = JSON.stringify(body);
    assert.ok(json.length > LARGE_ZONE_WRITE);
    const zone = (name: string, revision: string, vertexCount = 6000) =>
      storedZoneFromJson({ clientId: 'c', name, revision, createdAt: 1, updatedAt: 2, vertexCount }, json.replace('"large"', JSON.stringify(name)));
    const quota = { zones: 2, vertices: 13_000 };
    for (const s of [threaded, inline]) {
      await s.addClient({ clientId: 'c', applicationName: 'a', organizationName: 'o', developerEmail: '', products: ['Restriction Zone'], secretHash: 'x', createdAt: 0, revokedAt: null });
    }
    const steps: Array<[string, (s: SqliteStore) => Promise<unknown>]> = [
      ['insert', (s) => s.insertZone(zone('a', 'r1'), quota)],
      ['insert again: conflict', (s) => s.insertZone(zone('a', 'r2'), quota)],
      ['insert over the vertex quota', (s) => s.insertZone(zone('b', 'r3', 8000), quota)],
      ['insert within it', (s) => s.insertZone(zone('b', 'r4'), quota)],
      ['insert over the zone quota', (s) => s.insertZone(zone('c', 'r5', 10), quota)],
      ['replace', (s) => s.replaceZone(zone('a', 'r6', 5000), quota)],
      ['replace a missing zone', (s) => s.replaceZone(zone('x', 'r7'), quota)],
    ];
    const outcome = async (step: (s: SqliteStore) => Promise<unknown>, s: SqliteStore) => {
      try {
        return { value: await step(s) };
      } catch (err) {
        assert.ok(err instanceof ZoneQuotaExceeded, `only quota errors here, got ${err}`);
        return { quota: { limit: err.limit, usage: err.usage, zoneVertices: err.zoneVertices } };
      }
    };
    for (const [what, step] of steps) assert.deepEqual(await outcome(step, threaded), await outcome(step, inline), what);
    assert.ok((threaded as unknown as { zoneWriter?: unknown }).zoneWriter, 'the writer thread did the large writes');
    const rows = async (s: SqliteStore) => (await s.getZones('c', ['a', 'b', 'c', 'x'])).map((z) => ({ name: z.name, revision: z.revision, body: z.bodyJson }));
    assert.deepEqual(await rows(threaded), await rows(inline));
    assert.deepEqual(await threaded.zoneUsage('c'), await inline.zoneUsage('c'));

    // One large zone read and deleted: by the thread (its body as shared UTF-8 bytes), or here.
    const one = async (s: SqliteStore, name: string) => {
      const z = await s.getZone('c', name);
      return z && { name: z.name, revision: z.revision, createdAt: z.createdAt, updatedAt: z.updatedAt, body: zoneBodyJson(z), parsed: z.body };
    };
    assert.ok(LARGE_ZONE_VERTICES < 6000);
    const onThread = await threaded.getZone('c', 'b');
    assert.ok(onThread?.bodyJson instanceof Uint8Array && onThread.bodyJson.buffer instanceof SharedArrayBuffer, 'read by the thread');
    assert.ok(typeof (await inline.getZone('c', 'b'))?.bodyJson === 'string');
    for (const name of ['a', 'b', 'x']) assert.deepEqual(await one(threaded, name), await one(inline, name), name);
    for (const name of ['b', 'b', 'x']) assert.equal(await threaded.deleteZone('c', name), await inline.deleteZone('c', name), name);
    assert.equal(await threaded.getZone('c', 'b'), undefined);
    assert.deepEqual(await threaded.zoneUsage('c'), await inline.zoneUsage('c'));

    // A zone's revision and size come from the index, never from the row, where they lie past the
    // body's overflow pages. Each query as the store ran it, planned on a connection of our own.
    await threaded.zoneRevisions('c', ['a', 'b']);
    await threaded.getZone('c', 'a');
    const plans = openSqlite(join(dir, 'threaded.sqlite'));
    try {
      const sizeQueries = [...(threaded as unknown as { statements: Map<string, unknown> }).statements.keys()].filter((sql) => /vertex_count|revision FROM/.test(sql) && !/^(INSERT|UPDATE)/.test(sql));
      assert.ok(sizeQueries.length >= 3, sizeQueries.join('; '));
      for (const sql of sizeQueries) {
        const plan = plans.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...sql.split('?').slice(1).map(() => 'c')) as Array<{ detail: string }>;
        assert.ok(plan.some((step) => step.detail.includes('COVERING INDEX zones_without_body')), `${sql}: ${plan.map((p) => p.detail).join('; ')}`);
      }
    } finally {
      plans.close();
    }
  } finally {
    await threaded.close();
    await inline.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SqliteStore: a write on its own connection waits, off the event loop, for the large zone write under way on its thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'detour-zone-writer-'));
  const store = new SqliteStore(join(dir, 'store.sqlite'));
  try {
    await store.addClient({ clientId: 'c', applicationName: 'a', organizationName: 'o', developerEmail: '', products: [], secretHash: 'x', createdAt: 0, revokedAt: null });
    const json = JSON.stringify({ name: 'large', geometries: [{ name: 'a', vertices: wobblyRing(6000) }] });
    assert.ok(json.length > LARGE_ZONE_WRITE);
    // The thread takes the write lock for the zone; the token's write would wait for it in SQLite's
    // busy handler, holding the event loop (or run at once, before the thread begins): either way
    // it would be done before any timer could run. It waits for the zone's write instead.
    const zone = store.insertZone(storedZoneFromJson({ clientId: 'c', name: 'large', revision: 'r', createdAt: 1, updatedAt: 1, vertexCount: 6000 }, json));
    let zoneWritten = false;
    void zone.then(() => (zoneWritten = true));
    let timerRan = false;
    setTimeout(() => (timerRan = true), 1);
    await store.saveToken({ tokenHash: 'h', clientId: 'c', products: [], issuedAt: 0, expiresAt: 1e15 });
    assert.ok(timerRan, 'the event loop ran while the token waited');
    await zone;
    assert.ok(zoneWritten);
    assert.ok(await store.findToken('h'));
    assert.equal((await store.getZone('c', 'large'))?.name, 'large');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: (await postgresSkipReason()) ?? false },
];

for (const { make, skip } of kinds) {
  describe(`a large zone through the service (${make().name})`, { skip }, () => {
    let kind: StoreKind, store: Store, svc: TestService;
    let bodyReads = 0;
    before(async () => {
      kind = make();
      store = await kind.open();
      // Counts the reads of zone bodies for trips and matrices.
      const counting = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'getZones') return (clientId: string, names: string[]) => (bodyReads++, target.getZones(clientId, names));
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      svc = await listen(graph, counting);
    });
    after(async () => {
      await svc?.close();
      await store?.close();
      await kind?.dispose();
    });

    test('inserted, read, listed, replaced and deleted with the same bodies; trips and matrices avoid it as the library does', async () => {
      const client = await newClient(store);
      const { headers } = await authorise(svc.url, client);
      const zones = (path = '', init: Parameters<typeof http>[1] = {}) => http(`${svc.url}${ZONES_PATH}${path}`, { ...init, headers: { ...headers, ...init.headers } });
      // Around the middle of the free route; geometry names with characters outside the BMP, so
      // answer slices meet surrogate pairs.
      const west = { latitude: 57.705, longitude: 11.93 }, east = { latitude: 57.705, longitude: 12.0 };
      const free = new Router(graph).route({ points: [west, east] });
      const { latitude: lat, longitude: lon } = free.legs[0].points[free.legs[0].points.length >> 1];
      const body = { name: 'Gro\u0308ßes 😀', geometries: [{ name: '😀'.repeat(40), vertices: wobblyRing(7000, lat, lon, 0.003) }, { vertices: wobblyRing(300, 57.69, 11.94, 0.002) }] };
      assert.ok(JSON.stringify(body).length > LARGE_ZONE_JSON);
      const name = body.name.normalize('NFC');
      const path = `/${encodeURIComponent(name)}`;

      const created = await zones('', { json: body });
      assert.equal(created.status, 201, created.text.slice(0, 300));
      assert.deepEqual({ name: created.body.name, geometries: created.body.geometries }, normalised(body));
      assert.ok(['IN_CALCULATION', 'CALCULATED'].includes(created.body.status.name));

      const trip = () => http(`${svc.url}${TRIP_PATH}`, { headers, json: { points: [west, east], restrictionZones: [name] } });
      const around = await trip();
      assert.equal(around.status, 201, around.text);
      // The zone's revision is calculated already: later trips read no body.
      const reads = bodyReads;
      assert.equal((await trip()).body.totalDistance, around.body.totalDistance);
      assert.equal(bodyReads, reads);
      const zone = calculateZone(graph, validateZone(body));
      const lib = new Router(graph).route({ points: [west, east], zones: [zone] });
      assert.equal(around.body.totalDistance, Math.round(lib.distance));
      assert.ok(lib.duration > free.duration, 'the zone is on the free path');

      const read = await zones(path);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, { ...normalised(body), status: { name: 'CALCULATED', description: 'Roads inside restriction zone calculated' } });
      const listed = await zones('?limit=5');
      assert.deepEqual(listed.body, [read.body]);
      const names = await zones('?fields=name,status');
      assert.deepEqual(names.body, [{ name, status: read.body.status }]);

      const matrix = await http(`${svc.url}/matrix/v1/calculations`, {
        headers, json: { origins: [{ siteId: 'w', ...west }], destinations: [{ siteId: 'e', ...east }], restrictionZones: [name] },
      });
      assert.equal(matrix.status, 200, matrix.text);
      assert.equal(matrix.body.elements[0].distance, Math.round(lib.distance));

      const replacement = { ...body, geometries: [body.geometries[1]] };
      const replaced = await zones(path, { method: 'PUT', json: replacement });
      assert.equal(replaced.status, 200);
      assert.deepEqual(replaced.body.geometries, normalised(replacement).geometries);
      // A new revision: the next trip uses it (the replacement is off the free path).
      const afterReplace = await trip();
      assert.equal(afterReplace.body.totalDistance, Math.round(free.distance));
      assert.equal(afterReplace.body.totalNominalDuration, Math.round(free.duration));

      const invalid = await zones('', { json: { ...body, name: 'other', geometries: [{ vertices: [...wobblyRing(7000), { latitude: 57.71, longitude: 11.967 }, { latitude: 57.70, longitude: 11.967 }] }] } });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'INVALID_ZONE');
      assert.match(invalid.body.errors[0].path, /^geometries\[0\]\.vertices/);
      const notJson = await zones('', { body: JSON.stringify(body).slice(0, -3), headers: { 'content-type': 'application/json' } });
      assert.deepEqual([notJson.status, notJson.body.code], [400, 'INVALID_JSON']);

      const deleted = await zones(path, { method: 'DELETE' });
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body.geometries, normalised(replacement).geometries);
      assert.equal((await zones(path)).status, 404);
    });

    test('a large body sent in chunks, with no length, is read as it comes: stored, read and deleted as sent; refused when not UTF-8 or over the limit', async () => {
      const client = await newClient(store);
      const { headers } = await authorise(svc.url, client);
      const pieces = (bytes: Buffer, size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
      const chunked = (chunks: Buffer[]) => fetch(`${svc.url}${ZONES_PATH}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: new ReadableStream({ pull: (c) => (chunks.length > 0 ? c.enqueue(chunks.shift()!) : c.close()) }),
        duplex: 'half',
      } as RequestInit);
      // As the API stores it (the service keeps the bytes it was sent); a name beyond ASCII, stored as its UTF-8 bytes.
      const body = { name: 'chunked', geometries: [{ name: 'anel São João', vertices: wobblyRing(6000) }] };
      const text = JSON.stringify(normalised(body));
      assert.ok(text.length > LARGE_ZONE_JSON && 6000 > LARGE_ZONE_VERTICES);
      const created = await chunked(pieces(Buffer.from(text), 100_000));
      assert.equal(created.status, 201);
      const answer = (await created.json()) as { name: string; geometries: unknown };
      assert.deepEqual({ name: answer.name, geometries: answer.geometries }, normalised(body));
      const zones = (path: string, method = 'GET') => http(`${svc.url}${ZONES_PATH}${path}`, { method, headers });
      const read = await zones('/chunked');
      assert.equal(read.text.replace(/,"status":\{.*\}\}$/, '}'), text, 'read back byte for byte');
      const deleted = await zones('/chunked', 'DELETE');
      assert.equal(deleted.status, 200);
      assert.deepEqual({ name: deleted.body.name, geometries: deleted.body.geometries }, normalised(body));
      assert.equal((await zones('/chunked')).status, 404);

      // A Latin-1 "é" in the name of a large body: refused, not stored with U+FFFD.
      const latin1 = await chunked(pieces(Buffer.from(text.replace('"chunked"', '"caf\u00e9"'), 'latin1'), 100_000));
      const refused = (await latin1.json()) as { code: string; message: string };
      assert.deepEqual([latin1.status, refused.code], [400, 'INVALID_JSON']);
      assert.match(refused.message, /UTF-8/);
      assert.equal((await zones(`/${encodeURIComponent('caf\ufffd')}`)).status, 404);

      // Over the body limit with no Content-Length to refuse it by: refused as it is read.
      const huge = await chunked(pieces(Buffer.from(`{"name":"${'x'.repeat(9 * 1024 * 1024)}"}`), 1 << 20));
      assert.deepEqual([huge.status, ((await huge.json()) as { code: string }).code], [413, 'BODY_TOO_LARGE']);
    });
  });
}

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { DEFAULT_GRAPH_PATH, importGeoJson, loadGraph } from '../src/index.js';
import { SqliteStore } from '../src/store/SqliteStore.js';
import type { Store } from '../src/store/Store.js';
import { CLI, SCRIPT_NODE_ARGS, srcModule } from './support/helpers.js';
import { authorise, http, listen, newClient, requestToken, TRIP_PATH, ZONES_PATH, type TestService } from './support/service.js';

const gothenburg = loadGraph(DEFAULT_GRAPH_PATH);
const square = (lat: number, lon: number, d: number) => [
  { latitude: lat, longitude: lon }, { latitude: lat, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon },
];

describe('service operations', () => {
  let dir: string;
  let store: Store;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'detour-ops-'));
    store = new SqliteStore(join(dir, 'detour.sqlite'));
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('failed token requests are rate-limited per client id and address and per address; 429 with Retry-After', async () => {
    const svc = await listen(gothenburg, store, { failedLogins: { perClientAddress: 3, perAddress: 6, windowSeconds: 60 } });
    try {
      const victim = await newClient(store);
      for (let i = 0; i < 3; i++) assert.equal((await requestToken(svc.url, { client_id: victim.clientId, client_secret: `guess${i}` })).status, 401);
      const locked = await requestToken(svc.url, { client_id: victim.clientId, client_secret: victim.clientSecret });
      assert.equal(locked.status, 429, 'even the right secret waits once the client id is locked at this address');
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      assert.ok(locked.body.fault.faultstring.length > 0);
      const bystander = await newClient(store);
      assert.equal((await requestToken(svc.url, { client_id: bystander.clientId, client_secret: bystander.clientSecret })).status, 200);
      // Two more failures from this address on other ids (the refused attempt counted too): the address is locked for everyone.
      for (let i = 0; i < 2; i++) assert.equal((await requestToken(svc.url, { client_id: `nobody${i}`, client_secret: 'x' })).status, 401);
      const newcomer = await newClient(store);
      assert.equal((await requestToken(svc.url, { client_id: newcomer.clientId, client_secret: newcomer.clientSecret })).status, 429);
      // A secret verified minutes ago is known right: no guess, so no limit.
      assert.equal((await requestToken(svc.url, { client_id: bystander.clientId, client_secret: bystander.clientSecret })).status, 200);
    } finally {
      await svc.close();
    }
  });

  test('behind a trusted proxy the per-address limit counts X-Forwarded-For clients, not the proxy', async () => {
    const svc = await listen(gothenburg, store, { trustProxy: true, failedLogins: { perAddress: 2, windowSeconds: 60 } });
    try {
      const client = await newClient(store);
      const from = (address: string, secret: string) =>
        http(`${svc.url}/oauth/client_credential/accesstoken?grant_type=client_credentials`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
          body: new URLSearchParams({ client_id: client.clientId, client_secret: secret }).toString(),
        });
      for (let i = 0; i < 2; i++) assert.equal((await from('203.0.113.7', 'wrong')).status, 401);
      assert.equal((await from('203.0.113.7', client.clientSecret)).status, 429);
      assert.equal((await from('198.51.100.9', client.clientSecret)).status, 200, 'another client behind the same proxy is not locked out');
    } finally {
      await svc.close();
    }
  });

  test('configuration from the environment: defaults, every variable, clear errors', async () => {
    const { configFromEnv } = await import('../src/service/startService.js');
    const defaults = configFromEnv({});
    assert.deepEqual([defaults.port, defaults.host, defaults.logLevel, defaults.databaseUrl, defaults.corsOrigins, defaults.trustProxy], [3000, '127.0.0.1', 'info', undefined, [], false]);
    assert.ok(defaults.dataDir.endsWith('.detour'));
    const set = configFromEnv({
      PORT: '0', HOST: '0.0.0.0', DETOUR_GRAPH: 'g.detour', DETOUR_DATA_DIR: '/var/lib/detour', DATABASE_URL: 'postgres://db/x',
      LOG_LEVEL: 'debug', DETOUR_CORS_ORIGINS: 'https://a.example, https://b.example', DETOUR_TRUST_PROXY: '2',
    });
    assert.deepEqual(
      [set.port, set.host, set.graphPath, set.dataDir, set.databaseUrl, set.logLevel, set.corsOrigins, set.trustProxy],
      [0, '0.0.0.0', 'g.detour', '/var/lib/detour', 'postgres://db/x', 'debug', ['https://a.example', 'https://b.example'], 2],
    );
    assert.deepEqual(configFromEnv({ DETOUR_TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1']);
    for (const port of ['http', '-1', '70000', '80.5']) assert.throws(() => configFromEnv({ PORT: port }), /PORT must be a port number/);
    assert.deepEqual([defaults.tripRetentionDays, configFromEnv({ DETOUR_TRIP_RETENTION_DAYS: '1' }).tripRetentionDays], [7, 1]);
    for (const days of ['0', '31', '1.5', 'week']) assert.throws(() => configFromEnv({ DETOUR_TRIP_RETENTION_DAYS: days }), /DETOUR_TRIP_RETENTION_DAYS must be whole days from 1 to 30/);
  });

  test('an acknowledged SQLite write survives kill -9: a zone, and a trip stored as answered (written without the sync to disk)', async () => {
    const file = join(dir, 'killed.sqlite');
    const script = `
      import { SqliteStore } from ${JSON.stringify(srcModule('store/SqliteStore'))};
      const store = new SqliteStore(${JSON.stringify(file)});
      await store.addClient({ clientId: 'c', applicationName: 'a', organizationName: 'o', developerEmail: '', products: ['Trip'], secretHash: 'h', createdAt: 1, revokedAt: null });
      await store.insertZone({ clientId: 'c', name: 'survivor', body: { name: 'survivor', geometries: [] }, revision: 'r1', createdAt: 1, updatedAt: 1 });
      await store.insertJob({ id: 'trip-1', clientId: 'c', kind: 'trip', status: 'SOLVED', request: {}, solutionJson: '{"id":"trip-1"}', attempts: 0, createdAt: 1, updatedAt: 1, expiresAt: 9e15 });
      process.stdout.write('written\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, [...SCRIPT_NODE_ARGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('written')) child.kill('SIGKILL');
    });
    const [, signal] = await once(child, 'exit');
    assert.equal(signal, 'SIGKILL');
    const reopened = new SqliteStore(file);
    try {
      assert.equal((await reopened.getZone('c', 'survivor'))?.revision, 'r1');
      assert.equal((await reopened.getJob('c', 'trip', 'trip-1', 2, true))?.solutionJson, '{"id":"trip-1"}');
    } finally {
      await reopened.close();
    }
  });

  test('no route between stops: 422 ROUTE_NOT_FOUND naming the leg; internal failures: 500 without a stack', async () => {
    const road = (lon: number) => ({ type: 'Feature', properties: { highway: 'residential' }, geometry: { type: 'LineString', coordinates: [[lon, 0], [lon + 0.002, 0]] } });
    const islands = importGeoJson({ type: 'FeatureCollection', features: [road(0), road(0.01)] } as never);
    const svc = await listen(islands, store);
    try {
      const client = await newClient(store);
      const { headers } = await authorise(svc.url, client);
      const res = await http(`${svc.url}${TRIP_PATH}`, { headers, json: { points: [{ latitude: 0, longitude: 0.001, siteId: 'a' }, { latitude: 0, longitude: 0.011, siteId: 'b' }] } });
      assert.deepEqual([res.status, res.body.code, res.body.leg], [422, 'ROUTE_NOT_FOUND', 0]);
      assert.match(res.body.message, /leg 0/);
    } finally {
      await svc.close();
    }
    const broken: Store = Object.create(store, { getZones: { value: async () => { throw new Error('disk on fire at /secret/path'); } } });
    const svc2 = await listen(gothenburg, broken);
    try {
      const client = await newClient(store);
      const { headers } = await authorise(svc2.url, client);
      const res = await http(`${svc2.url}${TRIP_PATH}`, { headers, json: { points: square(57.7, 11.96, 0.01).slice(0, 2), restrictionZones: ['x'] } });
      assert.equal(res.status, 500);
      assert.equal(res.body.code, 'INTERNAL_ERROR');
      assert.doesNotMatch(res.text, /secret|fire|at .*\.ts/);
    } finally {
      await svc2.close();
    }
  });

  test('a zone meeting many roads is IN_CALCULATION until its worker finishes; a trip waits for it', async () => {
    const svc = await listen(gothenburg, store, { zoneCalculator: { workerThreshold: 0 } });
    try {
      const client = await newClient(store);
      const { headers } = await authorise(svc.url, client);
      const zone = { name: 'big', geometries: [{ vertices: square(57.69, 11.95, 0.02) }] };
      const created = await http(`${svc.url}${ZONES_PATH}`, { headers, json: zone });
      assert.equal(created.status, 201);
      assert.equal(created.body.status.name, 'IN_CALCULATION');
      assert.equal(created.body.status.description, 'Calculating roads inside geometries');
      const points = [{ latitude: 57.68, longitude: 11.94 }, { latitude: 57.72, longitude: 11.98 }];
      const routed = await http(`${svc.url}${TRIP_PATH}`, { headers, json: { points, restrictionZones: ['big'] } });
      assert.equal(routed.status, 201, routed.text);
      const read = await http(`${svc.url}${ZONES_PATH}/big`, { headers });
      assert.equal(read.body.status.name, 'CALCULATED');
    } finally {
      await svc.close();
    }
  });

  test('CORS when configured, the OpenAPI document at /docs, JSON 404s, /health', async () => {
    const svc = await listen(gothenburg, store, { corsOrigins: ['https://maps.example'] });
    try {
      const preflight = await http(`${svc.url}${ZONES_PATH}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://maps.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,clientid,content-type' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://maps.example');
      const doc = await http(`${svc.url}/docs/json`);
      assert.equal(doc.status, 200);
      assert.ok(doc.body.openapi.startsWith('3.'));
      for (const path of ['/oauth/client_credential/accesstoken', ZONES_PATH, `${ZONES_PATH}/{name}`, TRIP_PATH]) assert.ok(doc.body.paths[path], path);
      assert.equal((await http(`${svc.url}/docs/`)).status, 200);
      const missing = await http(`${svc.url}/nowhere`);
      assert.deepEqual([missing.status, missing.body.code], [404, 'NOT_FOUND']);
      const health = await http(`${svc.url}/health`);
      assert.deepEqual([health.status, health.body.status, health.body.graph.roads], [200, 'ok', gothenburg.roadCount]);
    } finally {
      await svc.close();
    }
    const plain = await listen(gothenburg, store);
    try {
      const res = await http(`${plain.url}/health`, { headers: { origin: 'https://maps.example' } });
      assert.equal(res.headers.get('access-control-allow-origin'), null, 'no CORS unless configured');
    } finally {
      await plain.close();
    }
  });
});

describe('command line: clients and serve', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'detour-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, DETOUR_DATA_DIR: dir, DATABASE_URL: '' } });

  test('clients add prints the id and secret once; list never shows secrets; revoke stops the client', async () => {
    const added = cli('clients', 'add', '--name', 'fleet app', '--products', 'Trip,Restriction Zone', '--json');
    assert.equal(added.status, 0, added.stderr);
    const creds = JSON.parse(added.stdout);
    assert.deepEqual(Object.keys(creds).sort(), ['client_id', 'client_secret']);
    const listed = cli('clients', 'list', '--json');
    const rows = JSON.parse(listed.stdout);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].client_id, creds.client_id);
    assert.ok(!listed.stdout.includes(creds.client_secret));
    const store = new SqliteStore(join(dir, 'detour.sqlite'));
    try {
      const stored = await store.getClient(creds.client_id);
      assert.ok(stored && stored.secretHash.startsWith('scrypt$') && !stored.secretHash.includes(creds.client_secret));
    } finally {
      await store.close();
    }
    const badProduct = cli('clients', 'add', '--name', 'x', '--products', 'Trip,Geocode');
    assert.equal(badProduct.status, 1);
    assert.match(badProduct.stderr, /unknown product "Geocode"/);
    assert.equal(cli('clients', 'revoke', creds.client_id).status, 0);
    const again = cli('clients', 'revoke', creds.client_id);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /no active client/);
    assert.match(cli('clients', 'list').stdout, /revoked/);
  });

  test('serve: demo client on first start (printed once, not logged), /health, graceful stop on SIGTERM', async () => {
    const serveDir = join(dir, 'serve');
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--graph', DEFAULT_GRAPH_PATH], {
      env: { ...process.env, DETOUR_DATA_DIR: serveDir, DATABASE_URL: '', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (log += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (log += d));
    const started = Date.now();
    while (!/listening on (http:\/\/\S+) /.test(log)) {
      if (child.exitCode !== null || Date.now() - started > 60_000) assert.fail(`serve did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = /listening on (http:\/\/\S+) /.exec(log)![1];
    const demo = { client_id: /client_id=(\S+)/.exec(log)![1], client_secret: /client_secret=(\S+)/.exec(log)![1] };
    const jsonLines = log.split('\n').filter((l) => l.startsWith('{'));
    assert.ok(jsonLines.some((l) => l.includes(demo.client_id)), 'the structured log names the demo client');
    assert.ok(!jsonLines.some((l) => l.includes(demo.client_secret)), 'but never its secret');
    const token = await requestToken(url, { client_id: demo.client_id, client_secret: demo.client_secret });
    assert.equal(token.status, 200);
    assert.equal((await http(`${url}/health`)).body.status, 'ok');
    const port = new URL(url).port;
    const clash = spawnSync(process.execPath, [CLI, 'serve', '--port', port, '--graph', DEFAULT_GRAPH_PATH], {
      encoding: 'utf8', env: { ...process.env, DETOUR_DATA_DIR: serveDir, DATABASE_URL: '', LOG_LEVEL: 'error' }, timeout: 60_000,
    });
    assert.equal(clash.status, 1, 'a port in use is a clear error, not a hang');
    assert.match(clash.stderr, /SERVICE_START_FAILED: cannot start the service: .*EADDRINUSE/);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, log);
    assert.match(log, /SIGTERM/);
  });
});

test('client ids start with a letter or digit, so a command line never reads one as an option', async () => {
  const { newClientId } = await import('../src/service/credentials.js');
  // 1 in 32 base64url ids starts with "-" or "_": 10,000 ids without the rule would hold about 300.
  for (let i = 0; i < 10_000; i++) assert.match(newClientId(), /^[A-Za-z0-9][A-Za-z0-9_-]{31}$/);
});

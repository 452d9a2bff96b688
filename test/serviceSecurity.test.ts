import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type { RateLimiterMemory } from 'rate-limiter-flexible';
import { Writable } from 'node:stream';
import { DEFAULT_GRAPH_PATH, importGeoJson } from '../src/index.js';
import { createService, type ServiceOptions } from '../src/service/createService.js';
import { DEMO_CLIENT_NAME, ensureDemoClient, isLoopback } from '../src/service/demoClient.js';
import { addressUnit, DEFAULT_FAILED_LOGIN_LIMITS, IssuanceLimit, LimitRefusal, LimitsOverPort, LoginLimits, serveLimits } from '../src/service/loginLimits.js';
import { configFromEnv } from '../src/service/startService.js';
import { SqliteStore } from '../src/store/SqliteStore.js';
import type { Store } from '../src/store/Store.js';
import { CLI, SCRIPT_NODE_ARGS, srcModule } from './support/helpers.js';
import {
  http, listen, newClient, postgresKind, postgresSkipReason, requestToken, TOKEN_PATH, ZONES_PATH, type HttpResult, type StoreKind, type TestService,
} from './support/service.js';

/** Two short roads: the token endpoint needs a graph, not a city. */
const road = (lon: number) => ({ type: 'Feature', properties: { highway: 'residential' }, geometry: { type: 'LineString', coordinates: [[lon, 0], [lon + 0.002, 0]] } });
const graph = importGeoJson({ type: 'FeatureCollection', features: [road(0), road(0.01)] } as never);

type Credentials = { clientId: string; clientSecret: string };
const login = (url: string, c: Credentials, headers: Record<string, string> = {}) =>
  http(`${url}${TOKEN_PATH}?grant_type=client_credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret }).toString(),
  });
/** A token request as if from `address` (the services below trust X-Forwarded-For). */
const loginFrom = (url: string, c: Credentials, address: string) => login(url, c, { 'x-forwarded-for': address });
const wrong = (c: Credentials, i = 0): Credentials => ({ clientId: c.clientId, clientSecret: `wrong-${i}` });
const tally = (results: HttpResult[]) => {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};
const waitFor = async (condition: () => boolean) => {
  while (!condition()) await new Promise((r) => setTimeout(r, 2));
};

describe('token endpoint under attack (SQLite, limits in memory)', () => {
  let dir: string;
  let store: Store;
  let verifications = 0;
  let clock = Date.now();
  const services: TestService[] = [];
  const serve = async (options: Partial<ServiceOptions>) => {
    const svc = await listen(graph, store, { trustProxy: true, now: () => clock, onSecretVerification: () => verifications++, ...options });
    services.push(svc);
    return svc;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'detour-security-'));
    store = new SqliteStore(join(dir, 'detour.sqlite'));
  });
  after(async () => {
    for (const svc of services) await svc.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('100 concurrent wrong secrets get at most the budget of verifications; the right secret inside the burst is refused', async () => {
    const svc = await serve({ maxConcurrentVerifications: 1000, failedLogins: { perClientAddress: 10, perAddress: 1000 } });
    const victim = await newClient(store);
    verifications = 0;
    const first = Array.from({ length: 59 }, (_, i) => login(svc.url, wrong(victim, i)));
    // The rest of the burst leaves once the budget is spent, while those verifications still run.
    await waitFor(() => verifications >= 10);
    const right = login(svc.url, victim);
    const rest = Array.from({ length: 40 }, (_, i) => login(svc.url, wrong(victim, 100 + i)));
    const results = await Promise.all([...first, right, ...rest]);
    assert.equal(verifications, 10, 'exactly the budget was verified');
    assert.deepEqual(tally(results), { 401: 10, 429: 90 });
    const refused = await right;
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(refused.body.fault.detail.errorcode, 'policies.ratelimit.QuotaViolation');
    // Another address is not affected: the victim logs in from it.
    assert.equal((await loginFrom(svc.url, victim, '198.51.100.1')).status, 200);
  });

  test('more concurrent verifications than the bound get a fast 503 with Retry-After, in Apigee\'s shape', async () => {
    const svc = await serve({ maxConcurrentVerifications: 2, failedLogins: { perClientAddress: 1000, perAddress: 1000 } });
    // At the service's own scrypt cost: the bound is reached while the first verifications run.
    const client = await newClient(store, undefined, 1 << 15);
    verifications = 0;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => login(svc.url, wrong(client, i))));
    const counts = tally(results);
    assert.deepEqual(Object.keys(counts).sort(), ['401', '503']);
    assert.equal(counts[401], verifications, 'only the admitted requests ran scrypt');
    for (const res of results.filter((r) => r.status === 503)) {
      assert.equal(res.headers.get('retry-after'), '1');
      assert.equal(res.body.fault.detail.errorcode, 'messaging.adaptors.http.flow.ServiceUnavailable');
      assert.equal(res.headers.get('cache-control'), 'no-store');
    }
    assert.equal((await login(svc.url, client)).status, 200, 'refused attempts do not count against the client');
  });

  test('a stranger cannot lock a client out: wrong secrets from other addresses leave its logins working', async () => {
    // No verification cache here: every login goes through the limits.
    const svc = await serve({ verificationCacheSeconds: 0, maxConcurrentVerifications: 1000, failedLogins: { perClientAddress: 3, perAddress: 1000, perClient: 8, maxDelaySeconds: 4 } });
    const client = await newClient(store);
    assert.equal((await loginFrom(svc.url, client, '192.0.2.1')).status, 200, 'the client logs in from its office');
    // Twelve addresses, three wrong secrets each: every pair is used up and the per-client count passes its threshold.
    const strangers = Array.from({ length: 12 }, (_, a) => `203.0.113.${a + 1}`);
    const stranger = await Promise.all(strangers.flatMap((address, a) => [0, 1, 2].map((i) => loginFrom(svc.url, wrong(client, a * 3 + i), address))));
    const counts = tally(stranger);
    assert.ok(counts[401] >= 3 && counts[401] <= 8 + 3, `guesses stay capped: ${JSON.stringify(counts)}`);
    assert.equal(counts[401] + (counts[429] ?? 0), 36);
    for (const address of strangers.slice(0, 3)) assert.equal((await loginFrom(svc.url, client, address)).status, 429, 'the stranger\'s own addresses are locked');
    // The client's known address is not paced at all.
    for (let i = 0; i < 3; i++) assert.equal((await loginFrom(svc.url, client, '192.0.2.1')).status, 200);
    // A new address of the client waits at most maxDelaySeconds, never a 15-minute ban.
    const fresh = await loginFrom(svc.url, client, '192.0.2.77');
    if (fresh.status === 429) {
      const wait = Number(fresh.headers.get('retry-after'));
      assert.ok(wait >= 1 && wait <= 4, `paced, not banned: Retry-After ${wait}`);
    } else {
      assert.equal(fresh.status, 200);
    }
  });

  test('with the default rules, twenty wrong secrets from one address do not stop the client elsewhere', async () => {
    const svc = await serve({});
    const client = await newClient(store);
    const results = [];
    for (let i = 0; i < 20; i++) results.push(await loginFrom(svc.url, wrong(client, i), '203.0.113.200'));
    assert.deepEqual(tally(results), { 401: 10, 429: 10 }, 'ten guesses per client and address');
    assert.equal((await loginFrom(svc.url, client, '203.0.113.200')).status, 429, 'the guessing address waits, even with the right secret');
    assert.equal((await loginFrom(svc.url, client, '192.0.2.2')).status, 200, 'the client, never seen before, logs in from its address');
  });

  test('addresses are counted as IPv4 addresses or IPv6 /64 prefixes: rotating through a /64 does not buy guesses', async () => {
    const cases: Array<[string, string]> = [
      ['192.0.2.1', '192.0.2.1'], ['::ffff:192.0.2.1', '192.0.2.1'], ['2001:db8::1', '2001:db8:0:0::/64'], ['2001:db8:0:0:1::1', '2001:db8:0:0::/64'],
      ['2001:0db8:0000:0001:ffff::', '2001:db8:0:1::/64'], ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'], ['::1', '0:0:0:0::/64'], ['proxy-name', 'proxy-name'],
    ];
    for (const [address, unit] of cases) assert.equal(addressUnit(address), unit, address);
    const svc = await serve({ failedLogins: { perAddress: 4, perClientAddress: 100 } });
    const client = await newClient(store);
    const results = [];
    for (let i = 0; i < 6; i++) results.push((await loginFrom(svc.url, wrong(client, i), `2001:db8:5:6::${i + 1}`)).status);
    assert.deepEqual(results, [401, 401, 401, 401, 429, 429]);
    assert.equal((await loginFrom(svc.url, client, '2001:db8:5:7::1')).status, 200, 'the next /64 is another subscriber');
  });

  test('the per-client pace: one attempt per delay once over the threshold, the delay doubling up to its cap', async () => {
    const limits = await LoginLimits.create({ ...DEFAULT_FAILED_LOGIN_LIMITS, perClient: 2, maxDelaySeconds: 8 }, { kind: 'memory' });
    const attempt = (i: number) => limits.admit('victim', `198.51.100.${i}`).then(() => 0, (refusal: LimitRefusal) => refusal.retryMillis);
    await limits.success(await limits.admit('victim', '192.0.2.9'));
    const waits = [];
    for (let i = 0; i < 10; i++) waits.push(await attempt(i));
    // Two free attempts; the third (one over) opens a 1 s slot; the rest wait for it.
    assert.deepEqual(waits.slice(0, 3), [0, 0, 0]);
    for (const w of waits.slice(3)) assert.ok(w > 0 && w <= 1000, String(w));
    await new Promise((r) => setTimeout(r, 1100));
    // Eleven attempts, nine over: the next slot lasts 2^3 = 8 s (the cap).
    assert.equal(await attempt(20), 0);
    const next = await attempt(21);
    assert.ok(next > 7000 && next <= 8000, String(next));
    assert.ok((await attempt(22)) > 0);
    // The address the client logged in from is not paced.
    assert.ok(await limits.admit('victim', '192.0.2.9'));
  });

  test('a cached verification skips scrypt; a wrong secret, a stale entry or no cache run it', async () => {
    const svc = await serve({ failedLogins: { perClientAddress: 1000, perAddress: 1000 } });
    const client = await newClient(store);
    verifications = 0;
    assert.equal((await login(svc.url, client)).status, 200);
    assert.equal(verifications, 1);
    for (let i = 0; i < 5; i++) assert.equal((await login(svc.url, client)).status, 200);
    assert.equal(verifications, 1, 'five more logins, no scrypt');
    assert.equal((await login(svc.url, wrong(client))).status, 401);
    assert.equal(verifications, 2, 'a wrong secret is never a cache hit');
    const started = clock;
    try {
      clock = started + 301_000;
      assert.equal((await login(svc.url, client)).status, 200);
      assert.equal(verifications, 3, 'the entry expired after 300 s');
    } finally {
      clock = started;
    }
    const uncached = await serve({ verificationCacheSeconds: 0 });
    verifications = 0;
    for (let i = 0; i < 2; i++) assert.equal((await login(uncached.url, client)).status, 200);
    assert.equal(verifications, 2);
  });

  test('a revoked client is refused even with a cached verification, and its tokens stop', async () => {
    const svc = await serve({});
    const client = await newClient(store);
    const issued = await login(svc.url, client);
    assert.equal(issued.status, 200);
    verifications = 0;
    assert.ok(await store.revokeClient(client.clientId, clock));
    const after = await login(svc.url, client);
    assert.deepEqual([after.status, after.body], [401, { ErrorCode: 'invalid_client', Error: 'Client credentials are invalid' }]);
    assert.equal(verifications, 0, 'answered from the cache entry, yet refused');
    const used = await http(`${svc.url}${ZONES_PATH}`, { headers: { authorization: `Bearer ${issued.body.access_token}`, clientid: client.clientId } });
    assert.equal(used.status, 401);
  });

  test('tokens issued per client are limited; wrong secrets do not use up the client\'s quota', async () => {
    const svc = await serve({ tokenIssuance: { perClient: 3, windowSeconds: 60 } });
    const [a, b] = [await newClient(store), await newClient(store)];
    for (let i = 0; i < 5; i++) assert.equal((await loginFrom(svc.url, wrong(b, i), '203.0.113.99')).status, 401);
    for (let i = 0; i < 3; i++) assert.equal((await login(svc.url, a)).status, 200);
    const over = await login(svc.url, a);
    assert.equal(over.status, 429);
    assert.equal(over.body.fault.detail.errorcode, 'policies.ratelimit.QuotaViolation');
    assert.match(over.body.fault.faultstring, /tokens issued/);
    assert.ok(Number(over.headers.get('retry-after')) > 0 && Number(over.headers.get('retry-after')) <= 60);
    for (let i = 0; i < 3; i++) assert.equal((await login(svc.url, b)).status, 200, 'another client has its own quota');
  });

  test('credentials detour cannot have issued (overlong, NUL, spaces) are refused without scrypt or a store read (NUL: 400, as text no store can keep)', async () => {
    let reads = 0;
    const counting: Store = Object.create(store, { getClient: { value: (id: string) => (reads++, store.getClient(id)) } });
    const svc = await listen(graph, counting, { onSecretVerification: () => verifications++ });
    services.push(svc);
    const client = await newClient(store);
    verifications = 0;
    for (const c of [
      { clientId: 'x'.repeat(100_000), clientSecret: 'y' }, { clientId: 'a\u0000b', clientSecret: 'y' }, { clientId: 'a b', clientSecret: 'y' },
      { clientId: client.clientId, clientSecret: 's'.repeat(10_000) },
    ]) {
      const res = await login(svc.url, c);
      if (c.clientId.includes('\u0000')) assert.deepEqual([res.status, res.body.ErrorCode], [400, 'invalid_request']);
      else assert.deepEqual([res.status, res.body], [401, { ErrorCode: 'invalid_client', Error: 'Client credentials are invalid' }]);
    }
    assert.deepEqual([verifications, reads], [0, 0]);
    assert.equal((await login(svc.url, client)).status, 200);
  });

  test('token answers are never cached: Cache-Control no-store and Pragma no-cache on success and every error', async () => {
    const svc = await serve({ failedLogins: { perClientAddress: 1, perAddress: 1000 } });
    const client = await newClient(store);
    const answers = [
      await login(svc.url, client),
      await requestToken(svc.url, { client_id: client.clientId, client_secret: 'x' }, ''),
      await loginFrom(svc.url, wrong(client), '203.0.113.50'),
      await loginFrom(svc.url, wrong(client), '203.0.113.50'),
    ];
    assert.deepEqual(answers.map((r) => r.status), [200, 400, 401, 429]);
    for (const res of answers) {
      assert.equal(res.headers.get('cache-control'), 'no-store', String(res.status));
      assert.equal(res.headers.get('pragma'), 'no-cache', String(res.status));
    }
  });

  test('security headers everywhere; /docs works under the content security policy, and can be switched off', async () => {
    const svc = await serve({});
    for (const path of ['/health', ZONES_PATH, '/nowhere', '/docs/json']) {
      const res = await http(`${svc.url}${path}`);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', path);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/, path);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin', path);
    }
    const page = await http(`${svc.url}/docs/`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/, 'served over plain HTTP, the page must load its scripts from http://');
    assert.equal(page.headers.get('strict-transport-security'), null);
    assert.doesNotMatch(page.text, /<script>|<script [^>]*>[^<\s]/, 'no inline script, which script-src \'self\' would block');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.length >= 4);
    for (const asset of assets) {
      assert.ok(!/^[a-z]+:\/\//i.test(asset), `${asset} is served by detour itself ('self')`);
      const res = await fetch(new URL(asset, `${svc.url}/docs/`));
      assert.equal(res.status, 200, asset);
      await res.arrayBuffer(); // read to the end, so closing the service does not wait on the connection
    }
    const off = await serve({ docs: false });
    assert.equal((await http(`${off.url}/docs/`)).status, 404);
    assert.equal((await http(`${off.url}/docs/json`)).status, 404);
    const cors = await serve({ corsOrigins: ['https://maps.example'] });
    assert.equal((await http(`${cors.url}/health`)).headers.get('cross-origin-resource-policy'), 'cross-origin', 'readable by the allowed origins');
  });

  test('DETOUR_TOKEN_LIFETIME: expires_in follows it as a string; tokens expire after it; bad values are clear errors', async () => {
    const svc = await serve({ tokenLifetimeSeconds: 120 });
    const client = await newClient(store);
    const res = await login(svc.url, client);
    assert.equal(res.body.expires_in, '119');
    const headers = { authorization: `Bearer ${res.body.access_token}`, clientid: client.clientId };
    const started = clock;
    try {
      clock = started + 119_000;
      assert.equal((await http(`${svc.url}${ZONES_PATH}`, { headers })).status, 200);
      clock = started + 120_000;
      assert.equal((await http(`${svc.url}${ZONES_PATH}`, { headers })).body.fault.detail.errorcode, 'keymanagement.service.access_token_expired');
    } finally {
      clock = started;
    }
    assert.equal(configFromEnv({}).tokenLifetimeSeconds, 3600);
    assert.equal(configFromEnv({ DETOUR_TOKEN_LIFETIME: '900' }).tokenLifetimeSeconds, 900);
    for (const bad of ['0', '1', '-5', '1.5', '1e3', 'hour', '86401']) {
      assert.throws(() => configFromEnv({ DETOUR_TOKEN_LIFETIME: bad }), /DETOUR_TOKEN_LIFETIME must be whole seconds from 2 to 86400/, bad);
    }
    await assert.rejects(createService({ graph, store, tokenLifetimeSeconds: 0.5 }), { code: 'INVALID_INPUT' });
    assert.deepEqual([configFromEnv({}).docs, configFromEnv({ DETOUR_DOCS: 'false' }).docs, configFromEnv({}).demoClient, configFromEnv({ DETOUR_DEMO_CLIENT: 'true' }).demoClient], [true, false, undefined, true]);
    assert.throws(() => configFromEnv({ DETOUR_DOCS: 'maybe' }), /DETOUR_DOCS must be true or false/);
  });

  test('logs never hold credentials: query strings are redacted, bodies and headers not logged', async () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
    const svc = await serve({ logger: { level: 'trace', stream } });
    const client = await newClient(store);
    const secretQuery = `?grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
    await http(`${svc.url}${TOKEN_PATH}${secretQuery}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    const token = await login(svc.url, client);
    await http(`${svc.url}${ZONES_PATH}?access_token=${token.body.access_token}`, { headers: { authorization: `Bearer ${token.body.access_token}`, clientid: client.clientId } });
    await http(`${svc.url}/nowhere?client_secret=${client.clientSecret}`);
    const all = lines.join('\n');
    assert.ok(!all.includes(client.clientSecret), 'no secret in the log');
    assert.ok(!all.includes(token.body.access_token), 'no token in the log');
    const urls = lines.map((l) => JSON.parse(l)).filter((l) => l.req).map((l) => l.req.url);
    assert.ok(urls.includes(`${TOKEN_PATH}?grant_type=[redacted]&client_id=[redacted]&client_secret=[redacted]`), urls.join('\n'));
    assert.ok(urls.includes(`${ZONES_PATH}?access_token=[redacted]`), urls.join("\n"));
    assert.ok(urls.includes(`${TOKEN_PATH}?grant_type=[redacted]`), urls.join("\n"));
    // One line per request, once answered (an access log): its status and how long it took.
    const answered = lines.map((l) => JSON.parse(l)).filter((l) => l.req);
    assert.deepEqual(answered.map((l) => [l.msg, l.req.method, l.req.url.split('?')[0], l.res?.statusCode]), [
      ['request completed', 'POST', TOKEN_PATH, 400],
      ['request completed', 'POST', TOKEN_PATH, 200],
      ['request completed', 'GET', ZONES_PATH, 200],
      ['request completed', 'GET', '/nowhere', 404],
    ]);
    assert.ok(answered.every((l) => typeof l.responseTime === 'number' && l.responseTime >= 0 && typeof l.reqId === 'string'), JSON.stringify(answered));
  });

  test('demo client: only on loopback unless DETOUR_DEMO_CLIENT says so; its secret printed once, never logged', async () => {
    assert.deepEqual(['127.0.0.1', '127.3.2.1', '::1', '[::1]', 'localhost', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'].filter(isLoopback).length, 7);
    assert.deepEqual(['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '128.0.0.1'].filter(isLoopback), []);
    const fresh = async () => new SqliteStore(join(mkdtempSync(join(dir, 'demo-')), 'detour.sqlite'));
    const printed: string[] = [];
    const print = (line: string) => printed.push(line);

    const exposed = await fresh();
    try {
      assert.equal((await ensureDemoClient(exposed, { host: '0.0.0.0', print })).skipped, 'not loopback');
      assert.equal((await ensureDemoClient(exposed, { host: '127.0.0.1', enabled: false, print })).skipped, 'disabled');
      assert.deepEqual([printed.length, (await exposed.listClients()).length], [0, 0]);
      const forced = await ensureDemoClient(exposed, { host: '0.0.0.0', enabled: true, print });
      assert.ok(forced.created);
      assert.equal(printed.length, 1);
      assert.match(printed[0], new RegExp(`client_id=${forced.created.clientId}\\n  client_secret=${forced.created.clientSecret}$`));
      const [stored] = await exposed.listClients();
      assert.equal(stored.applicationName, DEMO_CLIENT_NAME);
      assert.ok(!stored.secretHash.includes(forced.created.clientSecret));
      const again = await ensureDemoClient(exposed, { host: '0.0.0.0', print });
      assert.equal(again.skipped, 'clients exist');
      assert.equal(printed.length, 1, 'printed once');
      assert.deepEqual(again.exposedDemoClients.map((c) => c.clientId), [forced.created.clientId], 'an active demo client off loopback is reported');
      assert.deepEqual((await ensureDemoClient(exposed, { host: '127.0.0.1', print })).exposedDemoClients, []);
    } finally {
      await exposed.close();
    }
    const local = await fresh();
    try {
      const made = await ensureDemoClient(local, { host: '127.0.0.1', print });
      assert.ok(made.created);
      const other = await listen(graph, local, {});
      try {
        assert.equal((await login(other.url, made.created)).status, 200, 'the printed credentials work');
      } finally {
        await other.close();
      }
    } finally {
      await local.close();
    }
  });
});

describe('serve with the security settings from the environment', () => {
  test('DETOUR_DEMO_CLIENT=false, DETOUR_DOCS=false and DETOUR_TOKEN_LIFETIME reach the running service', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'detour-serve-security-'));
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--graph', DEFAULT_GRAPH_PATH], {
      env: { ...process.env, DETOUR_DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'info', DETOUR_DEMO_CLIENT: 'false', DETOUR_DOCS: 'false', DETOUR_TOKEN_LIFETIME: '600' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (log += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (log += d));
    try {
      const started = Date.now();
      while (!/listening on (http:\/\/\S+) /.test(log)) {
        if (child.exitCode !== null || Date.now() - started > 60_000) assert.fail(`serve did not start:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const url = /listening on (http:\/\/\S+) /.exec(log)![1];
      assert.doesNotMatch(log, /client_secret/, 'no demo client');
      assert.equal((await http(`${url}/docs/json`)).status, 404);
      const store = new SqliteStore(join(dir, 'detour.sqlite'));
      let client: Credentials;
      try {
        assert.deepEqual(await store.listClients(), []);
        client = await newClient(store);
      } finally {
        await store.close();
      }
      const token = await login(url, client);
      assert.deepEqual([token.status, token.body.expires_in], [200, '599']);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const pgSkip = (await postgresSkipReason()) ?? false;

describe('login limits on PostgreSQL are shared by every instance', { skip: pgSkip }, () => {
  let kind: StoreKind;
  let stores: Store[];
  let services: TestService[];
  let verifications = 0;
  before(async () => {
    kind = postgresKind();
    stores = [await kind.open(), await kind.open()];
    services = [];
    for (const store of stores) {
      services.push(await listen(graph, store, { maxConcurrentVerifications: 1000, onSecretVerification: () => verifications++, failedLogins: { perClientAddress: 6, perAddress: 1000 }, tokenIssuance: { perClient: 4 } }));
    }
  });
  after(async () => {
    for (const svc of services ?? []) await svc.close();
    for (const store of stores ?? []) await store.close();
    await kind?.dispose();
  });

  test('guesses through two instances share one budget, even all at once', async () => {
    const [a, b] = services;
    const client = await newClient(stores[0]);
    verifications = 0;
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => login((i % 2 ? a : b).url, wrong(client, i))));
    assert.equal(verifications, 6, 'one budget of six for both instances');
    assert.deepEqual(tally(burst), { 401: 6, 429: 54 });
    for (const svc of services) assert.equal((await login(svc.url, client)).status, 429);
  });

  test('when the limits cannot be counted (database gone) the token endpoint answers 503, not 500', async () => {
    const broken = await kind.open();
    const svc = await listen(graph, broken, {});
    try {
      await (broken as unknown as { pool: { end(): Promise<void> } }).pool.end();
      const res = await login(svc.url, { clientId: 'someone', clientSecret: 'x' });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      assert.equal(res.body.fault.detail.errorcode, 'messaging.adaptors.http.flow.ServiceUnavailable');
    } finally {
      await svc.close();
    }
  });

  test('a success on one instance gives the attempt back for both; issuance is counted once for both', async () => {
    const [a, b] = services;
    const client = await newClient(stores[0]);
    for (let i = 0; i < 5; i++) assert.equal((await login((i % 2 ? a : b).url, wrong(client, i))).status, 401);
    assert.equal((await login(a.url, client)).status, 200);
    assert.equal((await login(b.url, wrong(client, 9))).status, 401, 'the sixth failure: the success gave its attempt back');
    assert.equal((await login(b.url, wrong(client, 10))).status, 429);
    const other = await newClient(stores[1]);
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push((await login((i % 2 ? a : b).url, other)).status);
    assert.deepEqual(issued, [200, 200, 200, 200, 429]);
  });
});

describe('login limits across node:cluster workers', () => {
  test('two workers share one budget through the primary', () => {
    const script = `
      import cluster from 'node:cluster';
      import { RateLimiterClusterMaster } from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('rate-limiter-flexible')).href)};
      if (cluster.isPrimary) {
        new RateLimiterClusterMaster();
        let admitted = 0, done = 0;
        for (let w = 0; w < 2; w++) {
          cluster.fork().on('message', (m) => {
            if (typeof m?.admitted !== 'number') return;
            admitted += m.admitted;
            if (++done === 2) { console.log(JSON.stringify({ admitted })); for (const x of Object.values(cluster.workers)) x.kill(); }
          });
        }
      } else {
        const { LoginLimits, DEFAULT_FAILED_LOGIN_LIMITS } = await import(${JSON.stringify(srcModule('service/loginLimits'))});
        const limits = await LoginLimits.create({ ...DEFAULT_FAILED_LOGIN_LIMITS, perClientAddress: 7 }, { kind: 'cluster' });
        const tries = await Promise.allSettled(Array.from({ length: 10 }, () => limits.admit('client', '192.0.2.1')));
        process.send({ admitted: tries.filter((t) => t.status === 'fulfilled').length });
      }`;
    // cluster.fork() runs the primary's script again: it has to be a file.
    const dir = mkdtempSync(join(tmpdir(), 'detour-cluster-'));
    const file = join(dir, 'clusterLimits.mjs');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [...SCRIPT_NODE_ARGS, file], { encoding: 'utf8', timeout: 60_000 });
    rmSync(dir, { recursive: true, force: true });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim().split('\n').pop()!), { admitted: 7 }, '20 attempts over two workers, one budget of 7');
  });
});

describe('login limits across service threads', () => {
  test('two threads\' limits count against the main thread\'s counters: one budget, refusals with their wait, a success giving its attempt back, issuance shared', async () => {
    const counters = new Map<string, RateLimiterMemory>();
    const channels = [new MessageChannel(), new MessageChannel()];
    for (const c of channels) serveLimits(c.port1, counters);
    try {
      const rules = { ...DEFAULT_FAILED_LOGIN_LIMITS, perClientAddress: 7 };
      const [a, b] = await Promise.all(channels.map((c) => LoginLimits.create(rules, { kind: 'thread', limits: new LimitsOverPort(c.port2) })));
      // Ten attempts at once, five through each thread: one budget of seven.
      const tries = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).admit('client', '192.0.2.1')));
      assert.equal(tries.filter((t) => t.status === 'fulfilled').length, 7);
      const refusal = (tries.find((t) => t.status === 'rejected') as PromiseRejectedResult).reason;
      assert.ok(refusal instanceof LimitRefusal, String(refusal));
      assert.equal(refusal.rule, 'client-address');
      assert.ok(refusal.retryMillis > 0 && refusal.retryMillis <= rules.windowSeconds * 1000, String(refusal.retryMillis));
      // A success through one thread gives its attempt back for the other.
      const other = await a.admit('other', '192.0.2.2');
      for (let i = 0; i < 6; i++) await b.admit('other', '192.0.2.2');
      await a.success(other);
      await b.admit('other', '192.0.2.2');
      await assert.rejects(b.admit('other', '192.0.2.2'), LimitRefusal);
      const issuance = await Promise.all(channels.map((c) => IssuanceLimit.create({ perClient: 3, windowSeconds: 60 }, { kind: 'thread', limits: new LimitsOverPort(c.port2) })));
      const issued = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => issuance[i % 2].consume('client')));
      assert.equal(issued.filter((t) => t.status === 'fulfilled').length, 3, 'five tokens through two threads, one budget of three');
    } finally {
      for (const c of channels) c.port1.close();
    }
  });
});

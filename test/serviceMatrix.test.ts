import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone, vehicleOf, type Vehicle } from '../src/index.js';
import {
  authorise, callbackReceiver, http, listen, newClient, postgresKind, postgresSkipReason, sqliteKind, ZONES_PATH, type StoreKind, type TestService,
} from './support/service.js';
import type { Store } from '../src/store/Store.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);
const router = new Router(graph);

const centrum = {
  name: 'Centrum',
  geometries: [{ name: 'block', vertices: [v(57.7, 11.96), v(57.7, 11.975), v(57.71, 11.975), v(57.71, 11.96)] }],
};
const origins = [
  { siteId: 'west', latitude: 57.7055, longitude: 11.95 },
  { siteId: 'north', latitude: 57.72, longitude: 11.97 },
  { siteId: 'inside', latitude: 57.7052, longitude: 11.9675 },
];
const destinations = [
  { siteId: 'east', latitude: 57.7055, longitude: 11.985 },
  { siteId: 'south', latitude: 57.69, longitude: 11.97 },
];

function v(latitude: number, longitude: number) {
  return { latitude, longitude };
}

/** Every element equals Router.route between its sites around the zone (rounded as the API rounds). */
function assertElementsAreRoutes(solution: { elements: Array<Record<string, unknown>> }, mode: 'THE_FASTEST' | 'THE_SHORTEST', vehicle?: Vehicle) {
  const zone = calculateZone(graph, validateZone(centrum));
  assert.equal(solution.elements.length, origins.length * destinations.length);
  let k = 0;
  for (const o of origins) {
    for (const d of destinations) {
      const e = solution.elements[k++];
      assert.equal(e.origin, o.siteId);
      assert.equal(e.destination, d.siteId);
      let route;
      try {
        route = router.route({ points: [o, d], zones: [zone], calculationMode: mode, vehicle });
      } catch (err) {
        assert.equal((e.error as { code: string } | undefined)?.code, (err as { code: string }).code, `${o.siteId} -> ${d.siteId}`);
        continue;
      }
      assert.equal(e.distance, Math.round(route.distance), `${o.siteId} -> ${d.siteId}`);
      assert.equal(e.nominalDuration, Math.round(route.duration));
      assert.ok(Math.abs((e.averageSpeed as number) - route.averageSpeed) <= 0.06);
    }
  }
}

async function untilDone(base: string, headers: Record<string, string>, id: string) {
  for (let i = 0; i < 200; i++) {
    const job = await http(`${base}/matrix/v1/jobs/${id}`, { headers });
    assert.equal(job.status, 200, job.text);
    if (job.body.status === 'SOLVED' || job.body.status === 'FAILED') return job.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${id} did not finish`);
}

const kinds: Array<{ make: () => StoreKind; skip: string | false }> = [
  { make: sqliteKind, skip: false },
  { make: postgresKind, skip: (await postgresSkipReason()) ?? false },
];

for (const { make, skip } of kinds) {
  describe(`Matrix API on ${make === sqliteKind ? 'SQLite' : 'PostgreSQL'}`, { skip }, () => {
    let kind: StoreKind;
    let store: Store;
    let svc: TestService;
    let clock = Date.now();
    let client: { clientId: string; clientSecret: string };
    let headers: Record<string, string>;
    let callbacks: Awaited<ReturnType<typeof callbackReceiver>>;

    before(async () => {
      callbacks = await callbackReceiver();
      kind = make();
      store = await kind.open();
      svc = await listen(graph, store, { now: () => clock, failedLogins: { perClient: 1000, perAddress: 1000 }, matrix: { callbackHosts: ['127.0.0.1'], pollMillis: 100 } });
      client = await newClient(store);
      headers = (await authorise(svc.url, client)).headers;
      const put = await http(`${svc.url}${ZONES_PATH}`, { headers, json: centrum });
      assert.equal(put.status, 201, put.text);
    });
    after(async () => {
      await svc?.close();
      await store?.close();
      await kind?.dispose();
      callbacks?.close();
    });

    test('a problem goes ENQUEUED -> PROCESSING -> SOLVED; its solution equals the routes around the zone; events list the changes; the callback is called', async () => {
      const posted = await http(`${svc.url}/matrix/v1/problems`, {
        headers,
        json: { calculationMode: 'THE_SHORTEST', origins, destinations, restrictionZones: ['Centrum'], tripProfile: 'any', callback: { url: callbacks.url('/done'), user: 'u', password: 'p' } },
      });
      assert.equal(posted.status, 202, posted.text);
      const id = posted.body.id as string;
      const job = await untilDone(svc.url, headers, id);
      assert.equal(job.status, 'SOLVED', JSON.stringify(job));
      const solution = await http(`${svc.url}/matrix/v1/solutions/${id}`, { headers });
      assert.equal(solution.status, 200, solution.text);
      assert.equal(solution.body.id, id);
      assert.equal(solution.body.clientId, client.clientId);
      assert.equal(typeof solution.body.createdAt, 'number');
      assertElementsAreRoutes(solution.body, 'THE_SHORTEST');
      const events = await http(`${svc.url}/matrix/v1/events?jobId=${id}`, { headers });
      assert.deepEqual(events.body.map((e: { status: string }) => e.status), ['ENQUEUED', 'PROCESSING', 'SOLVED']);
      const received = callbacks.received;
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(received[0]?.body, { id, jobId: id, status: 'SOLVED' });
      assert.equal(received[0]?.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
    });

    test('POST /matrix/v1/calculations answers at once with the same elements', async () => {
      const res = await http(`${svc.url}/matrix/v1/calculations`, { headers, json: { origins, destinations, restrictionZones: ['Centrum'] } });
      assert.equal(res.status, 200, res.text);
      assertElementsAreRoutes(res.body, 'THE_FASTEST');
    });

    test('a vehicle: every element as Router.route answers for it, the vehicle reported; a bad figure is a 400 naming it', async () => {
      const vehicleSpecification = { maxHeight: 3.7, maxWeight: 20_000 };
      const res = await http(`${svc.url}/matrix/v1/calculations`, { headers, json: { origins, destinations, restrictionZones: ['Centrum'], vehicleType: 'TRUCK_WITH_THREE_DOUBLE_AXLES', vehicleSpecification } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.vehicle.vehicleType, res.body.vehicle.height, res.body.vehicle.weight], ['TRUCK_WITH_THREE_DOUBLE_AXLES', 3.7, 20000]);
      assertElementsAreRoutes(res.body, 'THE_FASTEST', vehicleOf('TRUCK_WITH_THREE_DOUBLE_AXLES', vehicleSpecification));
      const bad = await http(`${svc.url}/matrix/v1/problems`, { headers, json: { origins, destinations, vehicleSpecification: { maxWeight: 1e9 } } });
      assert.deepEqual([bad.status, bad.body.code, bad.body.errors?.[0]?.path], [400, 'INVALID_VEHICLE', 'vehicleSpecification.maxWeight'], bad.text);
    });

    test('bad problems are 400s naming the field; unknown zones, too many elements, callbacks not allowed', async () => {
      const post = (json: unknown, path = 'problems') => http(`${svc.url}/matrix/v1/${path}`, { headers, json });
      const dup = await post({ origins: [origins[0], origins[0]], destinations });
      assert.equal(dup.status, 400);
      assert.equal(dup.body.errors[0].path, 'origins[1].siteId');
      const unknown = await post({ origins, destinations, restrictionZones: ['Nowhere'] });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.code, 'ZONE_NOT_FOUND');
      const member = await post({ origins, destinations, restrictionZone: ['Centrum'] });
      assert.equal(member.status, 400);
      const noSite = await post({ origins: [{ latitude: 57.7, longitude: 11.9 }], destinations });
      assert.equal(noSite.status, 400);
      const many = Array.from({ length: 101 }, (_, i) => ({ siteId: `s${i}`, latitude: 57.7, longitude: 11.95 + i * 1e-4 }));
      const big = await post({ origins: many, destinations: many }, 'calculations');
      assert.equal(big.status, 400);
      assert.match(big.body.message, /10201 elements, more than the 10000/);
      const ftp = await post({ origins, destinations, callback: { url: 'ftp://127.0.0.1/x' } });
      assert.equal(ftp.status, 400);
      assert.equal(ftp.body.errors[0].path, 'callback.url');
      const elsewhere = await post({ origins, destinations, callback: { url: 'http://10.0.0.1/x' } });
      assert.equal(elsewhere.status, 400);
      assert.match(elsewhere.body.message, /not among the allowed callback hosts/);
    });

    test('jobs are private: another client gets 404s; a client without the Matrix product 403', async () => {
      const posted = await http(`${svc.url}/matrix/v1/problems`, { headers, json: { origins, destinations } });
      const id = posted.body.id as string;
      const other = (await authorise(svc.url, await newClient(store))).headers;
      for (const path of [`jobs/${id}`, `solutions/${id}`, `events?jobId=${id}`]) {
        const res = await http(`${svc.url}/matrix/v1/${path}`, { headers: other });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.code, 'MATRIX_JOB_NOT_FOUND');
      }
      const tripOnly = (await authorise(svc.url, await newClient(store, ['Trip']))).headers;
      const refused = await http(`${svc.url}/matrix/v1/problems`, { headers: tripOnly, json: { origins, destinations } });
      assert.equal(refused.status, 403);
      assert.equal((await http(`${svc.url}/matrix/v1/jobs/not-a-uuid`, { headers })).status, 404);
      await untilDone(svc.url, headers, id);
    });

    test('a client with 10 unfinished jobs gets 429 MATRIX_JOBS_LIMIT; other clients are not affected', async () => {
      const busy = await newClient(store);
      const busyHeaders = (await authorise(svc.url, busy)).headers;
      // Jobs taken up by an instance that never finishes them (no lease): they stay unfinished.
      for (let i = 0; i < 10; i++) {
        await store.insertJob({ id: crypto.randomUUID(), clientId: busy.clientId, kind: 'matrix', status: 'PROCESSING', request: { origins, destinations }, attempts: 1, createdAt: clock, updatedAt: clock, expiresAt: clock + 3600_000 });
      }
      const refused = await http(`${svc.url}/matrix/v1/problems`, { headers: busyHeaders, json: { origins, destinations } });
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.code, 'MATRIX_JOBS_LIMIT');
      assert.equal(refused.headers.get('retry-after'), '5');
      const other = await http(`${svc.url}/matrix/v1/problems`, { headers, json: { origins, destinations } });
      assert.equal(other.status, 202, other.text);
      await untilDone(svc.url, headers, other.body.id);
    });

    test('a solution is kept 7 days, then 404', async () => {
      const posted = await http(`${svc.url}/matrix/v1/problems`, { headers, json: { origins, destinations } });
      const id = posted.body.id as string;
      await untilDone(svc.url, headers, id);
      const saved = clock;
      try {
        clock = saved + 7 * 24 * 3600_000 - 1000;
        headers = (await authorise(svc.url, client)).headers;
        assert.equal((await http(`${svc.url}/matrix/v1/solutions/${id}`, { headers })).status, 200);
        clock = saved + 7 * 24 * 3600_000 + 1000;
        headers = (await authorise(svc.url, client)).headers;
        assert.equal((await http(`${svc.url}/matrix/v1/solutions/${id}`, { headers })).status, 404);
        assert.equal((await http(`${svc.url}/matrix/v1/events?jobId=${id}`, { headers })).status, 404);
      } finally {
        clock = saved;
        headers = (await authorise(svc.url, client)).headers;
      }
    });

    test('two instances on one database: a job posted on one is read on the other; a job whose taker died is finished by another', async () => {
      const second = await listen(graph, await kind.open(), { now: () => clock, failedLogins: { perClient: 1000, perAddress: 1000 }, matrix: { pollMillis: 50, leaseMillis: 300 } });
      try {
        const headers2 = (await authorise(second.url, client)).headers;
        const posted = await http(`${svc.url}/matrix/v1/problems`, { headers, json: { origins, destinations, restrictionZones: ['Centrum'] } });
        await untilDone(svc.url, headers, posted.body.id);
        const there = await http(`${second.url}/matrix/v1/solutions/${posted.body.id}`, { headers: headers2 });
        assert.equal(there.status, 200, there.text);
        assertElementsAreRoutes(there.body, 'THE_FASTEST');

        // An instance that took a job up and died: its lease runs out, the second takes it over.
        // (The first instance polls too: should it take the job between insert and claim, try again.)
        const at = clock;
        let id = '';
        for (let tries = 0; tries < 5 && !id; tries++) {
          const candidate = crypto.randomUUID();
          await store.insertJob({ id: candidate, clientId: client.clientId, kind: 'matrix', status: 'ENQUEUED', request: { origins, destinations, restrictionZones: ['Centrum'] }, attempts: 0, createdAt: at - 60_000, updatedAt: at, expiresAt: at + 3600_000 });
          const taken = await store.claimJob(at - 50_000, 1000, 3); // a lease that ran out long ago
          if (taken?.id === candidate) id = candidate;
        }
        assert.ok(id, 'the test took a job up as the instance that dies');
        const done = await untilDone(second.url, headers2, id);
        assert.equal(done.status, 'SOLVED');
        const events = await http(`${second.url}/matrix/v1/events?jobId=${id}`, { headers: headers2 });
        assert.deepEqual(events.body.map((e: { status: string }) => e.status), ['ENQUEUED', 'PROCESSING', 'PROCESSING', 'SOLVED']);
      } finally {
        const secondStore = second.app.store;
        await second.close();
        await secondStore.close();
      }
    });

    test('an instance started again under its name takes back at once the jobs it left under way; another name\'s wait for their lease', async () => {
      // Two jobs taken up with a long lease by instances that died: "restarted/0" and "elsewhere/0".
      const taken = new Map<string, string>();
      for (const taker of ['restarted/0', 'elsewhere/0']) {
        for (let tries = 0; tries < 5 && !taken.has(taker); tries++) {
          const candidate = crypto.randomUUID();
          await store.insertJob({ id: candidate, clientId: client.clientId, kind: 'matrix', status: 'ENQUEUED', request: { origins, destinations }, attempts: 0, createdAt: clock - 60_000, updatedAt: clock, expiresAt: clock + 3600_000 });
          if ((await store.claimJob(clock, 600_000, 3, taker))?.id === candidate) taken.set(taker, candidate);
        }
      }
      assert.equal(taken.size, 2, 'the test took both jobs up');
      const restarted = await listen(graph, await kind.open(), { now: () => clock, failedLogins: { perClient: 1000, perAddress: 1000 }, matrix: { pollMillis: 50, taker: 'restarted/0' } });
      try {
        const done = await untilDone(restarted.url, headers, taken.get('restarted/0')!);
        assert.equal(done.status, 'SOLVED');
        const events = await http(`${restarted.url}/matrix/v1/events?jobId=${taken.get('restarted/0')}`, { headers });
        assert.deepEqual(events.body.map((e: { status: string }) => e.status), ['ENQUEUED', 'PROCESSING', 'PROCESSING', 'SOLVED']);
        const waiting = await http(`${restarted.url}/matrix/v1/jobs/${taken.get('elsewhere/0')}`, { headers });
        assert.equal(waiting.body.status, 'PROCESSING', 'another instance\'s job keeps its lease');
        assert.equal(await store.releaseJobsOf('elsewhere/0', clock), 1);
        assert.equal((await untilDone(restarted.url, headers, taken.get('elsewhere/0')!)).status, 'SOLVED');
      } finally {
        const restartedStore = restarted.app.store;
        await restarted.close();
        await restartedStore.close();
      }
    });
  });
}

test('DETOUR_INSTANCE_ID: the name an instance takes jobs up under, by default the host name and port; none with port 0', async () => {
  const { configFromEnv } = await import('../src/service/startService.js');
  const { hostname } = await import('node:os');
  assert.equal(configFromEnv({}).instanceId, `${hostname()}:3000`);
  assert.equal(configFromEnv({ PORT: '8080' }).instanceId, `${hostname()}:8080`);
  assert.equal(configFromEnv({ PORT: '0' }).instanceId, undefined);
  assert.equal(configFromEnv({ PORT: '0', DETOUR_INSTANCE_ID: 'routing-1' }).instanceId, 'routing-1');
});

test('callback hosts: DETOUR_MATRIX_CALLBACK_HOSTS, host or host:port, http(s) only, no credentials in the URL', async () => {
  const { configFromEnv } = await import('../src/service/startService.js');
  const { callbackProblem } = await import('../src/service/Jobs.js');
  assert.equal(configFromEnv({}).matrixCallbackHosts, undefined);
  const hosts = configFromEnv({ DETOUR_MATRIX_CALLBACK_HOSTS: 'hooks.example, 127.0.0.1:8080' }).matrixCallbackHosts;
  assert.deepEqual(hosts, ['hooks.example', '127.0.0.1:8080']);
  assert.equal(callbackProblem('https://hooks.example/x', hosts), undefined);
  assert.equal(callbackProblem('http://127.0.0.1:8080/x', hosts), undefined);
  assert.match(callbackProblem('http://127.0.0.1:9090/x', hosts)!, /not among the allowed/);
  assert.match(callbackProblem('https://user:pw@hooks.example/x', hosts)!, /credentials/);
  assert.match(callbackProblem('file:///etc/passwd')!, /http or https/);
  assert.match(callbackProblem('not a url')!, /not a valid URL/);
  assert.equal(callbackProblem('https://anywhere.example/x'), undefined);
});

test('a running job keeps its lease: another instance polling meanwhile does not take it over, however long it runs', async () => {
  const { Jobs } = await import('../src/service/Jobs.js');
  const kind = sqliteKind();
  const store = await kind.open();
  const log = { warn: () => {}, error: () => {} } as never;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let runs = 0;
  const slow = async () => { runs++; await gate; return '{}'; };
  const instance = () => new Jobs({ store, solvers: { matrix: slow, trip: slow }, now: Date.now, log, leaseMillis: 150, pollMillis: 20 });
  const first = instance(), second = instance();
  try {
    const { clientId } = await newClient(store);
    const id = crypto.randomUUID(), at = Date.now();
    await store.insertJob({ id, clientId, kind: 'matrix', status: 'ENQUEUED', request: {}, attempts: 0, createdAt: at, updatedAt: at, expiresAt: at + 3600_000 });
    first.start();
    for (let i = 0; i < 100 && runs === 0; i++) await new Promise((r) => setTimeout(r, 10));
    second.start();
    await new Promise((r) => setTimeout(r, 700)); // over four leases
    assert.equal(runs, 1, 'the job was not taken over while its taker lived');
    release();
    let job = await store.getJob(clientId, 'matrix', id, Date.now());
    for (let i = 0; i < 100 && job?.status !== 'SOLVED'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      job = await store.getJob(clientId, 'matrix', id, Date.now());
    }
    assert.deepEqual([job?.status, job?.attempts], ['SOLVED', 1]);
  } finally {
    release();
    await first.stop();
    await second.stop();
    await store.close();
    await kind.dispose();
  }
});

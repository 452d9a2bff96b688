import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import kinks from '@turf/kinks';
import { polygon } from '@turf/helpers';
import { PreparedPolygon } from '../src/geo/PreparedPolygon.js';
import { DEFAULT_GRAPH_PATH, loadGraph, validateZone } from '../src/index.js';
import { configFromEnv, registerClient, startService, SqliteStore } from '../src/service/index.js';
import { ADVERSARIAL_RINGS, randomRing, starRing, type Position } from './adversarialRings.js';
import { seededRandom } from './seededRandom.js';
import { quantile } from './stats.js';

const median = (v: number[]) => quantile(v, 0.5);
const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const body = (name: string, rings: Position[][]) => ({
  name,
  geometries: rings.map((r, i) => ({ name: `g${i}`, vertices: r.map(([longitude, latitude]) => ({ latitude, longitude })) })),
});

function timed(work: () => void, runs = 5): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    work();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Index entries under the rule before the cap: max(256, min(65,536, V/2)) rows, every edge in each row it spans. */
function entriesBeforeCap(ring: Position[]): number {
  const v = ring.length;
  const rows = Math.max(256, Math.min(1 << 16, Math.ceil(v / 2)));
  let minY = Infinity, maxY = -Infinity;
  for (const p of ring) { minY = Math.min(minY, p[1]); maxY = Math.max(maxY, p[1]); }
  const inv = rows / (maxY - minY);
  const row = (y: number) => Math.min(rows - 1, Math.floor((y - minY) * inv));
  let entries = 0;
  for (let i = 0; i < v; i++) {
    const a = ring[i][1], b = ring[(i + 1) % v][1];
    entries += row(Math.max(a, b)) - row(Math.min(a, b)) + 1;
  }
  return entries;
}

/** Issue 8's geometry targets: adversarial zones validate fast, indexes stay small, the service stays responsive. */
export async function zoneResilienceBench(): Promise<string> {
  const lines = [
    '## Adversarial zones (issue 8: no request can freeze the service)',
    '',
    'Produced by `npm run bench -- resilience`. Rings from `bench/adversarialRings.ts` (10,000 vertices each unless said;',
    'all simple except "random"). detour validates a whole zone (`validateZone`: coordinates, rings, self-intersection by a',
    'Shamos-Hoey sweep, which stops at the first meeting pair); the peer is `@turf/kinks`, which lists every self-intersection.',
    '',
    '| ring | detour validateZone | @turf/kinks | detour faster by | polygon index entries: before the cap -> now |',
    '|---|---|---|---|---|',
  ];
  const cases: Array<[string, Position[]]> = [
    ...Object.entries(ADVERSARIAL_RINGS).map(([name, make]) => [name, make(10_000)] as [string, Position[]]),
    ['random (self-intersecting)', randomRing(10_000, 3)],
  ];
  for (const [name, ring] of cases) {
    const zone = body(name, [ring]);
    const detour = timed(() => {
      try { validateZone(zone); } catch { /* the random ring is rejected: that is the answer */ }
    });
    const turf = timed(() => kinks(polygon([[...ring, ring[0]]])), 3);
    const entries = new PreparedPolygon([ring]).rowEdges.length;
    lines.push(`| ${name} | ${ms(detour)} | ${ms(turf)} | ${(turf / detour).toFixed(1)}x | ${entriesBeforeCap(ring).toLocaleString('en')} -> ${entries.toLocaleString('en')} |`);
  }
  const big = body('big', Array.from({ length: 10 }, (_, i) => (i % 2 ? starRing : ADVERSARIAL_RINGS.sawtooth)(10_000).map(([x, y]) => [x + i * 0.05, y] as Position)));
  const bigTime = timed(() => validateZone(big));
  lines.push('', `A zone of 100,000 vertices (10 geometries: sawtooth and star rings): validated in ${ms(bigTime)}.`);
  const sawtooth = timed(() => validateZone(body('s', [ADVERSARIAL_RINGS.sawtooth(10_000)])));
  lines.push(`Targets: a 10,000-vertex sawtooth in <= 100 ms (${ms(sawtooth)}: ${sawtooth <= 100 ? 'met' : 'MISSED'}); a 100,000-vertex zone in <= 500 ms (${ms(bigTime)}: ${bigTime <= 500 ? 'met' : 'MISSED'}).`, '');

  lines.push(...(await serviceUnderLargeZones(big)));
  return lines.join('\n');
}

/** The service in a child process (bench/serviceChild.ts), with a token for its client. */
async function serviceChild(dataDir: string) {
  const child = fork(fileURLToPath(new URL('./serviceChild.ts', import.meta.url)), [dataDir], { execArgv: ['--import', 'tsx'] });
  const [info] = (await once(child, 'message')) as [{ url: string; clientId: string; clientSecret: string }];
  const tokenRes = await fetch(`${info.url}/oauth/client_credential/accesstoken?grant_type=client_credentials`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: info.clientId, client_secret: info.clientSecret }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  return {
    url: info.url,
    headers: { authorization: `Bearer ${token}`, clientid: info.clientId, 'content-type': 'application/json' },
    /** Starts a new window of the service's event-loop delay histogram. */
    resetLoop: () => child.send('loop-reset'),
    /** The longest the service's event loop was held since resetLoop (ms). */
    loopMax: async () => {
      child.send('loop-max');
      const [reply] = (await once(child, 'message')) as [{ loopMax: number }];
      return reply.loopMax;
    },
    stop: async () => {
      child.send('exit');
      await once(child, 'exit');
    },
  };
}

/**
 * Runs `work` while /health is polled every 5 ms; the slowest /health answer is how long any part
 * of the work held the service's event loop (plus the poll's own round trip, and any pause of
 * this process: the service's own event-loop delay is measured too).
 */
async function withHealthPolls(service: Awaited<ReturnType<typeof serviceChild>>, work: () => Promise<Response>): Promise<{ status: number; millis: number; worstHealth: number; polls: number; loopMax: number }> {
  const { result, health, loopMax } = await healthDuring(service, async () => {
    const t0 = performance.now();
    const res = await work();
    await res.arrayBuffer();
    const millis = performance.now() - t0;
    // The zone's calculation goes on after the answer: keep polling while it runs.
    await new Promise((r) => setTimeout(r, 500));
    return { status: res.status, millis };
  });
  return { ...result, worstHealth: Math.max(...health), polls: health.length, loopMax };
}

/** Seconds of back-to-back trips through the big zone (BENCH_STALL_SECONDS, default 10). */
const STALL_SECONDS = Number(process.env.BENCH_STALL_SECONDS ?? 10);

/**
 * Runs `work` while /health is polled every 5 ms (sequentially, from this process): every poll's
 * time, and the longest the service's own event loop was held meanwhile.
 */
async function healthDuring<T>(service: Awaited<ReturnType<typeof serviceChild>>, work: () => Promise<T>): Promise<{ result: T; millis: number; health: number[]; loopMax: number }> {
  service.resetLoop();
  const health: number[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t0 = performance.now();
      await (await fetch(`${service.url}/health`)).arrayBuffer();
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const t0 = performance.now();
  const result = await work();
  const millis = performance.now() - t0;
  polling = false;
  await poll;
  return { result, millis, health, loopMax: await service.loopMax() };
}

/**
 * Issue 39's stall targets: /health's p99 while 100-point trips through the 100,000-vertex zone
 * ('big', stored before) run back to back, and while 50 trips of 100 points around 100 zones run
 * at once; and the longest any task held the service's event loop meanwhile.
 */
async function tripStalls(service: Awaited<ReturnType<typeof serviceChild>>): Promise<string[]> {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const rand = seededRandom(39);
  const randomPoint = () => {
    const v = Math.floor(rand() * graph.nodeCount);
    return { latitude: graph.nodeLatitude(v), longitude: graph.nodeLongitude(v) };
  };
  // Every other stop in the core of the big zone's first star (12.02, 57.70): those legs enter it.
  const bigTrip = JSON.stringify({
    points: Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? { latitude: 57.7 + (rand() - 0.5) * 0.001, longitude: 12.02 + (rand() - 0.5) * 0.002 } : randomPoint())),
    restrictionZones: ['big'],
  });
  const post = async (path: string, body: string) => {
    const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: service.headers, body });
    await res.arrayBuffer();
    return res.status;
  };
  const statuses = (list: number[]) => Object.entries(list.reduce<Record<number, number>>((c, s) => ({ ...c, [s]: (c[s] ?? 0) + 1 }), {})).map(([s, n]) => `${s}: ${n}`).join(', ');
  // 100 zones of 500 m around random nodes, calculated and customized on the trip threads before the trips.
  const names = Array.from({ length: 100 }, (_, i) => `stall-${i}`);
  for (const name of names) {
    const { latitude: lat, longitude: lon } = randomPoint(), d = 0.0045;
    const zone = { name, geometries: [{ vertices: [{ latitude: lat, longitude: lon }, { latitude: lat, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon }] }] };
    const status = await post('/restriction/v1/restrictionZones', JSON.stringify(zone));
    if (status !== 201) throw new Error(`zone ${name}: ${status}`);
  }
  for (;;) {
    const health = (await (await fetch(`${service.url}/health`)).json()) as { zonesToPrepare: number; vehicleClasses: string };
    const [made, wanted] = health.vehicleClasses.split('/');
    if (health.zonesToPrepare === 0 && made === wanted) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const manyTrips = Array.from({ length: 50 }, () => JSON.stringify({ points: Array.from({ length: 100 }, randomPoint), restrictionZones: names }));

  const backToBack = await healthDuring(service, async () => {
    const done: number[] = [], times: number[] = [];
    const until = performance.now() + STALL_SECONDS * 1000;
    while (done.length < 3 || performance.now() < until) {
      const t0 = performance.now();
      done.push(await post('/trip/v2/calculations', bigTrip));
      times.push(performance.now() - t0);
    }
    return { done, times };
  });
  const atOnce = await healthDuring(service, () => Promise.all(manyTrips.map((trip) => post('/trip/v2/calculations', trip))));

  const row = (what: string, r: { millis: number; health: number[]; loopMax: number }, trips: string) =>
    `| ${what} | ${trips} | ${ms(r.millis)} | ${r.health.length} | ${ms(quantile(r.health, 0.5))} | ${ms(quantile(r.health, 0.99))} | ${ms(Math.max(...r.health))} | ${ms(r.loopMax)} |`;
  const met = (r: { health: number[]; loopMax: number }) => `/health p99 ${ms(quantile(r.health, 0.99))} (${quantile(r.health, 0.99) <= 50 ? 'met' : 'missed'}), event loop held at most ${ms(r.loopMax)} (${r.loopMax <= 20 ? 'met' : 'missed'})`;
  return [
    '#### Trips that would stall the service (issue 39)',
    '',
    'The same service, 100 zones of 500 m added around random nodes (calculated, and customized on the trip threads, before',
    'the runs). /health is polled every 5 ms meanwhile. Each trip has 100 points: through the 100,000-vertex zone every',
    'other stop lies in the core of its first star, so those legs enter it; the 50 trips at once name all 100 small zones.',
    '',
    '| run | trips (status: count) | time | /health polls | /health p50 | /health p99 | slowest /health | service event loop held at most |',
    '|---|---|---|---|---|---|---|---|',
    row(`100-point trips through the 100,000-vertex zone, back to back for ${STALL_SECONDS} s (median trip ${ms(quantile(backToBack.result.times, 0.5))})`, backToBack, statuses(backToBack.result.done)),
    row('50 trips of 100 points around 100 zones, all at once', atOnce, statuses(atOnce.result)),
    '',
    `Targets of issue 39 (/health p99 <= 50 ms, no task holding the event loop over 20 ms): back to back through the big zone ${met(backToBack)}; 50 at once ${met(atOnce)}.`,
  ];
}

/** /health while a 100,000-vertex zone goes in, is read and is used; a restart with 1,000 stored zones. */
async function serviceUnderLargeZones(big: ReturnType<typeof body>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'detour-resilience-'));
  const config = { ...configFromEnv({}), port: 0, dataDir: dir, logLevel: 'silent' };
  const lines: string[] = [
    '### The service under large zones (SQLite store, loopback)',
    '',
    'The service runs alone in a child process (`bench/serviceChild.ts`); this process sends the requests and polls',
    '`/health` every 5 ms meanwhile (and for 0.5 s after, while the zone calculates); the service measures its own event-loop',
    'delay (`monitorEventLoopDelay`, the longest any task held its loop). Target: no request blocks `/health` for more than 100 ms.',
    '',
    '| request (100,000-vertex zone) | status | time | /health polls | slowest /health | service event loop held at most | target |',
    '|---|---|---|---|---|---|---|',
  ];
  try {
    const child = await serviceChild(dir);
    const payload = JSON.stringify(big);
    const zonePath = `${child.url}/restriction/v1/restrictionZones`;
    const requests: Array<[string, () => Promise<Response>]> = [
      [`POST (${(payload.length / 1e6).toFixed(1)} MB of JSON)`, () => fetch(zonePath, { method: 'POST', headers: child.headers, body: payload })],
      ['GET', () => fetch(`${zonePath}/big`, { headers: child.headers })],
      ['PUT (the same body)', () => fetch(`${zonePath}/big`, { method: 'PUT', headers: child.headers, body: payload })],
      ['trip through it', () => fetch(`${child.url}/trip/v2/calculations`, {
        method: 'POST', headers: child.headers,
        body: JSON.stringify({ points: [{ latitude: 57.705, longitude: 11.93 }, { latitude: 57.705, longitude: 12.0 }], restrictionZones: ['big'] }),
      })],
    ];
    for (const [what, work] of requests) {
      const r = await withHealthPolls(child, work);
      lines.push(`| ${what} | ${r.status} | ${ms(r.millis)} | ${r.polls} | ${ms(r.worstHealth)} | ${ms(r.loopMax)} | ${r.worstHealth <= 100 ? 'met' : 'MISSED'} |`);
    }
    lines.push('', ...(await tripStalls(child)));
    await child.stop();
    lines.push('');

    let service = await startService(config);
    const { client } = await registerClient(service.store, { applicationName: 'bench' });

    // 1,000 stored zones, 10 of them adversarial (10,000 vertices), written straight to the store.
    const small = (i: number) => body(`small-${i}`, [[[11.92 + (i % 40) * 0.002, 57.68 + Math.floor(i / 40) * 0.002], [11.921 + (i % 40) * 0.002, 57.68 + Math.floor(i / 40) * 0.002], [11.921 + (i % 40) * 0.002, 57.681 + Math.floor(i / 40) * 0.002]]]);
    for (let i = 0; i < 1000; i++) {
      const zoneBody = i < 10 ? body(`adversarial-${i}`, [Object.values(ADVERSARIAL_RINGS)[i % 4](10_000).map(([x, y]) => [x, y - 0.02 * i] as Position)]) : small(i);
      await service.store.insertZone({ clientId: client.clientId, name: zoneBody.name, body: zoneBody, revision: randomUUID(), createdAt: Date.now(), updatedAt: Date.now() });
    }
    await service.close();
    const r0 = performance.now();
    service = await startService(config);
    const listening = performance.now() - r0;
    while ((((await (await fetch(`${service.url}/health`)).json()) as { zonesWarmUp: string }).zonesWarmUp) !== 'done') await new Promise((r) => setTimeout(r, 20));
    const warm = performance.now() - r0;
    await service.close();
    lines.push(`- Restart with 1,001 stored zones (10 adversarial of 10,000 vertices): listening after ${ms(listening)} (target <= 5 s: ${listening <= 5000 ? 'met' : 'MISSED'}); every stored zone calculated in the background after ${ms(warm)}.`, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

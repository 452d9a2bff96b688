/**
 * The HTTP service under load: `npm run bench:service` (builds, then runs this file).
 * Starts the built `detour serve` with --workers 1 and 2 (service threads, and processes too where
 * serve makes threads), and --workers 1 with the young generation V8 would size itself (a peer of
 * serve's held semi-spaces, src/service/processTuning.ts), on a loopback port and drives it with
 * autocannon from this process (load generator included, as the issue's targets assume):
 * trips with two zones at 20 and 100 connections, zone inserts, and trips during a token flood of
 * 20 requests per second (right and wrong secrets) with GET /health measured meanwhile.
 * Replaces the "Service under load" section of bench/RESULTS.md. BENCH_SECONDS sets each run's
 * length (default 10).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { updateResults } from './results.js';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone } from '../src/index.js';
import { registerClient } from '../src/service/credentials.js';
import { SqliteStore } from '../src/store/SqliteStore.js';
import { configFromEnv, type WorkerMode } from '../src/service/startService.js';
import { SEMI_SPACE_FLAG, SEMI_SPACE_MIB } from '../src/service/processTuning.js';
import { seededRandom } from './seededRandom.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_CLI: another build's cli.js (an older commit's, for a before-and-after on one machine).
const CLI = process.env.BENCH_CLI || fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
const TOKEN_PATH = '/oauth/client_credential/accesstoken?grant_type=client_credentials';
const SECTION = '## Service under load';
/** The peer's semi-space size (MiB): what Node 24 grows each one to on a machine of 24 GiB. */
const PEER_SEMI_SPACE_MIB = 64;

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);

/** Services started here, killed if this process ends early so none outlives the benchmark. */
const serving = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of serving) child.kill('SIGKILL');
});

interface Running {
  child: ChildProcess;
  url: string;
}

/** `detour serve --workers N` on a free loopback port, its log (LOG_LEVEL=info, the default) going to a file as in production. */
async function serve(dataDir: string, workers: number, mode?: WorkerMode, nodeOptions?: string): Promise<Running> {
  const logPath = join(dataDir, 'serve.log');
  const logFd = openSync(logPath, 'w');
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--workers', String(workers), ...(mode ? ['--worker-mode', mode] : [])], {
    env: { ...process.env, DETOUR_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info', ...(nodeOptions && { NODE_OPTIONS: nodeOptions }) },
    stdio: ['ignore', logFd, 'inherit'],
  });
  closeSync(logFd);
  serving.add(child);
  child.once('exit', () => serving.delete(child));
  const startedAt = Date.now();
  for (;;) {
    const found = /listening on (http:\/\/\S+) /.exec(readFileSync(logPath, 'utf8'));
    if (found) return { child, url: found[1] };
    if (child.exitCode !== null || Date.now() - startedAt > 60_000) throw new Error(`serve did not start:\n${readFileSync(logPath, 'utf8')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stop(running: Running): Promise<void> {
  running.child.kill('SIGTERM');
  const [code] = await once(running.child, 'exit');
  if (code !== 0) throw new Error(`serve exited with ${code} after SIGTERM`);
}

/** Resident memory of the service's processes (the primary and its workers), in MB. */
function residentMb(pid: number): { total: number; processes: number } {
  const pids = [pid, ...childPids(pid)];
  const kb = pids.map((p) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0));
  return { total: kb.reduce((a, b) => a + b, 0) / 1024, processes: pids.length };
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  codes: string;
}

function summarise(r: autocannon.Result): Load {
  const codes = Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => `${code}: ${s.count}`).join(', ');
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, codes: r.errors ? `${codes}, errors: ${r.errors}` : codes };
}

/** Runs autocannon with requests taken in turn from `bodies`. */
function load(url: string, opts: { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; bodies?: () => string; connections: number; seconds: number; rate?: number }): Promise<autocannon.Result> {
  return autocannon({
    url: `${url}${opts.path}`,
    connections: opts.connections,
    duration: opts.seconds,
    overallRate: opts.rate,
    requests: [{
      method: opts.method ?? 'GET',
      headers: opts.headers,
      ...(opts.bodies && { setupRequest: (req: autocannon.Request) => ({ ...req, body: opts.bodies!() }) }),
    }],
  });
}

const rand = seededRandom(2026);
const graph = loadGraph(DEFAULT_GRAPH_PATH);
const square = (lat: number, lon: number, d: number) => [
  { latitude: lat, longitude: lon }, { latitude: lat, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon },
];
const zoneBodies = [0, 1].map((i) => ({ name: `z${i}`, geometries: [{ vertices: square(57.68 + rand() * 0.04, 11.92 + rand() * 0.08, 0.005) }] }));
const zones = zoneBodies.map((z) => calculateZone(graph, validateZone(z)));
const router = new Router(graph);
const tripBodies: string[] = [];
while (tripBodies.length < 300) {
  const a = Math.floor(rand() * graph.nodeCount), b = Math.floor(rand() * graph.nodeCount);
  const points = [a, b].map((n) => ({ latitude: graph.nodeLatitude(n), longitude: graph.nodeLongitude(n) }));
  try {
    router.route({ points, zones });
    tripBodies.push(JSON.stringify({ points, restrictionZones: ['z0', 'z1'] }));
  } catch {
    // unroutable pair: skip
  }
}
let nextTrip = 0;
const tripBody = () => tripBodies[nextTrip++ % tripBodies.length];
let inserted = 0;
const insertBody = () => JSON.stringify({ name: `insert ${inserted++}`, geometries: [{ vertices: square(57.68 + rand() * 0.04, 11.92 + rand() * 0.08, 0.005) }] });

/** The direct children of a process (the workers of a primary), from /proc. */
function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').map(Number).filter((n) => n > 0);
}

/** CPU seconds used so far by the service's processes (the primary and its workers), from /proc. */
function serviceCpuSeconds(pid: number): number {
  const pids = [pid, ...childPids(pid)];
  let ticks = 0;
  for (const p of pids) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // a process that just ended
    }
  }
  return ticks / 100; // USER_HZ
}

/** A service under test: its URL, the headers of an authorised client, and its credentials. */
interface Subject {
  workers: number;
  /** `--workers N` as the rows name it, with how the workers are made. */
  label: string;
  running: Running;
  dir: string;
  headers: Record<string, string>;
  clientId: string;
  clientSecret: string;
  /** A peer of --workers 1 (its own V8 flags), left out of the workers' targets. */
  peer: boolean;
}

/** `nodeOptions`: the service's NODE_OPTIONS (a peer run with V8 flags of its own). */
async function startSubject(workers: number, mode?: WorkerMode, nodeOptions?: string): Promise<Subject> {
  const dir = mkdtempSync(join(tmpdir(), 'detour-load-'));
  const store = new SqliteStore(join(dir, 'detour.sqlite'));
  const { client, clientSecret } = await registerClient(store, { applicationName: 'load' });
  await store.close();
  const running = await serve(dir, workers, mode, nodeOptions);
  const tokenRes = await fetch(`${running.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: client.clientId, client_secret: clientSecret }) });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}`, clientid: client.clientId, 'content-type': 'application/json' };
  for (const z of zoneBodies) {
    const res = await fetch(`${running.url}/restriction/v1/restrictionZones`, { method: 'POST', headers, body: JSON.stringify(z) });
    if (res.status !== 201) throw new Error(`zone insert: ${res.status} ${await res.text()}`);
  }
  const label = `--workers ${workers}${mode ? ` (${mode === 'threads' ? 'service threads' : 'processes'})` : ''}${nodeOptions ? ` with NODE_OPTIONS=${nodeOptions}` : ''}`;
  return { workers, label, running, dir, headers, clientId: client.clientId, clientSecret, peer: nodeOptions !== undefined };
}

/** A trip run with the service's CPU time per request (ms) and the load generator's share of a core. */
interface TripRun extends Load {
  cpuMsPerRequest: number;
  /** CPU seconds the service's processes got per second of the run: what the machine gave it. */
  serviceCores: number;
  generatorCores: number;
}

async function tripRun(subject: Subject, connections: number, seconds = SECONDS): Promise<TripRun> {
  const cpu0 = serviceCpuSeconds(subject.running.child.pid!);
  const own0 = process.cpuUsage();
  const wall0 = performance.now();
  const result = await load(subject.running.url, { path: '/trip/v2/calculations', method: 'POST', headers: subject.headers, bodies: tripBody, connections, seconds });
  const own = process.cpuUsage(own0);
  const wall = (performance.now() - wall0) / 1000;
  const cpu = serviceCpuSeconds(subject.running.child.pid!) - cpu0;
  return { ...summarise(result), cpuMsPerRequest: (cpu * 1000) / Math.max(1, result.requests.total), serviceCores: cpu / wall, generatorCores: (own.user + own.system) / 1e6 / wall };
}

const medianBy = <T>(runs: T[], key: (t: T) => number): T => [...runs].sort((a, b) => key(a) - key(b))[runs.length >> 1];

const started = new Date();
const loadBefore = loadavg()[0];
// Two workers as serve makes them here, and as processes too where it makes service threads.
// And --workers 1 with the young generation V8 would size itself (serve leaves an operator's semi-space size alone).
const subjects = [
  await startSubject(1), await startSubject(2, configFromEnv({}).workerMode), ...(configFromEnv({}).workerMode === 'threads' ? [await startSubject(2, 'processes')] : []),
  await startSubject(1, undefined, `${SEMI_SPACE_FLAG}=${PEER_SEMI_SPACE_MIB}`),
];
const results: { trips20: TripRun[]; trips100?: TripRun; inserts?: Load; memory?: { total: number; processes: number } }[] = subjects.map(() => ({ trips20: [] }));
let flood: { before: TripRun; healthBefore: Load; trips: TripRun; health: Load; tokens: Load } | undefined;
try {
  for (const s of subjects) await tripRun(s, 20, 3); // warm-up: JIT, zone caches, connections
  // Rounds alternate the two services so both see the same background load on a shared machine.
  for (let round = 0; round < ROUNDS; round++) for (const [i, s] of subjects.entries()) results[i].trips20.push(await tripRun(s, 20));
  for (const [i, s] of subjects.entries()) {
    results[i].trips100 = await tripRun(s, 100);
    results[i].memory = residentMb(s.running.child.pid!);
  }
  for (const [i, s] of subjects.entries()) {
    results[i].inserts = summarise(await load(s.running.url, { path: '/restriction/v1/restrictionZones', method: 'POST', headers: s.headers, bodies: insertBody, connections: 10, seconds: Math.max(3, SECONDS / 2) }));
  }
  // The token flood on --workers 1 (serve's default on two cores): trips alone, then trips with the flood and /health sampled.
  const s = subjects[0];
  let attempt = 0;
  const tokenBody = () => new URLSearchParams({ client_id: s.clientId, client_secret: attempt++ % 2 === 0 ? s.clientSecret : `wrong-${attempt}` }).toString();
  const healthLoad = () => load(s.running.url, { path: '/health', connections: 1, seconds: SECONDS, rate: 20 });
  const [before, healthBefore] = await Promise.all([tripRun(s, 20), healthLoad()]);
  const [trips, health, tokens] = await Promise.all([
    tripRun(s, 20),
    healthLoad(),
    load(s.running.url, { path: TOKEN_PATH, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, bodies: tokenBody, connections: 100, seconds: SECONDS, rate: 20 }), // enough connections that slow answers do not lower the offered rate
  ]);
  flood = { before, healthBefore: summarise(healthBefore), trips, health: summarise(health), tokens: summarise(tokens) };
} finally {
  for (const s of subjects) {
    await stop(s.running);
    rmSync(s.dir, { recursive: true, force: true });
  }
}
const loadAfter = loadavg()[0];

const summaries = results.map((r, i) => ({ ...r, label: subjects[i].label, median20: medianBy(r.trips20, (t) => t.rps) }));
const [one, two] = summaries;
const ms = (v: number) => `${v.toFixed(1)} ms`;
const row = (label: string, l: Load & Partial<TripRun>) =>
  `| ${label} | ${l.rps.toFixed(0)} | ${ms(l.p50)} | ${ms(l.p99)} | ${l.cpuMsPerRequest === undefined ? '' : `${l.cpuMsPerRequest.toFixed(2)} ms`} | ${l.serviceCores === undefined ? '' : l.serviceCores.toFixed(2)} | ${l.generatorCores === undefined ? '' : l.generatorCores.toFixed(2)} | ${l.codes} |`;
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
// The median of the ratios of adjacent rounds: each pair ran under nearly the same background load.
const ratiosOf = (other: typeof one) => one.trips20.map((t, i) => other.trips20[i].rps / t.rps);
const peer = summaries[subjects.findIndex((x) => x.peer)];
const peerRatios = one.trips20.map((t, i) => t.rps / peer.trips20[i].rps);
const peerRatio = medianBy(peerRatios, (r) => r);
const lines = [
  SECTION,
  '',
  `\`npm run bench:service\` (builds, then \`node --import tsx bench/serviceLoad.ts\`; ${SECONDS} s per run, BENCH_SECONDS to change) on ${started.toISOString().slice(0, 10)},`,
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), 1-minute load average ${loadBefore.toFixed(1)} before and ${loadAfter.toFixed(1)} after`,
  '(other work on the machine competes with the service and autocannon alike). The built `detour serve` (SQLite, default city,',
  'LOG_LEVEL=info to a file) and autocannon, in this process, share the machine. Trips: 300 random routable pairs around two',
  `500 m zones, polyline output, one token, keep-alive connections. The 20-connection trips are ${ROUNDS} rounds alternating`,
  `${subjects.map((x) => x.label).join(', ')} (the median round shown); "service CPU" is the CPU time of all its processes per request, "service`,
  '(cores)" the CPU seconds they got per second (what the machine gave them), "generator" the cores autocannon\'s process used.',
  '',
  '| run | req/s | p50 | p99 | service CPU / request | service (cores) | generator (cores) | status codes |',
  '|---|---|---|---|---|---|---|---|',
  ...summaries.map((x) => row(`trips, 20 connections, ${x.label}`, x.median20)),
  ...summaries.map((x) => row(`trips, 100 connections, ${x.label}`, x.trips100!)),
  ...summaries.map((x) => row(`zone inserts (500 m squares), 10 connections, ${x.label}`, x.inserts!)),
  row('trips, 20 connections, --workers 1, just before the token flood', flood!.before),
  row('GET /health at 20/s beside those trips, no token flood', flood!.healthBefore),
  row('trips, 20 connections, --workers 1, during the token flood', flood!.trips),
  row('GET /health at 20/s during the token flood', flood!.health),
  row('token flood: 20 requests/s, right and wrong secrets in turn', flood!.tokens),
  '',
  `Rounds at 20 connections, req/s (service cores): ${summaries.map((x) => `${x.label} ${x.trips20.map((t) => `${t.rps.toFixed(0)} (${t.serviceCores.toFixed(2)})`).join(', ')}`).join('; ')}.`,
  '',
  'Reading the figures: each worker calculates trips on its trip thread (one per worker here, the default on two',
  'cores) while its event loop reads, authenticates, stores and answers, so one worker keeps more than a core busy',
  '("service (cores)"); two workers run four busy threads on two cores, and a trip costs more CPU there ("service CPU /',
  'request"): on this machine the 1.6x target of two workers is not what to aim for, and `serve` starts one worker per',
  'two cores. The token flood costs what one token request costs (scrypt N=2^15, about',
  '50 ms of CPU) times its rate; scrypt runs on threads of its own at nice 10 (src/service/scryptThreads.ts), so on a',
  'busy machine it takes the CPU the trips leave. The status codes of the flood row show how many were verified',
  '(200, 401) and how many were turned away cheaply (429, 503).',
  '',
  `Memory (resident, after the trip runs): ${summaries.map((x) => `${x.label} ${x.memory!.total.toFixed(0)} MB in ${x.memory!.processes} process${x.memory!.processes > 1 ? 'es' : ''}`).join('; ')}. ` +
    'Worker processes are a primary without the graph plus one whole service per worker, each with its own copy of the graph (a country graph costs N times its size); service threads share the process\'s one copy (docs/SERVICE.md, "Running on every core").',
  '',
  `V8's young generation: \`serve\` holds each semi-space at ${SEMI_SPACE_MIB} MiB (src/service/processTuning.ts); the last subject sets ${PEER_SEMI_SPACE_MIB} MiB itself, what Node 24 grows to on this machine (Node 20 and 22 stop at ${SEMI_SPACE_MIB}). ` +
    `--workers 1 at 20 connections: ${(peerRatio * 100).toFixed(0)} % of the peer's trips per second (median of the rounds' ratios ${peerRatios.map((r) => r.toFixed(2)).join(', ')}), ` +
    `resident ${one.memory!.total.toFixed(0)} MB against ${peer.memory!.total.toFixed(0)} MB after 100 connections.`,
  '',
  '| target (issue 8) | measured | |',
  '|---|---|---|',
  ...summaries.slice(1).filter((x, i) => !subjects[i + 1].peer).map((x) => {
    const ratios = ratiosOf(x), median = medianBy(ratios, (r) => r);
    return `| trips, 20 connections: ${x.label} >= 1.6x --workers 1 | ${median.toFixed(2)}x (median of the rounds' ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}) | ${verdict(median >= 1.6)} |`;
  }),
  `| trips, 20 connections, ${two.label}: p99 <= 30 ms | ${ms(two.median20.p99)} | ${verdict(two.median20.p99 <= 30)} |`,
  `| trips, 100 connections, ${two.label}: p99 <= 150 ms | ${ms(two.trips100!.p99)} | ${verdict(two.trips100!.p99 <= 150)} |`,
  `| during the token flood: trips >= 80 % of their rate without it | ${((flood!.trips.rps / flood!.before.rps) * 100).toFixed(0)} % (${flood!.trips.rps.toFixed(0)} vs ${flood!.before.rps.toFixed(0)} req/s) | ${verdict(flood!.trips.rps >= 0.8 * flood!.before.rps)} |`,
  `| during the token flood: /health p99 <= 50 ms | ${ms(flood!.health.p99)} | ${verdict(flood!.health.p99 <= 50)} |`,
  '',
];

const section = lines.join('\n');
updateResults(undefined, [section]);
console.log(section);

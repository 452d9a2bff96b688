/**
 * What routing threads and service threads cost a service in memory: starts the built CLI
 * (dist/src/cli.js, or BENCH_CLI's) as `detour serve --graph <scale graph> --workers W
 * --trip-threads T` for each configuration, with the default vehicle class prepared, waits until
 * every trip thread routes on it (/health vehicleClasses, asked over fresh connections so every
 * worker answers), sends 4 x W x T trips across the country at once (every thread's search state
 * in use), and reads the resident memory of the process tree. Configurations are W x T, with a
 * `p` for worker processes instead of service threads (`--worker-mode processes`). Issue 39's
 * targets: 8 routing threads at most 1.3x the memory of 1, on the 1M country; workers sharing one
 * graph. Writes its section of bench/RESULTS.md (unless --no-write).
 *
 *   npm run bench:trip-threads-memory -- --size 1m --configs 1x1,1x8,4x1,4x1p
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { updateResults } from './results.js';
import { parseSizes, scaleGraph } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';

const { values: opts } = parseArgs({
  options: {
    size: { type: 'string', default: '1m' },
    configs: { type: 'string', default: '1x1,1x8' },
    'no-write': { type: 'boolean', default: false },
  },
});
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
const [size] = parseSizes(opts.size!);
interface Config { workers: number; threads: number; processes: boolean; label: string }
const configs: Config[] = opts.configs!.split(',').map((label) => {
  const m = /^(\d+)x(\d+)(p?)$/.exec(label.trim());
  if (!m) throw new Error(`--configs takes workers x trip threads, e.g. 1x8 or 4x1p (processes), got ${JSON.stringify(label)}`);
  return { workers: Number(m[1]), threads: Number(m[2]), processes: m[3] === 'p', label: label.trim() };
});

const { graph, path } = await scaleGraph(size, log);
const rand = seededRandom(31);
const node = () => Math.floor(rand() * graph.nodeCount);
const stops = Array.from({ length: 64 }, () => [node(), node()].map((v) => ({ latitude: graph.nodeLatitude(v), longitude: graph.nodeLongitude(v) })));
const nodes = graph.nodeCount;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
/** The resident memory of a process and its descendants (a cluster's workers). */
function rssOfTree(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch { /* gone */ }
  }
  let total = 0;
  const visit = (p: number) => {
    try { total += rssOf(p); } catch { /* gone */ }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return total;
}
/** GET on a connection of its own, so consecutive requests reach different workers. */
function freshGet(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false, headers: { connection: 'close' }, timeout: 1000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => {
        try { resolve(JSON.parse(text)); } catch (err) { reject(err); }
      });
    });
    req.on('error', reject).on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run { config: Config; readyMs: number; classesMs: number; rssClasses: number; rssTrips: number; trips: number }

async function run(config: Config, port: number): Promise<Run> {
  const { workers, threads } = config;
  const dataDir = mkdtempSync(join(tmpdir(), 'detour-threads-'));
  const added = spawnSync(process.execPath, [CLI, 'clients', 'add', '--name', 'bench', '--json', '--data-dir', dataDir], { encoding: 'utf8' });
  const { client_id: id, client_secret: secret } = JSON.parse(added.stdout) as { client_id: string; client_secret: string };
  const started = performance.now();
  const mode = workers > 1 ? ['--worker-mode', config.processes ? 'processes' : 'threads'] : [];
  const child = spawn(process.execPath, [CLI, 'serve', '--graph', path, '--port', String(port), '--workers', String(workers), ...mode, '--trip-threads', String(threads), '--data-dir', dataDir, '--log-level', 'warn'], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  try {
    let readyMs = NaN, classesMs = NaN;
    // Ready, every thread started and routing the vehicle class on its own router: at most 10 minutes.
    while (Number.isNaN(classesMs) && performance.now() - started < 600_000) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
      try {
        // Every worker: as many fresh connections as 4 per worker (connections spread over them).
        const answers = await Promise.all(Array.from({ length: 4 * workers }, () => freshGet(`${base}/health`))) as Array<{ status?: string; tripThreads?: string; vehicleClasses?: string }>;
        if (answers[0].status === 'ok' && Number.isNaN(readyMs)) readyMs = performance.now() - started;
        const ready = (health: typeof answers[number]) => {
          const [adopted, configured] = (health.vehicleClasses ?? '0/1').split('/').map(Number);
          const [running, most] = (health.tripThreads ?? '0/1').split('/').map(Number);
          return health.status === 'ok' && adopted === configured && running === most;
        };
        if (answers.every(ready)) classesMs = performance.now() - started;
      } catch { /* not listening yet */ }
      if (Number.isNaN(classesMs)) await sleep(500);
    }
    if (Number.isNaN(classesMs)) throw new Error(`${config.label}: the vehicle class was not ready after 10 minutes`);
    const rssClasses = rssOfTree(child.pid!);
    const token = await (await fetch(`${base}/oauth/client_credential/accesstoken?grant_type=client_credentials`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${id}&client_secret=${secret}`,
    })).json() as { access_token: string };
    let trips = 0;
    const trip = async (k: number) => {
      const res = await fetch(`${base}/trip/v2/calculations`, {
        method: 'POST', headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ points: stops[k % stops.length], ...(k % 2 === 1 && { vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }) }),
      });
      await res.text();
      if (res.ok) trips++;
    };
    const atOnce = 4 * workers * threads;
    for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: atOnce }, (_, k) => trip(k + round * atOnce)));
    await sleep(5_000);
    return { config, readyMs, classesMs, rssClasses, rssTrips: rssOfTree(child.pid!), trips };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: Run[] = [];
for (const [i, config] of configs.entries()) {
  const one = await run(config, 18_800 + i);
  results.push(one);
  log(`${config.label}: ready ${(one.readyMs / 1000).toFixed(1)} s, class ready ${(one.classesMs / 1000).toFixed(1)} s, RSS ${(one.rssClasses / 2 ** 30).toFixed(2)} GiB, after ${one.trips} trips ${(one.rssTrips / 2 ** 30).toFixed(2)} GiB`);
}
const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
const first = results[0];
const describe = (c: Config) => c.workers === 1 ? '1 (one process)' : `${c.workers} ${c.processes ? 'processes' : 'service threads'}`;
const rows = results.map((r) => `| ${describe(r.config)} | ${r.config.threads} | ${(r.readyMs / 1000).toFixed(1)} s | ${(r.classesMs / 1000).toFixed(1)} s | ${gib(r.rssClasses)} | ${gib(r.rssTrips)} (${r.trips} trips) | ${(r.rssTrips / first.rssTrips).toFixed(2)}x |`);
const mostThreads = results.filter((r) => r.config.workers === 1).at(-1)!;
const ratio = mostThreads.rssTrips / first.rssTrips;
const section = [
  `## Service memory by trip threads and workers: synthetic country ${size.key}`,
  '',
  `\`npm run bench:trip-threads-memory -- --size ${size.key} --configs ${opts.configs}\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus()[0]?.model ?? ''} (${cpus().length} cores). ${nodes.toLocaleString('en')} nodes. \`detour serve --graph <file> --workers W --trip-threads T\` (SQLite, the default vehicle class TRUCK_WITH_TWO_DOUBLE_AXLES prepared; W over 1: service threads of one process, or worker processes): resident memory of the process and its children once every trip thread routes the class on its own router (/health vehicleClasses, asked of every worker), then after 4 x W x T trips across the country at once, twice (car and truck in turn), and 5 s.`,
  '',
  '| workers | trip threads each | /health ok after | class ready everywhere after | resident then | resident after the trips | vs the first row |',
  '|---|---|---|---|---|---|---|',
  ...rows,
  '',
  `Target of issue 39 (${mostThreads.config.threads} routing threads at most 1.3x the memory of ${first.config.threads}, on the 1M country): ${ratio <= 1.3 ? 'met' : 'missed'} (${ratio.toFixed(2)}x).`,
  ...results.filter((r) => r.config.workers > 1 && !r.config.processes).flatMap((t) => {
    const p = results.find((r) => r.config.processes && r.config.workers === t.config.workers && r.config.threads === t.config.threads);
    return p ? [`${t.config.workers} workers: service threads sharing the process's graph ${gib(t.rssTrips)}, worker processes with a graph each ${gib(p.rssTrips)} (${(t.rssTrips / p.rssTrips).toFixed(2)} of it); each service thread beyond the first adds ${gib((t.rssTrips - first.rssTrips) / (t.config.workers - 1))} with its trip threads.`] : [];
  }),
].join('\n');
console.log(section);
if (!opts['no-write']) updateResults(undefined, [section]);

/**
 * What a trip thread costs a service in memory: starts the built CLI (dist/src/cli.js, or
 * BENCH_CLI's) as `detour serve --graph <scale graph> --workers 1 --trip-threads N` for each N,
 * with the default vehicle class prepared, waits until every thread routes on it (/health
 * vehicleClasses), sends 4 x N trips across the country at once (every thread's search state in
 * use), and reads the resident memory. Issue 39's target: 8 routing threads at most 1.3x the
 * memory of 1, on the 1M country. Writes its section of bench/RESULTS.md (unless --no-write).
 *
 *   npm run bench:trip-threads-memory -- --size 1m --threads 1,8
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
    threads: { type: 'string', default: '1,8' },
    'no-write': { type: 'boolean', default: false },
  },
});
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
const [size] = parseSizes(opts.size!);
const counts = opts.threads!.split(',').map(Number);

const { graph, path } = await scaleGraph(size, log);
const rand = seededRandom(31);
const node = () => Math.floor(rand() * graph.nodeCount);
const stops = Array.from({ length: 64 }, () => [node(), node()].map((v) => ({ latitude: graph.nodeLatitude(v), longitude: graph.nodeLongitude(v) })));
const nodes = graph.nodeCount;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run { threads: number; readyMs: number; classesMs: number; rssClasses: number; rssTrips: number; trips: number }

async function run(threads: number, port: number): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'detour-threads-'));
  const added = spawnSync(process.execPath, [CLI, 'clients', 'add', '--name', 'bench', '--json', '--data-dir', dataDir], { encoding: 'utf8' });
  const { client_id: id, client_secret: secret } = JSON.parse(added.stdout) as { client_id: string; client_secret: string };
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--graph', path, '--port', String(port), '--workers', '1', '--trip-threads', String(threads), '--data-dir', dataDir, '--log-level', 'warn'], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  try {
    let readyMs = NaN, classesMs = NaN;
    // Ready, every thread started and routing the vehicle class on its own router: at most 10 minutes.
    while (Number.isNaN(classesMs) && performance.now() - started < 600_000) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
      try {
        const health = await (await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) })).json() as { status?: string; tripThreads?: string; vehicleClasses?: string };
        if (health.status === 'ok' && Number.isNaN(readyMs)) readyMs = performance.now() - started;
        const [adopted, configured] = (health.vehicleClasses ?? '0/1').split('/').map(Number);
        const [running, most] = (health.tripThreads ?? '0/1').split('/').map(Number);
        if (health.status === 'ok' && adopted === configured && running === most) classesMs = performance.now() - started;
      } catch { /* not listening yet */ }
      if (Number.isNaN(classesMs)) await sleep(500);
    }
    if (Number.isNaN(classesMs)) throw new Error(`${threads} threads: the vehicle class was not ready after 10 minutes`);
    const rssClasses = rssOf(child.pid!);
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
    for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: 4 * threads }, (_, k) => trip(k + round * 4 * threads)));
    await sleep(5_000);
    return { threads, readyMs, classesMs, rssClasses, rssTrips: rssOf(child.pid!), trips };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: Run[] = [];
for (const [i, threads] of counts.entries()) {
  const one = await run(threads, 18_800 + i);
  results.push(one);
  log(`${threads} trip threads: ready ${(one.readyMs / 1000).toFixed(1)} s, class ready ${(one.classesMs / 1000).toFixed(1)} s, RSS ${(one.rssClasses / 2 ** 30).toFixed(2)} GiB, after ${one.trips} trips ${(one.rssTrips / 2 ** 30).toFixed(2)} GiB`);
}
const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
const first = results[0];
const rows = results.map((r) => `| ${r.threads} | ${(r.readyMs / 1000).toFixed(1)} s | ${(r.classesMs / 1000).toFixed(1)} s | ${gib(r.rssClasses)} | ${gib(r.rssTrips)} (${r.trips} trips) | ${(r.rssTrips / first.rssTrips).toFixed(2)}x |`);
const most = results[results.length - 1];
const ratio = most.rssTrips / first.rssTrips;
const section = [
  `## Service memory by trip threads: synthetic country ${size.key}`,
  '',
  `\`npm run bench:trip-threads-memory -- --size ${size.key} --threads ${opts.threads}\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus()[0]?.model ?? ''} (${cpus().length} cores). ${nodes.toLocaleString('en')} nodes. \`detour serve --graph <file> --workers 1 --trip-threads N\` (SQLite, the default vehicle class ${'TRUCK_WITH_TWO_DOUBLE_AXLES'} prepared): resident memory once every thread routes the class on its own router (/health vehicleClasses), then after 4 x N trips across the country at once, twice (car and truck in turn), and 5 s.`,
  '',
  '| trip threads | /health ok after | class ready on every thread after | resident then | resident after the trips | vs the first row |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  `Target of issue 39 (${most.threads} routing threads at most 1.3x the memory of ${first.threads}, on the 1M country): ${ratio <= 1.3 ? 'met' : 'missed'} (${ratio.toFixed(2)}x).`,
].join('\n');
console.log(section);
if (!opts['no-write']) updateResults(undefined, [section]);

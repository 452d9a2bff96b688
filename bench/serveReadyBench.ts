/**
 * How soon `detour serve` answers on a big graph: starts the built CLI (dist/src/cli.js) on
 * a scale graph's file (bench/.cache, made by scaleGraphs.ts; the script compiles dist first) and polls GET /health until it says
 * ok, then times the first trip (a token, then POST /trip/v2/calculations) and a matrix around
 * ten zones, and reads the process's resident memory after each and once the vehicle classes are
 * ready. The peers, in the same run: the same graph saved without its search indexes (what serve
 * had to build at start before graph files carried them), and the file served with no vehicle
 * class prepared (issue 38's routes and matrices ready). Runs alternate; medians are reported. Writes its own section of bench/RESULTS.md (unless --no-write).
 *
 *   npm run bench:serve-ready -- --size 5m --runs 3
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RoadGraph } from '../src/graph/RoadGraph.js';
import { saveGraph } from '../src/hierarchy/graphFiles.js';
import { withHierarchy } from '../src/hierarchy/hierarchySections.js';
import { MMAP_THRESHOLD_ENV, SEMI_SPACE_FLAG, SEMI_SPACE_MIB } from '../src/service/processTuning.js';
import { updateResults } from './results.js';
import { parseSizes, scaleGraph } from './scaleGraphs.js';

const { values: opts } = parseArgs({
  options: {
    size: { type: 'string', default: '5m' },
    runs: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
  },
});
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
if (!existsSync(CLI)) throw new Error('run npm run build first (this bench starts dist/src/cli.js)');
const [size] = parseSizes(opts.size!);
const runs = Number(opts.runs);

/** The file, its sizes, a stop pair, and the same graph saved without its indexes; the graph is then let go. */
async function prepare() {
  const { graph, path } = await scaleGraph(size, log);
  if (!graph.indexes.snapRoadBits || !graph.indexes.roadTree) throw new Error(`${path} carries no search indexes: remove it so scaleGraphs.ts makes it again`);
  const nodes = graph.nodeCount, edges = graph.edgeCount;
  const at = (share: number) => { const v = Math.floor(nodes * share); return { latitude: graph.nodeLatitude(v), longitude: graph.nodeLongitude(v) }; };
  // A stop pair for the trips: two nodes far apart in the node order (different tiles).
  const stops = [at(0.37), at(0.61)];
  // The matrix's 20 sites and its ten zones (squares about 4 km across), spread over the node order likewise.
  const sites = Array.from({ length: 20 }, (_, i) => ({ siteId: `s${i}`, ...at(0.05 + 0.045 * i) }));
  const zones = Array.from({ length: 10 }, (_, i) => {
    const c = at(0.1 + 0.08 * i), d = 0.02;
    return { name: `z${i}`, geometries: [{ vertices: [[-d, -d], [-d, d], [d, d], [d, -d]].map(([y, x]) => ({ latitude: c.latitude + y, longitude: c.longitude + x })) }] };
  });
  const bare = `${path}.no-indexes.detour`;
  if (!existsSync(bare)) {
    log(`saving ${bare} (the same graph without its search indexes)`);
    saveGraph(withHierarchy(new RoadGraph(graph.arrays(), graph.meta), graph.hierarchy), bare);
  }
  return { path, bare, nodes, edges, stops, sites, zones };
}
const { path, bare, nodes, edges, stops, sites, zones } = await prepare();
// This process holds no graph while the services start (2 cores: nothing else should run).
(globalThis as { gc?: () => void }).gc?.();

interface Run { tuned: boolean; readyMs: number; rssReady: number; tokenMs: number; firstTripMs: number; secondTripMs: number; matrixMs: number; rssMatrix: number; rssLater: number; classesMs: number; rssClasses: number }

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(file: string, port: number, prepareVehicles?: string): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'detour-ready-'));
  const added = spawnSync(process.execPath, [CLI, 'clients', 'add', '--name', 'bench', '--json', '--data-dir', dataDir], { encoding: 'utf8' });
  const { client_id: id, client_secret: secret } = JSON.parse(added.stdout) as { client_id: string; client_secret: string };
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--graph', file, '--port', String(port), '--workers', '1', '--data-dir', dataDir, '--log-level', 'warn', ...(prepareVehicles ? ['--prepare-vehicles', prepareVehicles] : [])], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  try {
    let readyMs = NaN;
    while (Number.isNaN(readyMs)) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
      try {
        const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) });
        if (res.ok && (await res.json() as { status?: string }).status === 'ok') readyMs = performance.now() - started;
      } catch { /* not listening yet */ }
      if (Number.isNaN(readyMs)) await sleep(50);
    }
    const rssReady = rssOf(child.pid!);
    // Whether the process runs with serve's settings (src/service/processTuning.ts): set by serve itself on Node 22.15+.
    const tuned = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0').some((v) => v.startsWith(`${MMAP_THRESHOLD_ENV}=`))
      && readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').includes(`${SEMI_SPACE_FLAG}=${SEMI_SPACE_MIB}`);
    let t = performance.now();
    const token = await (await fetch(`${base}/oauth/client_credential/accesstoken?grant_type=client_credentials`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${id}&client_secret=${secret}`,
    })).json() as { access_token: string };
    const tokenMs = performance.now() - t;
    const trip = async () => {
      const started = performance.now();
      const res = await fetch(`${base}/trip/v2/calculations`, {
        method: 'POST', headers: { authorization: `Bearer ${token.access_token}`, clientId: id, 'content-type': 'application/json' },
        body: JSON.stringify({ points: stops.map((p, i) => ({ siteId: String(i), ...p })) }),
      });
      const body = await res.text();
      if (!res.ok) throw new Error(`trip: ${res.status} ${body}`);
      return performance.now() - started;
    };
    const firstTripMs = await trip();
    const secondTripMs = await trip();
    // Routes and matrices ready: ten zones, then a 20 x 20 matrix around them (the matrix worker's arrays made, the zones customized).
    const headers = { authorization: `Bearer ${token.access_token}`, clientId: id, 'content-type': 'application/json' };
    for (const zone of zones) {
      const res = await fetch(`${base}/restriction/v1/restrictionZones`, { method: 'POST', headers, body: JSON.stringify(zone) });
      if (!res.ok) throw new Error(`zone: ${res.status} ${await res.text()}`);
    }
    t = performance.now();
    const matrix = await fetch(`${base}/matrix/v1/calculations`, { method: 'POST', headers, body: JSON.stringify({ origins: sites, destinations: sites, restrictionZones: zones.map((z) => z.name) }) });
    if (!matrix.ok) throw new Error(`matrix: ${matrix.status} ${await matrix.text()}`);
    await matrix.arrayBuffer();
    const matrixMs = performance.now() - t;
    const rssMatrix = rssOf(child.pid!);
    // Once the service has settled (zones warmed up, the matrix worker started).
    await sleep(45_000);
    const rssLater = rssOf(child.pid!);
    // Then until every trip thread and the matrix worker have taken the vehicle classes (/health vehicleClasses and matrixVehicleClasses "n/n"), at most 10 minutes.
    let classesMs = NaN;
    while (Number.isNaN(classesMs) && performance.now() - started < 600_000) {
      const health = await (await fetch(`${base}/health`)).json() as { vehicleClasses?: string; matrixVehicleClasses?: string };
      const taken = (field: string | undefined) => { const [adopted, configured] = (field ?? '0/0').split('/').map(Number); return adopted === configured; };
      if (taken(health.vehicleClasses) && taken(health.matrixVehicleClasses)) classesMs = performance.now() - started;
      else await sleep(1000);
    }
    return { tuned, readyMs, rssReady, tokenMs, firstTripMs, secondTripMs, matrixMs, rssMatrix, rssLater, classesMs, rssClasses: rssOf(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const files = [
  { label: 'graph file with the search indexes', file: path },
  { label: 'the same without them (built at start)', file: bare },
  { label: 'the file with the indexes, no vehicle class prepared (`--prepare-vehicles none`)', file: path, prepareVehicles: 'none' },
];
const results = files.map(() => [] as Run[]);
for (let r = 0; r < runs; r++) {
  for (let f = 0; f < files.length; f++) {
    const one = await run(files[f].file, 18_700 + r * files.length + f, files[f].prepareVehicles);
    results[f].push(one);
    log(`${files[f].label}: ready ${one.readyMs.toFixed(0)} ms, token ${one.tokenMs.toFixed(0)} ms, trips ${one.firstTripMs.toFixed(0)} / ${one.secondTripMs.toFixed(0)} ms, matrix ${one.matrixMs.toFixed(0)} ms: ${(one.rssMatrix / 2 ** 30).toFixed(2)} GiB, RSS ${(one.rssReady / 2 ** 30).toFixed(2)} / ${(one.rssLater / 2 ** 30).toFixed(2)} GiB, classes after ${one.classesMs.toFixed(0)} ms: ${(one.rssClasses / 2 ** 30).toFixed(2)} GiB`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
const rows = files.map(({ label, file, prepareVehicles }, f) => {
  const m = (k: Exclude<keyof Run, 'tuned'>) => median(results[f].map((x) => x[k]));
  return `| ${label} | ${gib(Number(spawnSync('stat', ['-c', '%s', file], { encoding: 'utf8' }).stdout))} | ${s(m('readyMs'))} | ${m('tokenMs').toFixed(0)} ms | ${m('firstTripMs').toFixed(0)} / ${m('secondTripMs').toFixed(0)} ms | ${gib(m('rssReady'))} | ${m('matrixMs').toFixed(0)} ms: ${gib(m('rssMatrix'))} | ${gib(m('rssLater'))} | ${prepareVehicles === 'none' ? 'none prepared' : `${s(m('classesMs'))}: ${gib(m('rssClasses'))}`} |`;
});
const ready = median(results[0].map((x) => x.readyMs));
const allTuned = results.flat().every((r) => r.tuned), noneTuned = results.flat().every((r) => !r.tuned);
const tunedNote = allTuned
  ? `The service processes ran with serve's settings: glibc's mmap threshold fixed (${MMAP_THRESHOLD_ENV}) and V8's semi-spaces held at ${SEMI_SPACE_MIB} MiB (${SEMI_SPACE_FLAG}), set by serve itself on this Node (docs/SERVICE.md).`
  : noneTuned ? `The service processes ran without serve's settings (${MMAP_THRESHOLD_ENV}, ${SEMI_SPACE_FLAG}: serve sets them itself on Node 22.15 and later; docs/SERVICE.md).` : 'Some service processes ran with serve\'s settings and some without.';
const plainMatrix = median(results[2].map((x) => x.rssMatrix)), truckClasses = median(results[0].map((x) => x.rssClasses));
const section = [
  `## Serve readiness: synthetic country ${size.key}`,
  '',
  `\`npm run bench:serve-ready -- --size ${size.key} --runs ${runs}\` on ${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, ${cpus()[0]?.model ?? ''} (${cpus().length} cores), load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end.`,
  `${nodes.toLocaleString('en')} nodes, ${edges.toLocaleString('en')} directed edges. \`detour serve --graph <file> --workers 1\` (SQLite) started ${runs} times per file, alternating; from the spawn to the first GET /health that says ok, then a token and the same trip across the country twice (the first shows any preparation left to a request), ten zones and a 20 x 20 matrix around them (POST /matrix/v1/calculations: routes and matrices ready), then the resident memory 45 s later, and once every trip thread and the matrix worker have taken the prepared vehicle classes (\`/health\` vehicleClasses, matrixVehicleClasses). Medians. ${tunedNote}`,
  '',
  '| file | size | /health ok after | token | first / second trip | resident at ready | matrix around the zones: resident after | resident 45 s later | vehicle classes ready after: resident |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
  `Target of issue 9 (serve ready in <= 10 s on the 5M graph, no first-request stall): ${ready <= 10_000 ? 'met' : 'MISSED'} (${s(ready)}).`,
  `Target of issue 38 (a service process with routes and matrices ready: at most 1.5 GiB): without a vehicle class, after the matrix around the zones, ${gib(plainMatrix)} (${plainMatrix <= 1.5 * 2 ** 30 ? 'met' : '**missed**'}); with the default truck class once ready, ${gib(truckClasses)}.`,
].join('\n');
if (!opts['no-write']) updateResults(undefined, [section]);
console.log(section);

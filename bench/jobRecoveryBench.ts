/**
 * Jobs after a crash (issue 39: a killed instance's jobs SOLVED within 30 s of its restart):
 * starts the built `detour serve` (dist/src/cli.js, SQLite, default city, --workers 1), posts ten
 * matrix problems of 300 x 300 around two zones (the client's most unfinished jobs), kills the
 * service with SIGKILL once one of them is PROCESSING, starts it again on the same data, and polls
 * the jobs until every one is SOLVED. Reports, per round, how many were PROCESSING or ENQUEUED at
 * the kill and the seconds from the restart (the service listening again) to those PROCESSING
 * finished and to all finished. Writes
 * its section of bench/RESULTS.md (unless --no-write).
 *
 *   npm run bench:job-recovery -- --rounds 3
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import { updateResults } from './results.js';
import { seededRandom } from './seededRandom.js';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'no-write': { type: 'boolean', default: false } } });
const rounds = Number(opts.rounds);
const CLI = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const graph = loadGraph(DEFAULT_GRAPH_PATH);
const rand = seededRandom(39);
const site = (i: number) => {
  const v = Math.floor(rand() * graph.nodeCount);
  return { siteId: `s${i}`, latitude: graph.nodeLatitude(v), longitude: graph.nodeLongitude(v) };
};
const square = (lat: number, lon: number, d: number) => [
  { latitude: lat, longitude: lon }, { latitude: lat, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon },
];
const zones = [0, 1].map((i) => ({ name: `z${i}`, geometries: [{ vertices: square(57.68 + rand() * 0.04, 11.92 + rand() * 0.08, 0.01) }] }));

/** `detour serve` on `port` over `dataDir`, resolved once it listens. */
async function serve(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--workers', '1', '--data-dir', dataDir, '--log-level', 'warn'], {
    env: { ...process.env, DETOUR_PREPARE_VEHICLES: 'none' }, stdio: 'ignore',
  });
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(20)) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch { /* not listening yet */ }
  }
  throw new Error('serve did not listen within 60 s');
}

interface Round { processing: number; enqueued: number; underWayAfterMs: number; solvedAfterMs: number; failed: number }

async function round(index: number): Promise<Round> {
  const dataDir = mkdtempSync(join(tmpdir(), 'detour-recovery-'));
  const port = 18_900 + index;
  const base = `http://127.0.0.1:${port}`;
  const added = spawnSync(process.execPath, [CLI, 'clients', 'add', '--name', 'bench', '--json', '--data-dir', dataDir], { encoding: 'utf8' });
  const { client_id: id, client_secret: secret } = JSON.parse(added.stdout) as { client_id: string; client_secret: string };
  let child = await serve(dataDir, port);
  try {
    const token = async () => {
      const res = await fetch(`${base}/oauth/client_credential/accesstoken?grant_type=client_credentials`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${id}&client_secret=${secret}` });
      return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}`, clientid: id, 'content-type': 'application/json' };
    };
    let headers = await token();
    for (const z of zones) {
      const res = await fetch(`${base}/restriction/v1/restrictionZones`, { method: 'POST', headers, body: JSON.stringify(z) });
      if (res.status !== 201) throw new Error(`zone: ${res.status} ${await res.text()}`);
    }
    const ids: string[] = [];
    for (let j = 0; j < 10; j++) {
      const sites = Array.from({ length: 300 }, (_, i) => site(i));
      const res = await fetch(`${base}/matrix/v1/problems`, { method: 'POST', headers, body: JSON.stringify({ origins: sites, destinations: sites, restrictionZones: ['z0', 'z1'] }) });
      if (res.status !== 202) throw new Error(`problem: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const statuses = async () => Promise.all(ids.map(async (j) => ((await (await fetch(`${base}/matrix/v1/jobs/${j}`, { headers })).json()) as { status: string }).status));
    let at: string[] = [];
    for (const started = Date.now(); Date.now() - started < 60_000; await sleep(5)) {
      at = await statuses();
      if (at.includes('PROCESSING')) break;
    }
    child.kill('SIGKILL');
    await once(child, 'exit');
    child = await serve(dataDir, port);
    const restarted = performance.now();
    headers = await token();
    const finished = (s: string) => s === 'SOLVED' || s === 'FAILED';
    let underWayAfterMs = NaN;
    for (;;) {
      const now = await statuses();
      if (Number.isNaN(underWayAfterMs) && now.every((s, k) => at[k] !== 'PROCESSING' || finished(s))) underWayAfterMs = performance.now() - restarted;
      if (now.every(finished)) {
        return { processing: at.filter((s) => s === 'PROCESSING').length, enqueued: at.filter((s) => s === 'ENQUEUED').length, underWayAfterMs, solvedAfterMs: performance.now() - restarted, failed: now.filter((s) => s === 'FAILED').length };
      }
      if (performance.now() - restarted > 300_000) throw new Error(`jobs not finished 5 minutes after the restart: ${now.join(', ')}`);
      await sleep(50);
    }
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: Round[] = [];
for (let i = 0; i < rounds; i++) {
  const r = await round(i);
  results.push(r);
  log(`round ${i + 1}: ${r.processing} PROCESSING, ${r.enqueued} ENQUEUED at the kill; those under way finished ${(r.underWayAfterMs / 1000).toFixed(1)} s and all ${(r.solvedAfterMs / 1000).toFixed(1)} s after the restart (${r.failed} FAILED)`);
}
const worst = Math.max(...results.map((r) => r.solvedAfterMs));
const section = [
  '## Jobs after a crash (default city: Gothenburg)',
  '',
  `\`npm run bench:job-recovery -- --rounds ${rounds}\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus()[0]?.model ?? ''} (${cpus().length} cores). The built \`detour serve --workers 1\` (SQLite): ten matrix problems of 300 x 300 around two zones posted, the service killed with SIGKILL once one is PROCESSING, started again on the same data (the same port: the same instance name, DETOUR_INSTANCE_ID's default); seconds from listening again to the jobs under way at the kill finished, and to every job finished (one at a time). The instance started again takes its predecessor's jobs back as it starts; any other instance would wait for their lease (15 s, renewed every 5 s while the taker lives).`,
  '',
  '| round | PROCESSING at the kill | ENQUEUED at the kill | those PROCESSING finished after the restart | all finished after the restart | FAILED |',
  '|---|---|---|---|---|---|',
  ...results.map((r, i) => `| ${i + 1} | ${r.processing} | ${r.enqueued} | ${(r.underWayAfterMs / 1000).toFixed(1)} s | ${(r.solvedAfterMs / 1000).toFixed(1)} s | ${r.failed} |`),
  '',
  `Target of issue 39 (a killed instance's jobs SOLVED within 30 s of its restart): ${worst <= 30_000 && results.every((r) => r.failed === 0) ? 'met' : '**missed**'} (at most ${(worst / 1000).toFixed(1)} s).`,
].join('\n');
console.log(section);
if (!opts['no-write']) updateResults(undefined, [section]);

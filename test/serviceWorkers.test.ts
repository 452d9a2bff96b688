import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone, vehicleOf } from '../src/index.js';
import { ZoneCalculator } from '../src/zones/ZoneCalculator.js';
import { configFromEnv, threadsCanSharePort } from '../src/service/startService.js';
import { mallocTuning, MMAP_THRESHOLD_BYTES, MMAP_THRESHOLD_ENV, SEMI_SPACE_FLAG, SEMI_SPACE_MIB, v8Tuning } from '../src/service/processTuning.js';
import { SqliteStore } from '../src/store/SqliteStore.js';
import pg from 'pg';
import { PostgresStore } from '../src/store/PostgresStore.js';
import { newClient, PG_TEST_URL, postgresSkipReason, TOKEN_PATH, TRIP_PATH, ZONES_PATH } from './support/service.js';
import { CLI, SCRIPT_NODE_ARGS, srcModule } from './support/helpers.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);
const router = new Router(graph);

interface Reply {
  status: number;
  body: any;
}

/**
 * One request on a connection of its own (no keep-alive agent), so the cluster's round-robin
 * hands consecutive requests to different workers.
 */
function freshRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, connection: 'close' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode!, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A `detour serve` child process with its combined log. */
class Served {
  log = '';
  url = '';
  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (d) => (this.log += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => (this.log += d));
  }

  /**
   * `serve --port 0 ...args`, on processes unless args say `--worker-mode threads`, with no vehicle
   * class prepared unless `env` names some (each worker process would prepare the truck; tripThreads.test covers that).
   */
  static async start(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Served> {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
      env: { ...process.env, DETOUR_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info', DETOUR_WORKERS: '', DETOUR_WORKER_MODE: 'processes', DETOUR_PREPARE_VEHICLES: 'none', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const served = new Served(child);
    await served.ready();
    return served;
  }

  /** Waits until the primary announces its address and every worker has logged its own line (processes write in any order). */
  async ready(): Promise<void> {
    const announced = await this.waitFor(/listening on (http:\/\/\S+) with (\d+) (worker processes|service threads)/);
    this.url = announced[1];
    const workers = Number(announced[2]);
    const serving = announced[3] === 'service threads' ? 'service thread \\d+ serving' : 'worker \\d+ \\(pid \\d+\\) serving';
    await this.waitFor(new RegExp(`(${serving}[\\s\\S]*){${workers}}`));
  }

  /** Waits (60 s at most) until the log matches. */
  async waitFor(pattern: RegExp, from = 0): Promise<RegExpExecArray> {
    const started = Date.now();
    for (;;) {
      const found = pattern.exec(this.log.slice(from));
      if (found) return found;
      if (this.child.exitCode !== null || Date.now() - started > 60_000) assert.fail(`no ${pattern} in the log:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The workers (process ids, or service thread numbers) that logged a completed request to `path` after log offset `from`. */
  servedBy(path: string, from: number): Set<number> {
    const servers = new Set<number>();
    const requests = new Map<string, string>();
    for (const line of this.log.slice(from).split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line);
      const key = `${entry.pid}/${entry.thread}/${entry.reqId}`;
      if (entry.req?.url) requests.set(key, entry.req.url);
      if (entry.msg === 'request completed' && requests.get(key)?.startsWith(path)) servers.add(entry.thread ?? entry.pid);
    }
    return servers;
  }

  workerPids(): number[] {
    return [...this.log.matchAll(/worker \d+ \(pid (\d+)\) serving/g)].map((m) => Number(m[1]));
  }

  /** Service threads that said they serve. */
  serviceThreads(): number[] {
    return [...this.log.matchAll(/service thread (\d+) serving/g)].map((m) => Number(m[1]));
  }

  /** Process ids of the log's entries. */
  loggingPids(): Set<number> {
    return new Set([...this.log.matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])));
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    this.child.kill(signal);
    const [code] = await once(this.child, 'exit');
    return code;
  }
}

const west = { latitude: 57.7055, longitude: 11.95, siteId: 'west' };
const east = { latitude: 57.7055, longitude: 11.985, siteId: 'east' };
const box = (south: number, west_: number, north: number, east_: number) => ({
  name: 'block',
  vertices: [
    { latitude: south, longitude: west_ }, { latitude: south, longitude: east_ },
    { latitude: north, longitude: east_ }, { latitude: north, longitude: west_ },
  ],
});
/** The distance the library gives west to east around `zone` (none: straight), in whole metres as the Trip API rounds it. */
function expectedDistance(zone?: { name: string; geometries: ReturnType<typeof box>[] }): number {
  const zones = zone ? [calculateZone(graph, validateZone(zone))] : [];
  return Math.round(router.route({ points: [west, east], calculationMode: 'THE_FASTEST', zones }).distance);
}

/** Inserts, replaces and deletes a zone through one worker; checks trips served by both workers use each state. */
async function zoneChangesReachEveryWorker(served: Served, client: { clientId: string; clientSecret: string }): Promise<void> {
  assert.equal(served.workerPids().length + served.serviceThreads().length, 2);
  assert.match(served.log, /with 2 (worker processes|service threads)/);
  const token = await freshRequest(`${served.url}${TOKEN_PATH}?grant_type=client_credentials`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret }).toString());
  assert.equal(token.status, 200);
  const headers = { authorization: `Bearer ${token.body.access_token}`, clientid: client.clientId, 'content-type': 'application/json' };
  const trip = (zones?: string[]) => freshRequest(`${served.url}${TRIP_PATH}`, 'POST', headers, JSON.stringify({ calculationMode: 'THE_FASTEST', points: [west, east], ...(zones && { restrictionZones: zones }) }));
  // Processes take connections in turn; threads as the kernel's hash of each connection spreads them: up to 40 trips.
  const tripsOnBothWorkers = async (zones: string[] | undefined, expected: { status: number; distance?: number }) => {
    const from = served.log.length;
    for (let i = 0; i < 40 && (i < 6 || served.servedBy(TRIP_PATH, from).size < 2); i++) {
      const res = await trip(zones);
      assert.equal(res.status, expected.status, JSON.stringify(res.body));
      if (expected.distance !== undefined) assert.equal(res.body.totalDistance, expected.distance);
      if (i >= 5) await new Promise((r) => setTimeout(r, 20)); // the log lines
    }
    await served.waitFor(/request completed[\s\S]*request completed/, from);
    await new Promise((r) => setTimeout(r, 200)); // the last log lines
    assert.equal(served.servedBy(TRIP_PATH, from).size, 2, 'the trips were served by both workers');
  };

  const straight = expectedDistance();
  const centrum = { name: 'Centrum', geometries: [box(57.7, 11.96, 57.71, 11.975)] };
  const aroundCentrum = expectedDistance(centrum);
  const moved = { name: 'Centrum', geometries: [box(57.7155, 11.962, 57.727, 11.972)] };
  const aroundMoved = expectedDistance(moved);
  assert.ok(new Set([straight, aroundCentrum, aroundMoved]).size === 3, 'the three geometries give three different routes');

  await tripsOnBothWorkers(undefined, { status: 201, distance: straight });
  const created = await freshRequest(`${served.url}${ZONES_PATH}`, 'POST', headers, JSON.stringify(centrum));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await tripsOnBothWorkers(['Centrum'], { status: 201, distance: aroundCentrum });
  // Both workers now hold Centrum's first revision in their caches; the replacement must reach both.
  const replaced = await freshRequest(`${served.url}${ZONES_PATH}/Centrum`, 'PUT', headers, JSON.stringify(moved));
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  await tripsOnBothWorkers(['Centrum'], { status: 201, distance: aroundMoved });
  const deleted = await freshRequest(`${served.url}${ZONES_PATH}/Centrum`, 'DELETE', { authorization: headers.authorization, clientid: client.clientId });
  assert.equal(deleted.status, 200);
  await tripsOnBothWorkers(['Centrum'], { status: 400 });
  await tripsOnBothWorkers(undefined, { status: 201, distance: straight });
}

/** zoneChangesReachEveryWorker on a service started with `args` over a PostgreSQL schema of its own; the service stops with 0. */
async function zoneChangesOnPostgres(dir: string, args: string[]): Promise<void> {
  const schema = `detour_workers_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const store = await PostgresStore.open({ connectionString: PG_TEST_URL, schema });
  let pgServed: Served | undefined;
  try {
    const pgClient = await newClient(store);
    const url = new URL(PG_TEST_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    pgServed = await Served.start(dir, [...args, '--database-url', url.toString()]);
    assert.match(pgServed.log, /store: postgres at/);
    await zoneChangesReachEveryWorker(pgServed, pgClient);
    assert.equal(await pgServed.stop(), 0);
  } finally {
    await pgServed?.stop('SIGKILL');
    await store.close();
    const admin = new pg.Client({ connectionString: PG_TEST_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

/**
 * A token request whose body arrives only after SIGTERM reached the service and `stopping` shows in
 * its log: the worker already holds it, so it must still be answered.
 */
function tokenAcrossSigterm(served: Served, client: { clientId: string; clientSecret: string }, stopping: RegExp): Promise<Reply> {
  const body = new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret }).toString();
  return new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(`${served.url}${TOKEN_PATH}?grant_type=client_credentials`, { method: 'POST', agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(async () => {
      served.child.kill('SIGTERM');
      await served.waitFor(stopping);
      req.end(body.slice(10));
    }, 500);
  });
}

describe('serve --workers', () => {
  test('DETOUR_WORKERS and DETOUR_TRIP_THREADS: by default half the cores, each with the cores its share leaves; whole numbers from 1 to 64, clear errors', () => {
    const cores = availableParallelism();
    const workers = Math.min(Math.max(1, Math.floor(cores / 2)), 64);
    assert.equal(configFromEnv({}).workers, workers);
    assert.equal(configFromEnv({}).tripThreads, Math.max(1, Math.floor(cores / workers) - 1));
    assert.equal(configFromEnv({ DETOUR_WORKERS: '1' }).tripThreads, Math.max(1, cores - 1));
    assert.equal(configFromEnv({ DETOUR_TRIP_THREADS: '6' }).tripThreads, 6);
    for (const bad of ['0', '2.5', '65']) assert.throws(() => configFromEnv({ DETOUR_TRIP_THREADS: bad }), /DETOUR_TRIP_THREADS must be a whole number of threads from 1 to 64/);
    assert.equal(configFromEnv({ DETOUR_WORKERS: '1' }).workers, 1);
    assert.equal(configFromEnv({ DETOUR_WORKERS: '3' }).workers, 3);
    for (const bad of ['0', '-2', '1.5', 'many', '65', ' ']) assert.throws(() => configFromEnv({ DETOUR_WORKERS: bad }), /DETOUR_WORKERS must be a whole number of workers from 1 to 64/);
  });

  test('DETOUR_WORKER_MODE: threads by default where threads can share a port (Linux, Node 22.12+ or 23.1+), else processes; threads asked for elsewhere is a clear error', () => {
    for (const [version, platform, can] of [['20.20.2', 'linux', false], ['22.11.0', 'linux', false], ['22.12.0', 'linux', true], ['23.0.0', 'linux', false], ['23.1.0', 'linux', true], ['24.0.0', 'linux', true], ['24.0.0', 'darwin', false]] as const) {
      assert.equal(threadsCanSharePort(version, platform), can, `${version} ${platform}`);
    }
    assert.equal(configFromEnv({}).workerMode, threadsCanSharePort() ? 'threads' : 'processes');
    assert.equal(configFromEnv({ DETOUR_WORKER_MODE: 'processes' }).workerMode, 'processes');
    assert.throws(() => configFromEnv({ DETOUR_WORKER_MODE: 'fibers' }), /DETOUR_WORKER_MODE must be threads or processes, got "fibers"/);
    if (threadsCanSharePort()) assert.equal(configFromEnv({ DETOUR_WORKER_MODE: 'threads' }).workerMode, 'threads');
    else assert.throws(() => configFromEnv({ DETOUR_WORKER_MODE: 'threads' }), /DETOUR_WORKER_MODE threads needs Linux and Node 22\.12 or later/);
  });

  let dir: string;
  let client: { clientId: string; clientSecret: string };
  let served: Served;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'detour-workers-'));
    const store = new SqliteStore(join(dir, 'detour.sqlite'));
    client = await newClient(store);
    await store.close();
    served = await Served.start(dir, ['--workers', '2']);
  });
  after(async () => {
    await served?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('two workers share the port and one SQLite file: a zone inserted, replaced or deleted through one is used by the trips on both', async () => {
    await zoneChangesReachEveryWorker(served, client);
  });

  test('the allocator\'s setting: glibc on Linux gets a fixed mmap threshold unless the environment tunes malloc; other platforms nothing', () => {
    const glibc = { platform: 'linux' as const, glibc: '2.36' };
    assert.deepEqual(mallocTuning({ PATH: '/bin' }, glibc), { [MMAP_THRESHOLD_ENV]: String(MMAP_THRESHOLD_BYTES) });
    for (const operator of [{ MALLOC_ARENA_MAX: '2' }, { MALLOC_MMAP_THRESHOLD_: '131072' }, { GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=0' }, { LD_PRELOAD: '/usr/lib/libjemalloc.so.2' }]) {
      assert.deepEqual(mallocTuning(operator, glibc), {}, JSON.stringify(operator));
    }
    assert.deepEqual(mallocTuning({}, { platform: 'linux', glibc: undefined }), {}, 'musl');
    assert.deepEqual(mallocTuning({}, { platform: 'darwin', glibc: undefined }), {});
  });

  test('V8\'s setting: the young generation\'s semi-spaces held at 16 MiB unless the process\'s flags or NODE_OPTIONS set their size', () => {
    const flag = `${SEMI_SPACE_FLAG}=${SEMI_SPACE_MIB}`;
    assert.deepEqual(v8Tuning([], {}), [flag]);
    assert.deepEqual(v8Tuning(['--enable-source-maps'], { NODE_OPTIONS: '--max-old-space-size=4096' }), [flag]);
    assert.deepEqual(v8Tuning(['--max-semi-space-size=64'], {}), []);
    assert.deepEqual(v8Tuning([], { NODE_OPTIONS: '--enable-source-maps --max_semi_space_size=8' }), []);
  });

  test('service processes start with those settings: every cluster worker, and a single process where Node can start itself again (process.execve)', async (t) => {
    if (Object.keys(mallocTuning(process.env)).length === 0) return t.skip('not Linux with glibc, or this environment tunes the allocator itself: serve adds nothing');
    if (v8Tuning(process.execArgv, process.env).length === 0) return t.skip('this process sets the semi-space size itself: serve adds nothing');
    const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const setting = `${MMAP_THRESHOLD_ENV}=${MMAP_THRESHOLD_BYTES}`, flag = `${SEMI_SPACE_FLAG}=${SEMI_SPACE_MIB}`;
    // The cluster the tests share, before any of them stops a worker.
    const running = served.workerPids().filter((pid) => existsSync(`/proc/${pid}/environ`));
    assert.ok(running.length >= 2, `workers running: ${running.join(', ')}`);
    for (const pid of running) {
      assert.ok(environ(pid).includes(setting), `worker ${pid}`);
      assert.ok(cmdline(pid).includes(flag), `worker ${pid}: ${cmdline(pid).join(' ')}`);
    }
    // A single process: the pid the supervisor started is the one that serves, with the setting where Node has execve.
    const single = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workers', '1'], {
      env: { ...process.env, DETOUR_DATA_DIR: join(dir, 'single'), DATABASE_URL: '', LOG_LEVEL: 'info', DETOUR_PREPARE_VEHICLES: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const alone = new Served(single);
    try {
      await alone.waitFor(/detour is listening on/);
      assert.equal(alone.log.match(/"pid":(\d+)/)?.[1], String(single.pid));
      const canRestart = typeof (process as { execve?: unknown }).execve === 'function';
      assert.equal(environ(single.pid!).includes(setting), canRestart, `Node ${process.version}`);
      assert.equal(cmdline(single.pid!).includes(flag), canRestart, `Node ${process.version}: ${cmdline(single.pid!).join(' ')}`);
    } finally {
      await alone.stop('SIGKILL');
    }
  });

  test('concurrent writes through both workers to one SQLite file all land (WAL, busy timeout): 40 parallel inserts, each readable afterwards', async () => {
    const token = await freshRequest(`${served.url}${TOKEN_PATH}?grant_type=client_credentials`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret }).toString());
    const headers = { authorization: `Bearer ${token.body.access_token}`, clientid: client.clientId, 'content-type': 'application/json' };
    const from = served.log.length;
    const names = Array.from({ length: 40 }, (_, i) => `parallel ${i}`);
    const replies = await Promise.all(names.map((name, i) => freshRequest(`${served.url}${ZONES_PATH}`, 'POST', headers, JSON.stringify({ name, geometries: [box(57.68 + i * 0.001, 11.9, 57.6805 + i * 0.001, 11.9005)] }))));
    assert.deepEqual(replies.map((r) => r.status), names.map(() => 201), JSON.stringify(replies.find((r) => r.status !== 201)?.body));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(served.servedBy(ZONES_PATH, from).size, 2, 'both workers wrote');
    // Read back one by one (not the list, whose paging is not this test's concern), through either worker.
    for (const name of names) {
      const read = await freshRequest(`${served.url}${ZONES_PATH}/${encodeURIComponent(name)}`, 'GET', { authorization: headers.authorization, clientid: client.clientId });
      assert.equal(read.status, 200, `${name}: ${JSON.stringify(read.body)}`);
      assert.equal(read.body.name, name);
    }
  });

  test('the same on PostgreSQL', async (t) => {
    const skip = await postgresSkipReason();
    if (skip) return t.skip(skip);
    await zoneChangesOnPostgres(dir, ['--workers', '2']);
  });

  test('a killed worker is replaced and the service keeps answering on both', async () => {
    const [victim, survivor] = served.workerPids();
    const from = served.log.length;
    process.kill(victim, 'SIGKILL');
    await served.waitFor(new RegExp(`pid ${victim}\\) exited with signal SIGKILL: starting a replacement`), from);
    const replacement = Number((await served.waitFor(/worker \d+ \(pid (\d+)\) serving/, from))[1]);
    await served.waitFor(/replaced the one that died and serves again/, from);
    assert.ok(![victim, survivor].includes(replacement));
    const served2 = served.log.length;
    for (let i = 0; i < 4; i++) assert.equal((await freshRequest(`${served.url}/health`, 'GET', {})).status, 200);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual([...served.servedBy('/health', served2)].sort(), [survivor, replacement].sort());
  });

  test('SIGTERM: a request in flight is answered, then the primary and its workers exit 0', async () => {
    const reply = tokenAcrossSigterm(served, client, /SIGTERM: worker finishing requests in flight/);
    const answered = await reply;
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.ok(answered.body.access_token);
    const [code] = served.child.exitCode !== null ? [served.child.exitCode] : await once(served.child, 'exit');
    assert.equal(code, 0, served.log);
    for (const pid of served.workerPids()) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} exited`);
  });

  test('workers that keep dying: past maxRestarts the primary stops the service and reports exit code 1', async () => {
    const script = join(dir, 'crashLoop.mjs');
    writeFileSync(script, `
      import { startCluster } from ${JSON.stringify(srcModule('service/serveCluster'))};
      import { configFromEnv } from ${JSON.stringify(srcModule('service/startService'))};
      const config = configFromEnv({ PORT: '0', DETOUR_DATA_DIR: ${JSON.stringify(join(dir, 'loop'))}, DETOUR_WORKERS: '1', LOG_LEVEL: 'info', DETOUR_PREPARE_VEHICLES: 'none' });
      const running = await startCluster(config, { maxRestarts: 1, restartWindowMs: 60_000 });
      running.stopped.then((code) => { console.log('stopped with ' + code); process.exit(code); });`);
    const child = spawn(process.execPath, [...SCRIPT_NODE_ARGS, script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const loop = new Served(child);
    await loop.ready();
    const first = loop.workerPids()[0];
    process.kill(first, 'SIGKILL');
    await loop.waitFor(/starting a replacement/);
    const second = Number((await loop.waitFor(/worker \d+ \(pid (\d+)\) serving/, loop.log.indexOf('starting a replacement')))[1]);
    assert.notEqual(second, first);
    process.kill(second, 'SIGKILL');
    const [code] = await once(child, 'exit');
    assert.equal(code, 1, loop.log);
    assert.match(loop.log, /1 replacements within 60000 ms already: stopping the service/);
    assert.match(loop.log, /stopped with 1/);
  });

  test('a primary killed with SIGKILL leaves no worker behind holding the port', async () => {
    const orphaned = await Served.start(join(dir, 'orphans'), ['--workers', '2']);
    const pids = orphaned.workerPids();
    assert.equal(pids.length, 2);
    assert.equal(await orphaned.stop('SIGKILL'), null);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const started = Date.now();
    while (pids.some(alive)) {
      if (Date.now() - started > 30_000) assert.fail(`workers ${pids.filter(alive).join(', ')} outlived their primary`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  test('a worker that cannot start stops the whole service with its error: a missing graph keeps its code', async () => {
    const failed = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workers', '2', '--graph', join(dir, 'missing.detour')], {
      env: { ...process.env, DETOUR_DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    failed.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
    const [code] = await once(failed, 'exit');
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^detour: FILE_NOT_FOUND: .*missing\.detour/m);
  });
});

describe('serve --workers on threads', { skip: threadsCanSharePort() ? false : `Node ${process.version} on ${process.platform} cannot share a port between threads` }, () => {
  let dir: string;
  let client: { clientId: string; clientSecret: string };
  /** Locked out by the login limits' test. */
  let guessed: { clientId: string; clientSecret: string };
  let served: Served;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'detour-threads-'));
    const store = new SqliteStore(join(dir, 'detour.sqlite'));
    client = await newClient(store);
    guessed = await newClient(store);
    await store.close();
    served = await Served.start(dir, ['--workers', '2', '--worker-mode', 'threads'], { DETOUR_PREPARE_VEHICLES: 'TRUCK_WITH_TWO_DOUBLE_AXLES' });
  });
  after(async () => {
    await served?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const token = async () => {
    const res = await freshRequest(`${served.url}${TOKEN_PATH}?grant_type=client_credentials`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret }).toString());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { authorization: `Bearer ${res.body.access_token}`, clientid: client.clientId, 'content-type': 'application/json' };
  };

  test('two service threads of one process, one graph loaded once: they share the port and one SQLite file, and a zone inserted, replaced or deleted through one is used by the trips on both', async () => {
    assert.deepEqual(served.serviceThreads().sort(), [0, 1]);
    assert.equal(served.loggingPids().size, 1, 'one process');
    assert.equal([...served.log.matchAll(/shared by 2 service threads/g)].length, 1, 'the graph loaded by the main thread alone');
    await zoneChangesReachEveryWorker(served, client);
  });

  test('the same on PostgreSQL (login limits there, a pool per thread)', async (t) => {
    const skip = await postgresSkipReason();
    if (skip) return t.skip(skip);
    await zoneChangesOnPostgres(dir, ['--workers', '2', '--worker-mode', 'threads']);
  });

  test('the vehicle class is made once, by thread 0, and taken by the other thread and the one matrix worker; truck trips on both threads, truck matrices and a matrix job answer as the library does', async () => {
    const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
    // Rounds of /health over fresh connections until, since the first round where all said ready, both threads have answered.
    let readyFrom = -1;
    for (let i = 0; ; i++) {
      const at = served.log.length;
      const health = await Promise.all(Array.from({ length: 8 }, () => freshRequest(`${served.url}/health`, 'GET', {})));
      const ready = health.every((h) => h.body.vehicleClasses === '1/1' && h.body.matrixVehicleClasses === '1/1');
      if (!ready) readyFrom = -1;
      else if (readyFrom < 0) readyFrom = at;
      await new Promise((r) => setTimeout(r, 100)); // the log lines
      if (readyFrom >= 0 && served.servedBy('/health', readyFrom).size === 2) break;
      if (i > 300) assert.fail(`the class is not ready on both threads: ${JSON.stringify(health.map((h) => h.body))}`);
    }
    assert.equal([...served.log.matchAll(/vehicle class \S+: its \w+ made by service thread/g)].length, 2, 'two parts made, once each');
    assert.equal([...served.log.matchAll(/vehicle class TRUCK_WITH_TWO_DOUBLE_AXLES: its hierarchies made by service thread 0, shared/g)].length, 1);
    assert.equal([...served.log.matchAll(/vehicle class TRUCK_WITH_TWO_DOUBLE_AXLES: its cells made by service thread 0, shared/g)].length, 1);
    const headers = await token();
    const expected = Math.round(router.route({ points: [west, east], calculationMode: 'THE_FASTEST', vehicle: truck }).distance);
    const tripsFrom = served.log.length;
    for (let i = 0; i < 40 && (i < 6 || served.servedBy(TRIP_PATH, tripsFrom).size < 2); i++) {
      const res = await freshRequest(`${served.url}${TRIP_PATH}`, 'POST', headers, JSON.stringify({ calculationMode: 'THE_FASTEST', points: [west, east], vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.totalDistance, expected);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(served.servedBy(TRIP_PATH, tripsFrom).size, 2, 'truck trips on both threads');
    const points = [west, east, { latitude: 57.69, longitude: 11.97, siteId: 'south' }];
    const matrixFrom = served.log.length;
    for (let i = 0; i < 40 && (i < 2 || served.servedBy('/matrix', matrixFrom).size < 2); i++) {
      const res = await freshRequest(`${served.url}/matrix/v1/calculations`, 'POST', headers, JSON.stringify({ origins: points, destinations: points, calculationMode: 'THE_SHORTEST', vehicleType: 'TRUCK_WITH_TWO_DOUBLE_AXLES' }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      let k = 0;
      for (const o of points) {
        for (const d of points) {
          const e = res.body.elements[k++];
          assert.equal(e.distance, Math.round(router.route({ points: [o, d], calculationMode: 'THE_SHORTEST', vehicle: truck }).distance), `${o.siteId} -> ${d.siteId}`);
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(served.servedBy('/matrix', matrixFrom).size, 2, 'matrices through both threads');
    // A matrix job: taken up by either thread's jobs, solved on the process's matrix worker.
    const posted = await freshRequest(`${served.url}/matrix/v1/problems`, 'POST', headers, JSON.stringify({ origins: points, destinations: points, calculationMode: 'THE_SHORTEST' }));
    assert.equal(posted.status, 202, JSON.stringify(posted.body));
    let job: Reply;
    for (let i = 0; ; i++) {
      job = await freshRequest(`${served.url}/matrix/v1/jobs/${posted.body.id}`, 'GET', headers);
      if (job.body.status === 'SOLVED' || i > 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(job.body.status, 'SOLVED', JSON.stringify(job.body));
    const solution = await freshRequest(`${served.url}/matrix/v1/solutions/${posted.body.id}`, 'GET', headers);
    assert.equal(solution.body.elements[1].distance, Math.round(router.route({ points: [west, east], calculationMode: 'THE_SHORTEST' }).distance));
  });

  test('one zone worker for the process: a zone the zone worker calculates is calculated once, and the other thread\'s trips take that calculation', async () => {
    // A rim along the city's south and east edges: its box meets every road (the zone worker's work), its strip few.
    const [s, n, w, e] = [57.652, 57.755, 11.871, 12.095];
    const rim = {
      name: 'rim',
      geometries: [{ vertices: [[s, w], [s, e], [n, e], [n, e - 0.004], [s + 0.004, e - 0.004], [s + 0.004, w]].map(([latitude, longitude]) => ({ latitude, longitude })) }],
    };
    assert.ok(new ZoneCalculator(graph).runsOnWorker(validateZone(rim)), 'the rim goes to the zone worker');
    const headers = await token();
    const from = served.log.length;
    const inserted = await freshRequest(`${served.url}${ZONES_PATH}`, 'POST', headers, JSON.stringify(rim));
    assert.equal(inserted.status, 201, JSON.stringify(inserted.body));
    const expected = expectedDistance(rim as Parameters<typeof expectedDistance>[0]);
    const tripsFrom = served.log.length;
    for (let i = 0; i < 40 && (i < 6 || served.servedBy(TRIP_PATH, tripsFrom).size < 2); i++) {
      const res = await freshRequest(`${served.url}${TRIP_PATH}`, 'POST', headers, JSON.stringify({ calculationMode: 'THE_FASTEST', points: [west, east], restrictionZones: ['rim'] }));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.totalDistance, expected);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(served.servedBy(TRIP_PATH, tripsFrom).size, 2, 'trips through both threads');
    const log = served.log.slice(from);
    assert.equal([...log.matchAll(/\/rim@[^:]+: calculated on the process's zone worker/g)].length, 1, 'calculated once');
    assert.ok([...log.matchAll(/\/rim@[^:]+: service thread \d takes the calculation made for another thread/g)].length >= 1, 'taken by the other thread');
  });

  test('failed logins count against one limit for the whole process: the eleventh wrong secret from an address is refused whichever thread takes it', async () => {
    const wrong = () => freshRequest(`${served.url}${TOKEN_PATH}?grant_type=client_credentials`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ client_id: guessed.clientId, client_secret: 'wrong-secret-0000000000000' }).toString());
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await wrong()).status);
    assert.deepEqual(statuses, Array(10).fill(401));
    // Then refused by both threads (with a count per thread, the one that took fewer of the ten would answer 401).
    const from = served.log.length;
    for (let i = 0; i < 20 && (i < 4 || served.servedBy(TOKEN_PATH, from).size < 2); i++) {
      const refused = await wrong();
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      await new Promise((r) => setTimeout(r, 20)); // the log lines
    }
    assert.equal(served.servedBy(TOKEN_PATH, from).size, 2, 'refused by both threads');
  });

  test('a second service asking for the same port is refused (EADDRINUSE), as a single process is: threads share the port only among themselves', async () => {
    const second = spawn(process.execPath, [CLI, 'serve', '--port', new URL(served.url).port, '--workers', '2', '--worker-mode', 'threads'], {
      env: { ...process.env, DETOUR_DATA_DIR: join(dir, 'second'), DATABASE_URL: '', LOG_LEVEL: 'error', DETOUR_PREPARE_VEHICLES: 'none' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    second.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => second.kill('SIGKILL'), 30_000);
    const [code, signal] = await once(second, 'exit');
    clearTimeout(timer);
    assert.equal(signal, null, 'the second service started on the port in use');
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^detour: SERVICE_START_FAILED: .*EADDRINUSE/m);
  });

  test('a service thread that dies is replaced on the same port and serves again; one dying past maxRestarts stops the service with exit code 1', async () => {
    const script = join(dir, 'threadDies.mjs');
    writeFileSync(script, `
      import { startServiceThreads } from ${JSON.stringify(srcModule('service/serveThreads'))};
      import { configFromEnv } from ${JSON.stringify(srcModule('service/startService'))};
      const config = configFromEnv({ PORT: '0', DETOUR_DATA_DIR: ${JSON.stringify(join(dir, 'dies'))}, DETOUR_WORKERS: '2', DETOUR_WORKER_MODE: 'threads', LOG_LEVEL: 'info', DETOUR_PREPARE_VEHICLES: 'none' });
      const threads = [];
      const running = await startServiceThreads(config, { maxRestarts: 1, restartWindowMs: 60_000, onServiceThread: (index, thread) => { threads[index] = thread; } });
      running.stopped.then((code) => { console.log('stopped with ' + code); process.exit(code); });
      // A line on stdin names the service thread to end (terminate(): exit code 1, as a thread that failed).
      process.stdin.setEncoding('utf8').on('data', (line) => void threads[Number(line.trim())].terminate());`);
    const child = spawn(process.execPath, [...SCRIPT_NODE_ARGS, script], { stdio: ['pipe', 'pipe', 'pipe'] });
    const dying = new Served(child);
    try {
      await dying.ready();
      let from = dying.log.length;
      child.stdin!.write('1\n');
      await dying.waitFor(/service thread 1 stopped with code 1: starting a replacement/, from);
      await dying.waitFor(/service thread 1 replaced the one that stopped and serves again/, from);
      // Fresh connections, spread by the kernel over both threads' sockets: the replacement takes its share.
      from = dying.log.length;
      for (let i = 0; i < 40; i++) assert.equal((await freshRequest(`${dying.url}/health`, 'GET', {})).status, 200);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual([...dying.servedBy('/health', from)].sort(), [0, 1], 'both threads served, the replacement among them');
      child.stdin!.write('1\n');
      const [code] = await once(child, 'exit');
      assert.equal(code, 1, dying.log);
      assert.match(dying.log, /service thread 1 stopped with code 1; 1 replacements within 60000 ms already: stopping the service/);
      assert.match(dying.log, /stopped with 1/);
    } finally {
      await dying.stop('SIGKILL');
    }
  });

  test('SIGTERM: a request in flight is answered, then every service thread stops and the process exits 0', async () => {
    const reply = tokenAcrossSigterm(served, client, /(SIGTERM: service thread \d finishing requests in flight[\s\S]*){2}/);
    const answered = await reply;
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const [code] = served.child.exitCode !== null ? [served.child.exitCode] : await once(served.child, 'exit');
    assert.equal(code, 0, served.log);
  });
});

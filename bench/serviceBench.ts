import { fork } from 'node:child_process';
import http from 'node:http';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone } from '../src/index.js';
import { seededRandom } from './seededRandom.js';

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
const fmt = (ms: number) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`);
const TRIPS = 300;
const ROUNDS = 3;
const TRIPS_PER_ROUND = 1000;

/** A keep-alive HTTP/1.1 client on one connection: what a service's caller would keep open. */
function client(base: string) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, body: string, headers: Record<string, string>) => new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method, path, agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
    });
    request.on('error', reject);
    request.end(body);
  });
  return { send, close: () => agent.destroy() };
}

/**
 * What the HTTP service adds to the library: the same trips and zones over HTTP, to `detour
 * serve`'s service alone in a child process (bench/serviceChild.ts: trip threads, SQLite) from a
 * keep-alive connection in this process, and in-process on this process's router.
 */
export async function serviceBench(): Promise<string> {
  const where = process.env.DETOUR_GRAPH ? `: ${basename(process.env.DETOUR_GRAPH, '.detour')}` : '';
  const command = process.env.DETOUR_GRAPH ? `DETOUR_GRAPH=${process.env.DETOUR_GRAPH} npm run bench -- service` : 'npm run bench -- service';
  const lines = [
    `## HTTP service${where} (SQLite store, loopback, one keep-alive connection)`, '',
    `\`${command}\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores). The service logs as \`detour serve\` does by default (LOG_LEVEL=info), to a file.`, '',
  ];
  const graphPath = process.env.DETOUR_GRAPH || DEFAULT_GRAPH_PATH;
  const graph = loadGraph(graphPath);
  const dir = mkdtempSync(join(tmpdir(), 'detour-bench-'));
  // Logging as `detour serve` does by default (LOG_LEVEL=info), to a file as in production.
  const logFd = openSync(join(dir, 'serve.log'), 'w');
  const child = fork(fileURLToPath(new URL('./serviceChild.ts', import.meta.url)), [dir], {
    execArgv: ['--import', 'tsx'], env: { ...process.env, DETOUR_GRAPH: graphPath, LOG_LEVEL: 'info' }, stdio: ['ignore', logFd, 'inherit', 'ipc'],
  });
  closeSync(logFd);
  const ask = <T>(message: string | object) => new Promise<T>((resolve) => {
    child.once('message', resolve as never);
    child.send(message);
  });
  const started = await new Promise<{ url: string; clientId: string; clientSecret: string }>((resolve) => child.once('message', resolve as never));
  const { send, close } = client(started.url);
  try {
    const post = async (path: string, body: string, headers: Record<string, string>) => {
      const t0 = performance.now();
      const res = await send('POST', path, body, headers);
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
      return { millis: performance.now() - t0, text: res.text };
    };
    // Timed once every trip thread and the matrix worker have prepared the vehicle classes (/health "n/n"): their preparation would compete for the cores.
    const taken = (counts?: string) => counts !== undefined && counts.split('/')[0] === counts.split('/')[1];
    for (;;) {
      const health = JSON.parse((await send('GET', '/health', '', {})).text) as { vehicleClasses?: string; matrixVehicleClasses?: string };
      if (taken(health.vehicleClasses) && taken(health.matrixVehicleClasses)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const tokenTimes: number[] = [];
    let token = '';
    for (let i = 0; i < 10; i++) {
      const form = new URLSearchParams({ client_id: started.clientId, client_secret: started.clientSecret }).toString();
      const res = await post('/oauth/client_credential/accesstoken?grant_type=client_credentials', form, { 'content-type': 'application/x-www-form-urlencoded' });
      token = (JSON.parse(res.text) as { access_token: string }).access_token;
      tokenTimes.push(res.millis);
    }
    const headers = { authorization: `Bearer ${token}`, clientid: started.clientId, 'content-type': 'application/json' };

    // Zone inserts: HTTP (validate, store, calculate) beside calculateZone alone, same polygons.
    const rand = seededRandom(99);
    const zoneBodies = Array.from({ length: 30 }, (_, i) => {
      // 500 m squares from a random road node north-east.
      const node = Math.floor(rand() * graph.nodeCount);
      const lat = graph.nodeLatitude(node), lon = graph.nodeLongitude(node), d = 0.0045;
      return { name: `z${i}`, geometries: [{ vertices: [{ latitude: lat, longitude: lon }, { latitude: lat, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon }] }] };
    });
    const libZone = zoneBodies.map((z) => {
      const t0 = performance.now();
      calculateZone(graph, validateZone(z));
      return performance.now() - t0;
    });
    const httpZone: number[] = [];
    for (const z of zoneBodies) httpZone.push((await post('/restriction/v1/restrictionZones', JSON.stringify(z), headers)).millis);

    // Trips: random pairs of road nodes around two of the zones, polyline output, each timed
    // over HTTP right after the same route in process (both warm alike).
    const router = new Router(graph);
    const zones = zoneBodies.slice(0, 2).map((z) => calculateZone(graph, validateZone(z)));
    router.prepareZones(zones);
    const trips: Array<{ points: Array<{ latitude: number; longitude: number }>; body: string }> = [];
    while (trips.length < TRIPS) {
      const a = Math.floor(rand() * graph.nodeCount), b = Math.floor(rand() * graph.nodeCount);
      const points = [a, b].map((n) => ({ latitude: graph.nodeLatitude(n), longitude: graph.nodeLongitude(n) }));
      try {
        router.route({ points, zones });
        trips.push({ points, body: JSON.stringify({ points, restrictionZones: ['z0', 'z1'] }) });
      } catch {
        // unroutable pair (a one-way trap or a stop only reachable through a zone): skip
      }
    }
    // Node's HTTP alone, both ends: a bare server in the service's process answering each trip's
    // body with as many bytes as the service answered the first (the floor of any service in Node).
    const answerBytes = Buffer.byteLength((await post('/trip/v2/calculations', trips[0].body, headers)).text);
    const { bareUrl } = await ask<{ bareUrl: string }>({ bare: answerBytes });
    const bare = client(bareUrl);
    const rounds: Array<{ http: number; library: number; bare: number; loopPerTrip: number }> = [];
    try {
      for (let round = 0; round <= ROUNDS; round++) {
        const libTrip: number[] = [], httpTrip: number[] = [], bareTrip: number[] = [];
        const before = await ask<{ elu: EventLoopUtilization }>('elu');
        for (let i = 0; i < TRIPS_PER_ROUND; i++) {
          const trip = trips[i % trips.length];
          const t0 = performance.now();
          router.route({ points: trip.points, zones });
          libTrip.push(performance.now() - t0);
          httpTrip.push((await post('/trip/v2/calculations', trip.body, headers)).millis);
        }
        const after = await ask<{ elu: EventLoopUtilization }>('elu');
        for (let i = 0; i < TRIPS_PER_ROUND; i++) {
          const t0 = performance.now();
          await bare.send('POST', '/trip/v2/calculations', trips[i % trips.length].body, headers);
          bareTrip.push(performance.now() - t0);
        }
        // The first round warms both up.
        if (round > 0) rounds.push({ http: median(httpTrip), library: median(libTrip), bare: median(bareTrip), loopPerTrip: (after.elu.active - before.elu.active) / TRIPS_PER_ROUND });
      }
    } finally {
      bare.close();
    }
    const mid = [...rounds].sort((a, b) => (a.http - a.library) - (b.http - b.library))[rounds.length >> 1];

    lines.push('| operation | over HTTP | library call | HTTP / library | HTTP - library |', '|---|---|---|---|---|');
    lines.push(`| token issuance, first (scrypt N=2^15 check of the secret) | ${fmt(tokenTimes[0])} | | | |`);
    lines.push(`| token issuance, again (the secret verified recently: an HMAC) | ${fmt(median(tokenTimes.slice(1)))} | | | |`);
    lines.push(`| insert a zone 500 m across (validate, store, calculate) vs calculateZone | ${fmt(median(httpZone))} | ${fmt(median(libZone))} | ${(median(httpZone) / median(libZone)).toFixed(1)}x | ${fmt(median(httpZone) - median(libZone))} |`);
    lines.push(`| trip, 2 points, 2 zones, polyline (p50 of ${TRIPS_PER_ROUND}, median of ${ROUNDS} rounds) vs Router.route | ${fmt(mid.http)} | ${fmt(mid.library)} | ${(mid.http / mid.library).toFixed(1)}x | ${fmt(mid.http - mid.library)} |`);
    lines.push(`| the same bodies to a bare node:http server in the service's process answering ${answerBytes.toLocaleString('en')} bytes (Node's HTTP alone, both ends) | ${fmt(mid.bare)} | | | |`);
    lines.push(
      '',
      `Rounds (HTTP / library / bare p50): ${rounds.map((r) => `${fmt(r.http)} / ${fmt(r.library)} / ${fmt(r.bare)}`).join(', ')}. The service's event loop was busy ${fmt(mid.loopPerTrip)} a trip`,
      '(parse, token and clientId checks, the named zones\' revisions read, the solution stored, the answer written; the route and its',
      `JSON are made on a trip thread). The HTTP figures include this process's own HTTP client on the same machine: the bare server's`,
      `round trip (${fmt(mid.bare)}) is what Node's HTTP on both ends costs before any service work, so the service's own share of a trip`,
      `above the library is ${fmt(mid.http - mid.library - mid.bare)}.`,
      '',
    );
    if (graph.nodeCount >= 1_000_000) {
      lines.push(`Target of issue 39 (on the 1M country: a trip over HTTP at most 0.3 ms above Router.route at the median): ${fmt(mid.http - mid.library)} on ${graph.nodeCount.toLocaleString('en')} nodes, ${mid.http - mid.library <= 0.3 ? 'met' : '**missed**'}.`, '');
    }
  } finally {
    close();
    child.send('exit');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join('\n');
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone } from '../src/index.js';
import { createService, registerClient, SqliteStore } from '../src/service/index.js';
import { seededRandom } from './seededRandom.js';

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
const fmt = (ms: number) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`);

/** What the HTTP service adds to the library: the same trips and zones, over HTTP and in-process. */
export async function serviceBench(): Promise<string> {
  const lines = ['## HTTP service (SQLite store, loopback, one connection at a time)', ''];
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const dir = mkdtempSync(join(tmpdir(), 'detour-bench-'));
  const store = new SqliteStore(join(dir, 'detour.sqlite'));
  const app = await createService({ graph, store, docs: false });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { client, clientSecret } = await registerClient(store, { applicationName: 'bench' });
    const tokenTimes: number[] = [];
    let token = '';
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/oauth/client_credential/accesstoken?grant_type=client_credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: client.clientId, client_secret: clientSecret }),
      });
      token = ((await res.json()) as { access_token: string }).access_token;
      tokenTimes.push(performance.now() - t0);
    }
    const headers = { authorization: `Bearer ${token}`, clientid: client.clientId, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const t0 = performance.now();
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${path}: ${res.status}`);
      return performance.now() - t0;
    };

    // Zone inserts: HTTP (validate, store, calculate) beside calculateZone alone, same polygons.
    const rand = seededRandom(99);
    const zoneBodies = Array.from({ length: 30 }, (_, i) => {
      const lat = 57.68 + rand() * 0.04, lon = 11.92 + rand() * 0.08, d = 0.005;
      return { name: `z${i}`, geometries: [{ vertices: [{ latitude: lat, longitude: lon }, { latitude: lat, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon }] }] };
    });
    const libZone = zoneBodies.map((z) => {
      const t0 = performance.now();
      calculateZone(graph, validateZone(z));
      return performance.now() - t0;
    });
    const httpZone: number[] = [];
    for (const z of zoneBodies) httpZone.push(await post('/restriction/v1/restrictionZones', z));

    // Trips: 300 random pairs of road nodes, around two of the zones, polyline output.
    const router = new Router(graph);
    const zones = zoneBodies.slice(0, 2).map((z) => calculateZone(graph, validateZone(z)));
    const trips: Array<{ points: Array<{ latitude: number; longitude: number }> }> = [];
    while (trips.length < 300) {
      const a = Math.floor(rand() * graph.nodeCount), b = Math.floor(rand() * graph.nodeCount);
      const points = [a, b].map((n) => ({ latitude: graph.nodeLatitude(n), longitude: graph.nodeLongitude(n) }));
      try {
        router.route({ points, zones });
        trips.push({ points });
      } catch {
        // unroutable pair (a one-way trap or a stop only reachable through a zone): skip
      }
    }
    const libTrip = trips.map((t) => {
      const t0 = performance.now();
      router.route({ points: t.points, zones });
      return performance.now() - t0;
    });
    const httpTrip: number[] = [];
    for (const t of trips) httpTrip.push(await post('/trip/v2/calculations', { ...t, restrictionZones: ['z0', 'z1'] }));

    lines.push('| operation | over HTTP | library call | HTTP / library |', '|---|---|---|---|');
    lines.push(`| token issuance (scrypt N=2^15 check of the secret) | ${fmt(median(tokenTimes))} | | |`);
    lines.push(`| insert a zone 500 m across (validate, store, calculate) vs calculateZone | ${fmt(median(httpZone))} | ${fmt(median(libZone))} | ${(median(httpZone) / median(libZone)).toFixed(1)}x |`);
    lines.push(`| trip, 2 points, 2 zones, polyline (median of 300) vs Router.route | ${fmt(median(httpTrip))} | ${fmt(median(libTrip))} | ${(median(httpTrip) / median(libTrip)).toFixed(1)}x |`);
    lines.push('', 'The HTTP figures include fetch on the same machine, token and clientId checks (one SQLite read), reading the named zones (one SQLite read) and JSON in and out.', '');
  } finally {
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join('\n');
}

/**
 * The library in a browser: src/browser.ts bundled by esbuild for the browser platform (no node:
 * import can resolve there), loaded in Debian's Chromium, which fetches the default city's graph
 * file and kernels.wasm, calculates a zone and routes across and around it. The page's answers
 * must equal the same calls on Node, and the route around must miss the zone (@turf).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { build } from 'esbuild';
import booleanIntersects from '@turf/boolean-intersects';
import { lineString, polygon } from '@turf/helpers';
import { chromium, type Browser } from 'playwright-core';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, zoneFromGeoJson } from '../src/index.js';
import { crc32, crc32Portable } from '../src/graph/crc32.js';
import { ROOT } from './support/helpers.js';

// The page's globals, for the function page.evaluate runs there.
declare const window: any;

const CHROMIUM = process.env.DETOUR_CHROMIUM ?? '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set DETOUR_CHROMIUM)`;
if (missing && process.env.DETOUR_REQUIRE_BROWSER === '1') throw new Error(`browser tests required (DETOUR_REQUIRE_BROWSER=1) but ${missing}`);
if (missing) console.log(`# browser library test skipped: ${missing}`);

const WEST = { latitude: 57.7055, longitude: 11.95 };
const EAST = { latitude: 57.7055, longitude: 11.985 };
const RING = [[11.96, 57.699], [11.975, 57.699], [11.975, 57.712], [11.96, 57.712], [11.96, 57.699]];

test('the portable CRC-32 (the browser\'s) equals zlib\'s, chained too', () => {
  for (const size of [0, 1, 7, 1000, 65_537]) {
    const bytes = new Uint8Array(randomBytes(size));
    const half = size >> 1;
    assert.equal(crc32Portable(bytes), zlibCrc32(bytes));
    assert.equal(crc32Portable(bytes.subarray(half), crc32Portable(bytes.subarray(0, half))), zlibCrc32(bytes));
    assert.equal(crc32(bytes), zlibCrc32(bytes));
  }
});

describe('the browser entry in Chromium', { skip: missing }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'detour-browser-'));
  let server: Server;
  let base: string;
  let browser: Browser;

  before(async () => {
    const entry = join(dir, 'entry.ts');
    const browserEntry = join(ROOT, 'src', 'browser.ts');
    writeFileSync(entry, `
      import { calculateZone, decodeGraph, GeometryKernels, Router, zoneFromGeoJson } from ${JSON.stringify(browserEntry)};
      const graph = decodeGraph(new Uint8Array(await (await fetch('/graph.detour')).arrayBuffer()), 'graph.detour');
      GeometryKernels.install(await GeometryKernels.fromUrl('/kernels.wasm'));
      const zone = calculateZone(graph, zoneFromGeoJson('centre', { type: 'Polygon', coordinates: [${JSON.stringify(RING)}] }));
      const router = new Router(graph);
      const points = [${JSON.stringify(WEST)}, ${JSON.stringify(EAST)}];
      const summary = (r) => ({ distance: r.distance, duration: r.duration, points: r.legs.flatMap((l) => l.points) });
      window.result = {
        hierarchy: graph.hierarchy !== undefined, status: zone.status.name, roads: zone.roads.length,
        free: summary(router.route({ points })), around: summary(router.route({ points, zones: [zone] })),
        shortest: summary(router.route({ points, zones: [zone], calculationMode: 'THE_SHORTEST', avoidanceTypes: ['TUNNELS'], avoidanceBehavior: 'RELAXED' })),
      };
    `);
    // platform browser: a node: import anywhere in the library fails this build.
    await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', target: 'es2022', outfile: join(dir, 'bundle.js'), logLevel: 'silent' });
    const files: Record<string, [string, string]> = {
      '/': [join(dir, 'index.html'), 'text/html'],
      '/bundle.js': [join(dir, 'bundle.js'), 'text/javascript'],
      '/graph.detour': [DEFAULT_GRAPH_PATH, 'application/octet-stream'],
      '/kernels.wasm': [join(ROOT, 'build', 'kernels.wasm'), 'application/wasm'],
    };
    writeFileSync(files['/'][0], '<!doctype html><meta charset="utf-8"><script type="module" src="/bundle.js"></script>');
    server = createServer((req, res) => {
      const file = files[req.url ?? ''];
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file[1] }).end(readFileSync(file[0]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('routes around a zone inside Chromium exactly as on Node', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/`);
    await page.waitForFunction(() => window.result !== undefined || false, undefined, { timeout: 30_000 }).catch(() => undefined);
    assert.deepEqual(errors, []);
    const got = await page.evaluate(() => window.result);
    assert.ok(got, 'the page produced no result');
    assert.equal(got.hierarchy, true, 'the graph file carries its contraction hierarchy');

    const graph = loadGraph(DEFAULT_GRAPH_PATH);
    const zone = calculateZone(graph, zoneFromGeoJson('centre', { type: 'Polygon', coordinates: [RING] }));
    const router = new Router(graph);
    const points = [WEST, EAST];
    assert.equal(got.status, zone.status.name);
    assert.equal(got.roads, zone.roads.length);
    for (const [name, route] of [
      ['free', router.route({ points })],
      ['around', router.route({ points, zones: [zone] })],
      ['shortest', router.route({ points, zones: [zone], calculationMode: 'THE_SHORTEST', avoidanceTypes: ['TUNNELS'], avoidanceBehavior: 'RELAXED' })],
    ] as const) {
      assert.equal(got[name].distance, route.distance, name);
      assert.equal(got[name].duration, route.duration, name);
      assert.deepEqual(got[name].points, route.legs.flatMap((l) => l.points), name);
    }
    const line = (pts: Array<{ latitude: number; longitude: number }>) => lineString(pts.map((p) => [p.longitude, p.latitude]));
    const area = polygon([RING]);
    assert.ok(booleanIntersects(line(got.free.points), area), 'the free route crosses the zone');
    assert.ok(!booleanIntersects(line(got.around.points), area), 'the route around misses it');
  });
});

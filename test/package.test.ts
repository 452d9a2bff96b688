import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/helpers.js';

const skip = process.env.DETOUR_TEST_PACKAGE
  ? false
  : 'packing the tarball and installing it from the npm registry takes minutes: set DETOUR_TEST_PACKAGE=1 to run it (CI does)';
if (skip) console.log(`# skip: ${skip}`);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000, env });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('the npm package', { skip }, () => {
  let work: string;
  let app: string;
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'detour-package-'));
    const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
    assert.equal(packed.code, 0, packed.stderr);
    const [{ filename, files }] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const paths = files.map((f) => f.path);
    assert.ok(paths.includes('LICENSE') && paths.includes('build/kernels.wasm') && paths.includes('data/gothenburg.detour'));
    assert.ok(!paths.some((p) => p.startsWith('src/') || p.startsWith('test/')), 'sources and tests are not shipped');
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const installed = run('npm', ['install', join(work, filename), '--no-audit', '--no-fund'], app);
    assert.equal(installed.code, 0, installed.stderr);
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('installs without the service packages; a script routes around a zone and the CLI routes; serve names what to install', () => {
    for (const name of Object.keys(manifest.peerDependencies)) {
      assert.ok(!existsSync(join(app, 'node_modules', name, 'package.json')), `${name} was not installed`);
    }
    writeFileSync(join(app, 'route.mjs'), `
      import { loadGraph, DEFAULT_GRAPH_PATH, Router, validateZone, calculateZone } from '${manifest.name}';
      const city = loadGraph(DEFAULT_GRAPH_PATH);
      const router = new Router(city);
      const zone = calculateZone(city, validateZone({ name: 'Centrum', geometries: [{ vertices: [
        { latitude: 57.7, longitude: 11.96 }, { latitude: 57.7, longitude: 11.975 }, { latitude: 57.71, longitude: 11.975 }, { latitude: 57.71, longitude: 11.96 }] }] }));
      const points = [{ latitude: 57.7055, longitude: 11.95 }, { latitude: 57.7055, longitude: 11.985 }];
      const free = router.route({ points }), around = router.route({ points, zones: [zone] });
      console.log(JSON.stringify({ status: zone.status.name, free: free.distance, around: around.distance }));
    `);
    const script = run(process.execPath, ['route.mjs'], app);
    assert.equal(script.code, 0, script.stderr);
    const out = JSON.parse(script.stdout);
    assert.equal(out.status, 'CALCULATED');
    assert.ok(out.around > out.free, `${out.around} around vs ${out.free} through`);

    const bin = join(app, 'node_modules', '.bin', 'detour');
    const cli = run(bin, ['route', '--from', '57.70887,11.97456', '--to', '57.69514,11.99253'], app);
    assert.equal(cli.code, 0, cli.stderr);
    assert.ok(JSON.parse(cli.stdout).distance > 1000);
    const serve = run(bin, ['serve', '--port', '0', '--workers', '1'], app);
    assert.equal(serve.code, 1);
    assert.match(serve.stderr, /^detour: SERVICE_DEPENDENCIES_MISSING: .*npm install fastify /);
  });

  test('with the service packages installed, detour serve answers /health and serves the map page', async () => {
    // better-sqlite3 is the repository's own install of it, linked: from the registry its install
    // script compiles SQLite (its prebuilt binaries are not reachable here), a minute of CPU that
    // tests better-sqlite3's build, not detour. The other packages come from the registry, and no
    // other one has an install script to skip.
    const peers = Object.entries(manifest.peerDependencies as Record<string, string>)
      .map(([name, range]) => (name === 'better-sqlite3' ? join(ROOT, 'node_modules', name) : `${name}@${range}`));
    const installed = run('npm', ['install', ...peers, '--no-audit', '--no-fund', '--ignore-scripts'], app);
    assert.equal(installed.code, 0, installed.stderr);
    const port = await freePort();
    const child = spawn(join(app, 'node_modules', '.bin', 'detour'), ['serve', '--port', String(port), '--workers', '1', '--data-dir', join(work, 'data')], { cwd: app, stdio: 'ignore' });
    try {
      let health: { status?: string } = {};
      for (let i = 0; i < 120 && health.status !== 'ok'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        health = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.json() as Promise<{ status?: string }>).catch(() => ({}));
      }
      assert.equal(health.status, 'ok');
      // The map page and the road tiles ship in the package.
      assert.match(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text()), /<main id="map"/);
      for (const path of ['/map.js', '/tiles/13/4368/2479.pbf']) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        assert.equal(res.status, 200, path);
        assert.ok((await res.arrayBuffer()).byteLength > 0, path);
      }
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/**
 * Builds the map page into dist/web: src/web/map.ts bundled with MapLibre GL JS, terra-draw and
 * @mapbox/polyline (esbuild), beside index.html, map.css and MapLibre's stylesheet and worker. Runs as part
 * of `npm install` / `npm run build`; the service serves dist/web at /.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const started = performance.now();
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const web = `${repo}src/web/`;
const out = `${repo}dist/web/`;
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [`${web}map.ts`],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  outfile: `${out}map.js`,
  logLevel: 'warning',
  legalComments: 'linked',
});
copyFileSync(`${web}index.html`, `${out}index.html`);
copyFileSync(`${web}map.css`, `${out}map.css`);
// MapLibre's stylesheet, and its worker (loaded beside map.js) with the code it shares.
const maplibreDist = dirname(createRequire(import.meta.url).resolve('maplibre-gl/dist/maplibre-gl.css'));
for (const file of ['maplibre-gl.css', 'maplibre-gl-worker.mjs', 'maplibre-gl-shared.mjs']) copyFileSync(join(maplibreDist, file), `${out}${file}`);
console.log(`map page -> ${out} (${(performance.now() - started).toFixed(0)} ms)`);

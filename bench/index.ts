/**
 * detour benchmarks: `npm run bench` (writes bench/RESULTS.md).
 * Every figure is set beside a peer measured in the same process on the same data, as a ratio.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { routingBench } from './routingBench.js';
import { zonesBench } from './zonesBench.js';
import { serviceBench } from './serviceBench.js';
import { scaleSection } from './resultsSection.js';

const sections: string[] = [];
const started = new Date();
const only = process.argv[2];
if (!only || only === 'routing') sections.push(await routingBench());
if (!only || only === 'zones') sections.push(await zonesBench());
if (!only || only === 'service') sections.push(await serviceBench());

const header = [
  '# detour benchmark results',
  '',
  `Produced by \`npm run bench\` (\`node --import tsx --expose-gc bench/index.ts\`) on ${started.toISOString().slice(0, 10)},`,
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores).`,
  'Ratios compare runs in the same process on the same graph and inputs; absolute times vary by machine.',
  '',
];
const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
// The scale section comes from `npm run bench:scale` (minutes per size): kept as it is.
const scale = existsSync(resultsPath) ? scaleSection(readFileSync(resultsPath, 'utf8')) : '';
const out = [...header, ...sections, ...(scale ? [scale] : [])].join('\n');
writeFileSync(resultsPath, out);
console.log(out);

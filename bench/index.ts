/**
 * detour benchmarks: `npm run bench` (writes bench/RESULTS.md).
 * Every figure is set beside a peer measured in the same process on the same data, as a ratio.
 */
import { cpus } from 'node:os';
import { routingBench } from './routingBench.js';
import { zonesBench } from './zonesBench.js';
import { serviceBench } from './serviceBench.js';
import { zoneResilienceBench } from './zoneResilienceBench.js';
import { updateResults } from './results.js';
import { restrictionsBench } from './restrictionsBench.js';
import { matrixBench } from './matrixBench.js';
import { avoidanceBench } from './avoidanceBench.js';
import { tilesBench } from './tilesBench.js';

const sections: string[] = [];
const started = new Date();
const only = process.argv[2];
if (!only || only === 'routing') sections.push(await routingBench());
if (!only || only === 'zones') sections.push(await zonesBench());
if (!only || only === 'service') sections.push(await serviceBench());
if (!only || only === 'resilience') sections.push(await zoneResilienceBench());
if (!only || only === 'restrictions') sections.push(await restrictionsBench());
if (!only || only === 'matrix') sections.push(await matrixBench());
if (!only || only === 'avoidance') sections.push(await avoidanceBench());
if (!only || only === 'tiles') sections.push(await tilesBench());

const header = [
  '# detour benchmark results',
  '',
  `Sections without their own command below were produced by \`npm run bench\` (\`node --import tsx --expose-gc bench/index.ts [routing|zones|service|resilience|restrictions|matrix|avoidance|tiles]\`), last on ${started.toISOString().slice(0, 10)},`,
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores).`,
  'Ratios compare runs in the same process on the same graph and inputs; absolute times vary by machine.',
  '',
];
// One section alone names its own run; the header speaks for a run of them all.
updateResults(only ? undefined : header.join('\n'), sections);
console.log(sections.join('\n\n'));

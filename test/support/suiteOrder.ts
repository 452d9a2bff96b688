/**
 * Prints the files `npm test` runs, in the order node --test starts them: the build (dist/test/)
 * of every test/*.test.ts, the longest-running first and the rest by name, so the short files
 * fill the end of the run and every slot stays busy until it ends (longest processing time first).
 * A file missing from the list, or a list gone stale, only changes the order.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/defaultCity.js';

/** The files that take longest in the suite (wall time with four at a time on two cores), longest first. */
const LONGEST_FIRST = ['cli', 'serviceWorkers', 'overlay', 'serviceSecurity', 'restrictions', 'vehicles', 'serviceOps', 'routing', 'hierarchy', 'largeZones', 'tripThreads', 'mapPage'];

const names = readdirSync(join(packageRoot(), 'test')).filter((f) => f.endsWith('.test.ts')).map((f) => f.slice(0, -'.test.ts'.length));
const rank = (name: string) => (LONGEST_FIRST.includes(name) ? LONGEST_FIRST.indexOf(name) : LONGEST_FIRST.length);
const ordered = names.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
console.log(ordered.map((name) => join('dist', 'test', `${name}.test.js`)).join('\n'));

/**
 * Links node_modules/.bin/detour to the built CLI, so `npx detour` works inside this checkout
 * (npm links the bins of dependencies, never the root package's own). Runs in `npm run build`.
 */
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../../../', import.meta.url);
const cli = fileURLToPath(new URL('dist/src/cli.js', root));
const binDir = fileURLToPath(new URL('node_modules/.bin/', root));
if (existsSync(fileURLToPath(new URL('node_modules/', root)))) {
  mkdirSync(binDir, { recursive: true });
  const link = `${binDir}detour`;
  rmSync(link, { force: true });
  symlinkSync('../../dist/src/cli.js', link);
  chmodSync(cli, 0o755);
}

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this file with package.json (works from src/ and dist/src/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The bundled default city (Gothenburg), built from geojson-path-finder@2.1.0 at install time. */
export const DEFAULT_GRAPH_PATH = join(packageRoot(), 'data', 'gothenburg.detour');

/** Source and licence of the default city. */
export const DEFAULT_CITY_SOURCE = 'Gothenburg, Sweden: geojson-path-finder@2.1.0 test/large-network.json';

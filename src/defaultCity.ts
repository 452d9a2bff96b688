import { fileURLToPath } from 'node:url';

/** The bundled default city (Gothenburg), built from geojson-path-finder@2.1.0 at install time. */
export const DEFAULT_GRAPH_PATH = fileURLToPath(new URL('../../data/gothenburg.detour', import.meta.url));

/** Source and licence of the default city. */
export const DEFAULT_CITY_SOURCE = 'Gothenburg, Sweden: geojson-path-finder@2.1.0 test/large-network.json';

/**
 * Builds data/gothenburg.detour from the Gothenburg network shipped in the registry package
 * geojson-path-finder@2.1.0 (test/large-network.json, © OpenStreetMap contributors, ODbL 1.0),
 * with its contraction hierarchies. Runs as part of `npm install` / `npm run build`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import { DEFAULT_CITY_SOURCE, DEFAULT_GRAPH_PATH } from '../defaultCity.js';
import { saveGraph } from '../hierarchy/graphFiles.js';
import { importGeoJson } from '../graph/importGeoJson.js';
import { OSM_ATTRIBUTION } from '../graph/importOsm.js';
import { buildHierarchy } from '../hierarchy/buildHierarchy.js';
import { attachSearchIndexes } from '../searchIndexes.js';

const require = createRequire(import.meta.url);
const started = performance.now();
const input = require.resolve('geojson-path-finder/test/large-network.json');
const graph = importGeoJson(JSON.parse(readFileSync(input, 'utf8')), {
  source: DEFAULT_CITY_SOURCE,
  attribution: OSM_ATTRIBUTION,
});
// The contraction hierarchies of both metrics and the search indexes travel in the file: no preprocessing at serve time.
buildHierarchy(graph);
attachSearchIndexes(graph);
mkdirSync(dirname(DEFAULT_GRAPH_PATH), { recursive: true });
saveGraph(graph, DEFAULT_GRAPH_PATH);
console.log(
  `default city: ${graph.nodeCount} nodes, ${graph.edgeCount} edges, ` +
    `${(graph.totalRoadLength() / 1000).toFixed(0)} km of road -> ${DEFAULT_GRAPH_PATH} ` +
    `(${(performance.now() - started).toFixed(0)} ms)`,
);

import GeoJSONVT from 'geojson-vt';
import type { Feature, LineString } from 'geojson';
import { DEFAULT_GRAPH_PATH, HIGHWAY_CLASSES, loadGraph } from '../src/index.js';
import { MAX_TILE_ZOOM, RoadTiles } from '../src/service/roadTiles.js';

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20; // typed arrays (indexes, tile bytes) live outside the heap
};

/**
 * `npm run bench tiles`: road vector tiles cut on demand (RoadTiles: flatbush candidates, then
 * geojson-vt on just those roads) against the usual way, one geojson-vt index over every road of
 * the graph built at start, on the default city: start-up cost, memory, and time per tile by zoom
 * (every tile of the graph's box at that zoom, cold: no tile cache).
 */
export async function tilesBench(): Promise<string> {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (let v = 0; v < graph.nodeCount; v++) {
    w = Math.min(w, graph.nodeLongitude(v)); e = Math.max(e, graph.nodeLongitude(v));
    s = Math.min(s, graph.nodeLatitude(v)); n = Math.max(n, graph.nodeLatitude(v));
  }
  const tileX = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
  const tileY = (lat: number, z: number) => {
    const r = (lat * Math.PI) / 180;
    return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
  };

  const zooms = [10, 12, 14];
  const tilesAt = (z: number) => {
    const out: Array<[number, number]> = [];
    for (let x = tileX(w, z); x <= tileX(e, z); x++) for (let y = tileY(n, z); y <= tileY(s, z); y++) out.push([x, y]);
    return out;
  };
  /** Start-up, then every tile at each zoom timed; heap held afterwards (the object kept alive). */
  const run = (start: () => { tile(z: number, x: number, y: number): unknown }) => {
    const before = heapMb();
    const t0 = performance.now();
    const source = start();
    const startMs = performance.now() - t0;
    const perZoom = zooms.map((z) => tilesAt(z).map(([x, y]) => {
      const t = performance.now();
      source.tile(z, x, y);
      return performance.now() - t;
    }));
    const mb = heapMb() - before;
    return { source, startMs, perZoom, mb };
  };
  const ours = run(() => new RoadTiles(graph));
  const theirs = run(() => {
    const features: Feature<LineString>[] = [];
    for (let r = 0; r < graph.roadCount; r++) {
      const coordinates = Array.from({ length: graph.roadPointCount(r) }, (_, k) => [graph.roadPointLon(r, k), graph.roadPointLat(r, k)]);
      features.push({ type: 'Feature', id: r, properties: { class: HIGHWAY_CLASSES[graph.roadClass[r]] }, geometry: { type: 'LineString', coordinates } });
    }
    const index = new GeoJSONVT({ type: 'FeatureCollection', features }, { maxZoom: MAX_TILE_ZOOM, indexMaxZoom: 5, tolerance: 3, buffer: 64 });
    return { tile: (z: number, x: number, y: number) => index.getTile(z, x, y) };
  });

  const lines = [
    '## Road vector tiles (default city: Gothenburg)', '',
    `${graph.roadCount} roads. RoadTiles cuts each tile on demand from the roads in it (flatbush over road boxes, `
      + 'an index per low zoom of the classes shown; 256 tiles cached); the peer is one geojson-vt index over every road, '
      + 'built at start (tiles to zoom 5 pre-cut, deeper ones cut from it on request and kept). Every tile of the graph\'s box, cold, '
      + 'RoadTiles first, then the peer; memory held afterwards.', '',
    `Start-up: RoadTiles ${ours.startMs.toFixed(1)} ms, the whole-graph index ${theirs.startMs.toFixed(0)} ms. `
      + `Memory held after all the tiles (heap and array buffers): RoadTiles ${ours.mb.toFixed(1)} MB, the whole-graph index ${theirs.mb.toFixed(1)} MB `
      + `(${(ours.mb / theirs.mb).toFixed(2)} of the peer).`, '',
    '| zoom | tiles | RoadTiles median | max | whole-graph geojson-vt median | max |', '|---|---|---|---|---|---|',
    ...zooms.map((z, i) => `| ${z} | ${ours.perZoom[i].length} | ${median(ours.perZoom[i]).toFixed(2)} ms | ${Math.max(...ours.perZoom[i]).toFixed(1)} ms | `
      + `${median(theirs.perZoom[i]).toFixed(2)} ms | ${Math.max(...theirs.perZoom[i]).toFixed(1)} ms |`),
    '', 'The whole-graph index answers a deep tile faster once built (it has split the data already), but it costs its start-up '
      + 'and memory in proportion to the graph; RoadTiles costs per tile what the tile holds.',
  ];
  return lines.join('\n');
}

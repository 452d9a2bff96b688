/**
 * Seeded, reproducible big graphs for `npm run bench:scale`, built through the public GraphBuilder:
 *
 * - a synthetic **country** made of real roads: tiles of the Gothenburg graph and of the shared OSM
 *   extracts (../shared/data/osm, read in place), each rotated by a multiple of 90° and jittered
 *   inside its cell of a square grid, joined by a motorway / trunk network between neighbouring
 *   tiles (every third row and column of links is motorway, the rest trunk), at about 1M, 5M, 10M
 *   nodes; besides the tiles' own limits on heavy vehicles, a seeded share of their roads gets one
 *   (vehicleLimits): weight limits on bridges, height limits in tunnels, `hgv=no` and
 *   `hgv=destination` on city streets (seededLimits);
 * - the uniform **grid** (N x N nodes 80 m apart, ±10 m jitter, 10 % of links removed, three road
 *   classes by row/column), the hard case for hierarchies, at 1M and 4M nodes.
 *
 * Graphs are written to bench/.cache (gitignored) and reused; `node --import tsx
 * bench/scaleGraphs.ts 1m grid1m` builds them ahead of a bench run.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_GRAPH_PATH, GraphBuilder, HIGHWAY_CLASSES, loadGraph, openGraph, RoadFlag, saveGraph,
  type HierarchyGraph, type LatLon, type RoadAttributes, type RoadGraph, type RoadLimits,
} from '../src/index.js';
import { fromE7 } from '../src/geo/coordinates.js';
import { labelKeyAt } from '../src/graph/roadLabels.js';
import { stronglyConnectedComponents } from '../src/graph/components.js';
import { GRAPH_FORMAT_VERSION } from '../src/graph/graphFile.js';
import { attachSearchIndexes } from '../src/searchIndexes.js';
import { buildHierarchyInWorkers } from '../src/hierarchy/buildHierarchy.js';
import { buildCellOverlay } from '../src/hierarchy/CellOverlay.js';
import { seededRandom } from './seededRandom.js';
import { packageRoot } from '../src/defaultCity.js';

// From the package root: the tests run this module built, from dist/bench/.
export const CACHE_DIR = join(packageRoot(), 'bench', '.cache') + '/';
const SHARED_OSM = join(packageRoot(), '..', 'shared', 'data', 'osm') + '/';

export interface ScaleSize {
  /** Name on the command line and in the cache file. */
  key: string;
  kind: 'country' | 'grid';
  /** Nodes wanted (the country stops adding tiles once its sources reach this). */
  nodes: number;
  seed: number;
}

/** The sizes `--sizes` accepts. */
export const SCALE_SIZES: readonly ScaleSize[] = [
  { key: '1m', kind: 'country', nodes: 1_000_000, seed: 1 },
  { key: '5m', kind: 'country', nodes: 5_000_000, seed: 5 },
  { key: '10m', kind: 'country', nodes: 10_000_000, seed: 10 },
  { key: 'grid1m', kind: 'grid', nodes: 1_000_000, seed: 101 },
  { key: 'grid4m', kind: 'grid', nodes: 4_000_000, seed: 104 },
];

const METRES_PER_DEGREE = 111_195;
const ATTRIBUTION = 'Map data © OpenStreetMap contributors, ODbL 1.0 (tiles of real extracts, moved and rotated)';

/** Path of a size's cached graph file. */
export function cachedGraphPath(size: ScaleSize): string {
  return `${CACHE_DIR}${size.kind}-${size.key}-v${GRAPH_FORMAT_VERSION}.detour`;
}

/** One shared attributes object per distinct (flags, speed, class): the builder keeps one reference per way. */
function attrsCache(): (flags: number, speedKmh: number, highwayClass: number) => RoadAttributes {
  const cache = new Map<string, RoadAttributes>();
  return (flags, speedKmh, highwayClass) => {
    const key = `${flags}/${speedKmh}/${highwayClass}`;
    let a = cache.get(key);
    if (!a) cache.set(key, (a = { flags, speedKmh, highwayClass }));
    return a;
  };
}

const CITY_CLASSES = new Set(['residential', 'living_street', 'service', 'unclassified', 'tertiary'].map((c) => HIGHWAY_CLASSES.indexOf(c)));

/**
 * A tile road's limits on heavy vehicles: its source's, and with a seeded chance more, as real
 * networks sign them: 30 % of bridges a weight limit (10 to 45 t), 40 % of tunnels a height limit
 * (3.5 to 4.5 m), 3 % of city streets `hgv=no` and 3 % `hgv=destination`. A stream of its own, so
 * the country's geometry is what it was without limits.
 */
function seededLimits(rand: () => number, own: RoadLimits | undefined, flags: number, highwayClass: number): RoadLimits | undefined {
  const pick = (values: number[]) => values[Math.floor(rand() * values.length)];
  let out = own;
  const add = (extra: Partial<RoadLimits>) => { out = { hgv: 0, goods: 0, noHazmat: false, ...out, ...extra }; };
  if (flags & RoadFlag.BRIDGE && rand() < 0.3) add({ weightT: pick([10, 12, 20, 30, 40, 45]) });
  if (flags & RoadFlag.TUNNEL && rand() < 0.4) add({ heightM: pick([3.5, 3.8, 4, 4.2, 4.5]) });
  if (CITY_CLASSES.has(highwayClass)) {
    const r = rand();
    if (r < 0.03) add({ hgv: 1 });
    else if (r < 0.06) add({ hgv: 2 });
  }
  return out;
}

interface TileSource {
  name: string;
  graph: HierarchyGraph;
  /** Weight of the source in the random choice of a tile. */
  weight: number;
  /** Centre of the source, degrees, and its metres-per-degree of longitude. */
  lat0: number;
  lon0: number;
  kx: number;
  /** Half extent in metres (east-west, north-south). */
  halfW: number;
  halfH: number;
  /** 1 for nodes of the largest strongly connected component (where access roads may join). */
  inMain: Uint8Array;
}

async function tileSources(): Promise<TileSource[]> {
  const wanted: Array<[string, number]> = [[DEFAULT_GRAPH_PATH, 0.6], ['campo-grande.osm.gz', 0.25], ['andorra.osm.pbf', 0.075], ['monaco.osm.pbf', 0.075]];
  const out: TileSource[] = [];
  for (const [file, weight] of wanted) {
    const path = file.includes('/') ? file : SHARED_OSM + file;
    // Every source, or the seed makes another country (and a cached graph of another name).
    if (!existsSync(path)) throw new Error(`the synthetic country's tiles need ${path}: ${file.includes('/') ? 'run npm run build' : 'put ../shared beside the repository'}`);
    const graph = path.endsWith('.detour') ? loadGraph(path) : await openGraph(path);
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (let i = 0; i < graph.nodeCount; i++) {
      minX = Math.min(minX, graph.nodeLongitude(i)); maxX = Math.max(maxX, graph.nodeLongitude(i));
      minY = Math.min(minY, graph.nodeLatitude(i)); maxY = Math.max(maxY, graph.nodeLatitude(i));
    }
    const lat0 = (minY + maxY) / 2, lon0 = (minX + maxX) / 2;
    const kx = METRES_PER_DEGREE * Math.cos((lat0 * Math.PI) / 180);
    const { component, size } = stronglyConnectedComponents(graph);
    let main = 0;
    for (let c = 1; c < size.length; c++) if (size[c] > size[main]) main = c;
    const inMain = new Uint8Array(graph.nodeCount);
    for (let i = 0; i < graph.nodeCount; i++) inMain[i] = component[i] === main ? 1 : 0;
    out.push({
      name: file.split('/').pop()!, graph, weight, lat0, lon0, kx,
      halfW: ((maxX - minX) / 2) * kx, halfH: ((maxY - minY) / 2) * METRES_PER_DEGREE, inMain,
    });
  }
  if (out.length === 0) throw new Error('no tile source found (build the default city with npm run build)');
  return out;
}

/** Builds the synthetic country of about `size.nodes` nodes. */
export async function buildCountry(size: ScaleSize, log: (s: string) => void = () => {}): Promise<RoadGraph> {
  const rand = seededRandom(size.seed);
  const limitsRand = seededRandom(size.seed + 7_000_003);
  const sources = await tileSources();
  const totalWeight = sources.reduce((s, t) => s + t.weight, 0);
  const chosen: TileSource[] = [];
  for (let nodes = 0; nodes < size.nodes;) {
    let pick = rand() * totalWeight, i = 0;
    while (pick > sources[i].weight && i < sources.length - 1) pick -= sources[i++].weight;
    chosen.push(sources[i]);
    nodes += sources[i].graph.nodeCount;
  }
  const cols = Math.ceil(Math.sqrt(chosen.length));
  const rows = Math.ceil(chosen.length / cols);
  // Cells leave countryside between tiles, crossed only by the motorway / trunk links.
  const cell = 2 * Math.max(...sources.map((s) => Math.max(s.halfW, s.halfH))) + 4000;
  const latOrigin = 57.0, lonOrigin = 11.0; // south-west corner of the country
  const kxAt = (lat: number) => METRES_PER_DEGREE * Math.cos((lat * Math.PI) / 180);
  const builder = new GraphBuilder();
  const attrs = attrsCache();
  const way: number[] = [];
  // Per tile and side (E, N, W, S): the builder point where the link of that side joins the tile.
  const access = new Int32Array(chosen.length * 4).fill(-1);
  const accessLat = new Float64Array(chosen.length * 4), accessLon = new Float64Array(chosen.length * 4);
  let placedLat = 0, placedLon = 0;
  log(`country ${size.key}: ${chosen.length} tiles on ${cols} x ${rows} cells of ${(cell / 1000).toFixed(1)} km`);
  for (let t = 0; t < chosen.length; t++) {
    const src = chosen[t];
    const g = src.graph;
    const row = Math.floor(t / cols), col = t % cols;
    const quarterTurns = Math.floor(rand() * 4);
    const cos = [1, 0, -1, 0][quarterTurns], sin = [0, 1, 0, -1][quarterTurns];
    const cy = latOrigin + ((row + 0.5) * cell + (rand() - 0.5) * 3000) / METRES_PER_DEGREE;
    const kxc = kxAt(cy);
    const cx = lonOrigin + ((col + 0.5) * cell + (rand() - 0.5) * 3000) / kxc;
    const place = (lat: number, lon: number): number => {
      const x = (lon - src.lon0) * src.kx, y = (lat - src.lat0) * METRES_PER_DEGREE;
      const rx = x * cos - y * sin, ry = x * sin + y * cos;
      placedLat = cy + ry / METRES_PER_DEGREE;
      placedLon = cx + rx / kxc;
      return builder.addPoint(placedLat, placedLon);
    };
    const nodeBase = builder.pointCount;
    const placedNodeLat = new Float64Array(g.nodeCount), placedNodeLon = new Float64Array(g.nodeCount);
    for (let i = 0; i < g.nodeCount; i++) {
      place(g.nodeLatitude(i), g.nodeLongitude(i));
      placedNodeLat[i] = placedLat;
      placedNodeLon[i] = placedLon;
    }
    const shapeBase = builder.pointCount;
    for (let i = 0; i < g.shapeLatE7.length; i++) place(fromE7(g.shapeLatE7[i]), fromE7(g.shapeLonE7[i]));
    for (let r = 0; r < g.roadCount; r++) {
      way.length = 0;
      way.push(nodeBase + g.roadFrom[r]);
      for (let i = g.roadShapeStart[r]; i < g.roadShapeStart[r + 1]; i++) way.push(shapeBase + i);
      way.push(nodeBase + g.roadTo[r]);
      const base = attrs(g.roadFlags[r], g.roadSpeedKmh[r], g.roadClass[r]);
      const limits = seededLimits(limitsRand, g.roadLimits(r), g.roadFlags[r], g.roadClass[r]);
      // Tiles keep their roads' labels, so instructions on the country read real names.
      const label = labelKeyAt(g, g.roadLabel[r]);
      builder.addWay(way, limits || label ? { ...base, limits, label } : base);
    }
    // Access nodes: the main-component node nearest a point half-way from the centre to each side.
    for (let side = 0; side < 4; side++) {
      const dx = [1, 0, -1, 0][side] * 0.5, dy = [0, 1, 0, -1][side] * 0.5;
      // Target in the source frame: undo the rotation of the side's direction.
      const tx = (dx * cos + dy * sin) * 2 * src.halfW, ty = (-dx * sin + dy * cos) * 2 * src.halfH;
      let best = -1, bestD = Infinity;
      for (let i = 0; i < g.nodeCount; i++) {
        if (!src.inMain[i]) continue;
        const x = (g.nodeLongitude(i) - src.lon0) * src.kx - tx / 2, y = (g.nodeLatitude(i) - src.lat0) * METRES_PER_DEGREE - ty / 2;
        const d = x * x + y * y;
        if (d < bestD) { bestD = d; best = i; }
      }
      access[4 * t + side] = nodeBase + best;
      accessLat[4 * t + side] = placedNodeLat[best];
      accessLon[4 * t + side] = placedNodeLon[best];
    }
  }
  // Links between neighbouring tiles: east and north neighbours, with shape points every ~1 km
  // (slightly wavy).
  const motorway = HIGHWAY_CLASSES.indexOf('motorway'), trunk = HIGHWAY_CLASSES.indexOf('trunk');
  const both = RoadFlag.FORWARD | RoadFlag.BACKWARD;
  const link = (ta: number, tb: number, isMotorway: boolean) => {
    const a = access[ta], b = access[tb];
    const aLat = accessLat[ta], aLon = accessLon[ta], bLat = accessLat[tb], bLon = accessLon[tb];
    const metres = Math.hypot((bLat - aLat) * METRES_PER_DEGREE, (bLon - aLon) * kxAt(aLat));
    const steps = Math.max(2, Math.round(metres / 1000));
    way.length = 0;
    way.push(a);
    for (let s = 1; s < steps; s++) {
      const f = s / steps, wobble = (rand() - 0.5) * 150 / METRES_PER_DEGREE;
      way.push(builder.addPoint(aLat + f * (bLat - aLat) + wobble, aLon + f * (bLon - aLon) + wobble));
    }
    way.push(b);
    builder.addWay(way, isMotorway ? attrs(both, 110, motorway) : attrs(both, 80, trunk));
  };
  let links = 0;
  for (let t = 0; t < chosen.length; t++) {
    const row = Math.floor(t / cols), col = t % cols;
    if (col + 1 < cols && t + 1 < chosen.length) { link(4 * t, 4 * (t + 1) + 2, row % 3 === 0); links++; }
    if (t + cols < chosen.length) { link(4 * t + 1, 4 * (t + cols) + 3, col % 3 === 0); links++; }
  }
  log(`country ${size.key}: ${builder.pointCount} points, ${builder.wayCount} ways (${links} motorway/trunk links); building`);
  return builder.build({
    source: `synthetic country ${size.key} (seed ${size.seed}, ${chosen.length} tiles of ${sources.map((s) => s.name).join(', ')})`,
    attribution: ATTRIBUTION,
    profile: 'car',
    builtAt: new Date(0).toISOString(),
  });
}


/** Builds the uniform grid of about `size.nodes` nodes. */
export function buildGrid(size: ScaleSize, log: (s: string) => void = () => {}): RoadGraph {
  const rand = seededRandom(size.seed);
  const n = Math.ceil(Math.sqrt(size.nodes));
  const spacing = 80, jitter = 10;
  const lat0 = 57.0, lon0 = 11.0;
  const kx = METRES_PER_DEGREE * Math.cos(((lat0 + (n * spacing) / 2 / METRES_PER_DEGREE) * Math.PI) / 180);
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      builder.addPoint(lat0 + (i * spacing + (rand() - 0.5) * 2 * jitter) / METRES_PER_DEGREE, lon0 + (j * spacing + (rand() - 0.5) * 2 * jitter) / kx);
    }
  }
  // Three classes by row / column: every 20th a trunk, every 5th a secondary, the rest residential.
  const attrs = attrsCache();
  const both = RoadFlag.FORWARD | RoadFlag.BACKWARD;
  const classOf = (line: number) => (line % 20 === 0 ? attrs(both, 80, HIGHWAY_CLASSES.indexOf('trunk'))
    : line % 5 === 0 ? attrs(both, 55, HIGHWAY_CLASSES.indexOf('secondary')) : attrs(both, 25, HIGHWAY_CLASSES.indexOf('residential')));
  const way = [0, 0];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const p = i * n + j;
      if (j + 1 < n && rand() >= 0.1) { way[0] = p; way[1] = p + 1; builder.addWay(way, classOf(i)); }
      if (i + 1 < n && rand() >= 0.1) { way[0] = p; way[1] = p + n; builder.addWay(way, classOf(j)); }
    }
  }
  log(`grid ${size.key}: ${n} x ${n} points, ${builder.wayCount} links; building`);
  return builder.build({
    source: `synthetic grid ${size.key} (${n} x ${n}, 80 m, seed ${size.seed})`,
    attribution: 'synthetic',
    profile: 'car',
    builtAt: new Date(0).toISOString(),
  });
}

/**
 * The graph of a size: loaded from bench/.cache when built before, else generated and saved there.
 * `loadMillis` is the time loadGraph took (undefined when the graph was generated in this process).
 */
export async function scaleGraph(size: ScaleSize, log: (s: string) => void = () => {}): Promise<{ graph: HierarchyGraph; path: string; loadMillis?: number; fileBytes: number; hierarchyMillis?: number }> {
  const path = cachedGraphPath(size);
  const facts = `${path}.json`;
  if (!existsSync(path)) {
    mkdirSync(CACHE_DIR, { recursive: true });
    let started = performance.now();
    const graph = size.kind === 'country' ? await buildCountry(size, log) : buildGrid(size, log);
    log(`${size.key}: built ${graph.nodeCount} nodes, ${graph.edgeCount} edges in ${((performance.now() - started) / 1000).toFixed(1)} s; contracting both metrics`);
    // Preprocessing as `detour import` does it: both metrics at once on two worker threads.
    started = performance.now();
    let shown = 0;
    await buildHierarchyInWorkers(graph, {
      onProgress: (done, total) => {
        if (done / total >= shown + 0.1) log(`${size.key}: contraction ${((shown = Math.floor((10 * done) / total) / 10) * 100).toFixed(0)} %`);
      },
    });
    const hierarchyMillis = performance.now() - started;
    log(`${size.key}: hierarchy in ${(hierarchyMillis / 1000).toFixed(1)} s; search indexes; saving ${path}`);
    attachSearchIndexes(graph);
    saveGraph(graph, path);
    writeFileSync(facts, JSON.stringify({ hierarchyMillis }));
  }
  const known = existsSync(facts) ? (JSON.parse(readFileSync(facts, 'utf8')) as { hierarchyMillis?: number; overlayMillis?: number }) : {};
  let started = performance.now();
  let graph = loadGraph(path);
  if (graph.hierarchy && !graph.hierarchy.overlay?.fine) {
    // A graph cached before the cell overlay or its small cells: build it (as the import now does after the contraction) instead of contracting again.
    log(`${size.key}: adding the two-level cell overlay to ${path}`);
    started = performance.now();
    const hadOverlay = graph.hierarchy.overlay !== undefined;
    graph.hierarchy.overlay = buildCellOverlay(graph);
    known.overlayMillis = performance.now() - started;
    // A one-level overlay's time is already in the preprocessing time (about as long): not added twice.
    if (known.hierarchyMillis !== undefined && !hadOverlay) known.hierarchyMillis += known.overlayMillis;
    log(`${size.key}: cell overlay in ${(known.overlayMillis / 1000).toFixed(1)} s; saving`);
    saveGraph(graph, path);
    writeFileSync(facts, JSON.stringify(known));
    started = performance.now();
    graph = loadGraph(path);
  }
  return { graph, path, loadMillis: performance.now() - started, fileBytes: statSync(path).size, hierarchyMillis: known.hierarchyMillis };
}

/** A stop near a random node, moved up to ~30 m: it snaps onto a road, not exactly onto the node. */
export function randomStop(graph: RoadGraph, random: () => number): LatLon {
  const n = Math.floor(random() * graph.nodeCount);
  return { latitude: graph.nodeLatitude(n) + (random() - 0.5) * 5e-4, longitude: graph.nodeLongitude(n) + (random() - 0.5) * 5e-4 };
}

/**
 * The random pairs the scale benches time on a size (bench:scale, bench:kept-shortcuts,
 * overlaySizes: the same pairs in each), warm-up pairs from a sequence of their own (so asking for
 * more or fewer leaves the timed pairs alone), and the sequence that drew the pairs: what a bench
 * draws from it next (zones on the pairs' paths) stays what earlier runs drew.
 */
export function scalePairs(graph: RoadGraph, size: ScaleSize, count: number, warmUpCount = 0): { pairs: LatLon[][]; warmUp: LatLon[][]; random: () => number } {
  const random = seededRandom(size.seed * 7 + 3), warmRandom = seededRandom(size.seed * 7 + 5);
  const pairs: LatLon[][] = [], warmUp: LatLon[][] = [];
  for (let i = 0; i < count; i++) pairs.push([randomStop(graph, random), randomStop(graph, random)]);
  for (let i = 0; i < warmUpCount; i++) warmUp.push([randomStop(graph, warmRandom), randomStop(graph, warmRandom)]);
  return { pairs, warmUp, random };
}

/** The sizes named in a comma list such as "1m,grid1m" (throws on an unknown name). */
export function parseSizes(list: string): ScaleSize[] {
  return list.split(',').filter(Boolean).map((key) => {
    const size = SCALE_SIZES.find((s) => s.key === key.trim().toLowerCase());
    if (!size) throw new Error(`unknown size ${JSON.stringify(key)}; choose from ${SCALE_SIZES.map((s) => s.key).join(', ')}`);
    return size;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const size of parseSizes(process.argv.slice(2).join(',') || '1m')) {
    const { graph, path, loadMillis, fileBytes } = await scaleGraph(size, console.log);
    console.log(`${size.key}: ${path}: ${graph.nodeCount} nodes, ${graph.edgeCount} edges, ${graph.roadCount} roads, ${(fileBytes / 2 ** 20).toFixed(0)} MiB, loaded in ${loadMillis?.toFixed(0)} ms`);
  }
}

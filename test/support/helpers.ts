import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { packageRoot } from '../../src/defaultCity.js';
import { activeIntervals, calculateZone, importGeoJson, SCHEDULE_HORIZON_SECONDS, validateZone, zoneFromGeoJson, ZoneValidationError, type CalculatedZone, type RoadGraph, type Metric } from '../../src/index.js';

/** The repository's root, whether the tests run built (`npm test`: dist/test/) or from test/ under tsx. */
export const ROOT = packageRoot();

/** Whether these tests run built, as `npm test` runs them, rather than from their sources under tsx. */
const BUILT = import.meta.url.endsWith('.js');

/**
 * The URL of a module of src/ (`path` without extension) as the tests import it: its build in
 * dist/src/ when they run built, its source under tsx otherwise. For scripts a test writes.
 */
export function srcModule(path: string): string {
  return pathToFileURL(BUILT ? join(ROOT, 'dist', 'src', `${path}.js`) : join(ROOT, 'src', `${path}.ts`)).href;
}

/** Node's arguments for a script importing srcModule()s: tsx when those are sources. */
export const SCRIPT_NODE_ARGS: readonly string[] = BUILT ? [] : ['--import', 'tsx'];

/** The shared OSM extracts (../shared/data/osm beside the repository). */
export const SHARED_OSM = join(ROOT, '..', 'shared', 'data', 'osm') + '/';

/** Returns the path of a shared extract, or a skip reason naming it. */
export function sharedExtract(name: string): { path: string; skip: false } | { path: string; skip: string } {
  const path = SHARED_OSM + name;
  if (existsSync(path)) return { path, skip: false };
  const reason = `shared extract ${path} not found (tests on real OSM extracts need ../shared/data/osm)`;
  console.log(`# skip: ${reason}`);
  return { path, skip: reason };
}

/** The built CLI (`npm test` builds it first: `pretest`), spawned with plain node as users run it. */
export const CLI = join(ROOT, 'dist', 'src', 'cli.js');

/** The Gothenburg GeoJSON shipped in geojson-path-finder@2.1.0. */
export const GOTHENBURG_GEOJSON = createRequire(import.meta.url).resolve('geojson-path-finder/test/large-network.json');

let importedCity: RoadGraph | undefined;
/**
 * The city imported from GOTHENBURG_GEOJSON once per test file (about a second each time), for
 * tests that only read it; a test that changes its graph imports its own.
 */
export const importedGothenburg = (): RoadGraph => (importedCity ??= importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8'))));

/** mulberry32: a small seeded PRNG so a failing random case can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Start {
  node: number;
  cost: number;
}

/**
 * A binary min-heap of (cost, node) in growable typed arrays, with lazy deletion: the oracle's queue
 * (its own, not src/structures/MinHeap: the oracle shares no code with the searches it checks).
 */
class CostHeap {
  private costs = new Float64Array(1024);
  private nodes = new Int32Array(1024);
  length = 0;

  push(cost: number, node: number): void {
    if (this.length === this.costs.length) {
      const costs = new Float64Array(this.length * 2), nodes = new Int32Array(this.length * 2);
      costs.set(this.costs);
      nodes.set(this.nodes);
      this.costs = costs;
      this.nodes = nodes;
    }
    let i = this.length++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.costs[p] <= cost) break;
      this.costs[i] = this.costs[p];
      this.nodes[i] = this.nodes[p];
      i = p;
    }
    this.costs[i] = cost;
    this.nodes[i] = node;
  }

  /** The cheapest entry's cost; read before pop(). */
  topCost(): number {
    return this.costs[0];
  }

  /** Removes the cheapest entry and returns its node. */
  pop(): number {
    const top = this.nodes[0];
    const n = --this.length;
    const cost = this.costs[n], node = this.nodes[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.costs[c + 1] < this.costs[c]) c++;
      if (this.costs[c] >= cost) break;
      this.costs[i] = this.costs[c];
      this.nodes[i] = this.nodes[c];
      i = c;
    }
    this.costs[i] = cost;
    this.nodes[i] = node;
    return top;
  }
}

/**
 * Plain Dijkstra over the graph's edge list (a binary heap, no heuristic, no reuse): the oracle.
 * Returns the cheapest cost from any start to any goal (goal cost added), Infinity if none.
 * `penalty` adds a cost per metre on some roads, by the road's class in `roads` (zones, avoided types).
 * Stops once the next node settled costs at least the best goal found (goal costs are never negative).
 */
export function dijkstra(
  graph: RoadGraph, starts: Start[], goals: Start[], metric: Metric, blockedRoads?: Uint8Array,
  penalty?: { roads: Uint8Array; costPerMetre: ArrayLike<number> },
  wait?: (road: number, t: number, c: number) => number,
): number {
  const weight = metric === 'distance' ? graph.edgeDistance : graph.edgeDuration;
  const { firstOut, edgeHead, edgeRoad, edgeDistance } = graph;
  const dist = new Float64Array(graph.nodeCount).fill(Infinity);
  const done = new Uint8Array(graph.nodeCount);
  const goalCost = new Map<number, number>();
  for (const g of goals) goalCost.set(g.node, Math.min(goalCost.get(g.node) ?? Infinity, g.cost));
  const queue = new CostHeap();
  for (const s of starts) {
    if (s.cost < dist[s.node]) {
      dist[s.node] = s.cost;
      queue.push(s.cost, s.node);
    }
  }
  let best = Infinity;
  while (queue.length) {
    const d = queue.topCost();
    if (d >= best) break;
    const u = queue.pop();
    if (done[u]) continue;
    done[u] = 1;
    const g = goalCost.get(u);
    if (g !== undefined) best = Math.min(best, d + g);
    for (let e = firstOut[u]; e < firstOut[u + 1]; e++) {
      const road = edgeRoad[e];
      if (blockedRoads && blockedRoads[road]) continue;
      const v = edgeHead[e];
      const nd = d + weight[e] + (penalty && penalty.roads[road] ? penalty.costPerMetre[penalty.roads[road]] * edgeDistance[e] : 0) + (wait ? wait(road, d, weight[e]) : 0);
      if (nd < dist[v]) {
        dist[v] = nd;
        queue.push(nd, v);
      }
    }
  }
  return best;
}

/**
 * How much a leg's distance or duration may exceed the exact length or time of the same path:
 * road lengths are whole centimetres and durations whole milliseconds, each rounded up
 * (COST_STEP), so a road adds under 1 cm, or under 1 ms plus 1 cm at its speed. Counts the leg's
 * roads and its start and end roads.
 */
export function roundingSlack(graph: RoadGraph, leg: { edges: readonly number[]; from: { road: number }; to: { road: number } }, metric: Metric): number {
  const roads = [...leg.edges.map((e) => graph.edgeRoad[e]), leg.from.road, leg.to.road];
  if (metric === 'distance') return 0.01 * roads.length;
  return roads.reduce((sum, r) => sum + 0.001 + 0.01 / (graph.roadSpeedKmh[r] / 3.6), 0);
}

/**
 * A route's cost against an oracle's exact one (summed from raw geometry): never below it, and
 * above it by at most `slack` (roundingSlack), each side give or take `rel` of the cost.
 */
export function withinRounding(got: number, exact: number, slack: number, rel = 1e-6): boolean {
  if (got === Infinity || exact === Infinity) return got === exact;
  const tolerance = rel * Math.max(1, Math.abs(exact));
  return got >= exact - tolerance && got <= exact + slack + tolerance;
}

/** Relative closeness for costs summed in different orders. */
export function close(a: number, b: number, rel = 1e-9): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b));
}

/** A random star-shaped zone of about `radius` metres around a random road point. */
export function randomZone(graph: RoadGraph, rand: () => number, name: string, radius: number): CalculatedZone {
  const r = Math.floor(rand() * graph.roadCount);
  const cy = graph.roadPointLat(r, 0), cx = graph.roadPointLon(r, 0);
  const ry = radius / 111_320, rx = ry / Math.cos((cy * Math.PI) / 180);
  const n = 8 + Math.floor(rand() * 20);
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n, k = 0.5 + 0.5 * rand();
    ring.push([cx + rx * k * Math.cos(a), cy + ry * k * Math.sin(a)]);
  }
  ring.push([...ring[0]]);
  return calculateZone(graph, zoneFromGeoJson(name, { type: 'Polygon', coordinates: [ring] }));
}

/**
 * The oracle's waits for scheduled zones leaving at `departure`: the seconds before driving `road`
 * for `c` seconds from `t` (seconds after the departure), found by trying each of the road's zones'
 * active intervals in turn until none overlaps; Infinity past SCHEDULE_HORIZON_SECONDS.
 */
export function scheduleWaits(graph: RoadGraph, zones: CalculatedZone[], departure: number): (road: number, t: number, c: number) => number {
  const on = new Map<number, number[][]>();
  for (const z of zones) {
    const iv = activeIntervals(z.zone.schedule!, departure, departure + SCHEDULE_HORIZON_SECONDS * 1000).map((t) => (t - departure) / 1000);
    for (const r of z.roads) on.set(r, [...(on.get(r) ?? []), iv]);
  }
  return (road, t, c) => {
    const lists = on.get(road);
    if (!lists) return 0;
    let s = t;
    for (let moved = true; moved;) {
      moved = false;
      for (const iv of lists) for (let i = 0; i < iv.length; i += 2) if (iv[i] < s + c && iv[i + 1] > s) { s = iv[i + 1]; moved = true; }
    }
    return s + c > SCHEDULE_HORIZON_SECONDS ? Infinity : s - t;
  };
}

/** A square ring of zone vertices {latitude, longitude}, `d` degrees either side of a centre. */
export function square(lat: number, lon: number, d: number): Array<{ latitude: number; longitude: number }> {
  return [
    { latitude: lat - d, longitude: lon - d }, { latitude: lat - d, longitude: lon + d }, { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon - d },
  ];
}

/** The paths validateZone names for a body (none when it is valid). */
export function zoneIssuePaths(input: unknown): string[] {
  try {
    validateZone(input);
    return [];
  } catch (e) {
    if (!(e instanceof ZoneValidationError)) throw e;
    return e.issues.map((i) => i.path);
  }
}

export { oracleHeavy, oracleTimes } from '../../bench/speedOracle.js';

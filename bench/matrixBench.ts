import { seededRandom } from './seededRandom.js';
import {
  calculateZone, loadGraph, matrixByRoutes, matrixElement, Router, zoneFromGeoJson, DEFAULT_GRAPH_PATH,
  type CalculatedZone, type LatLon, type MatrixRequest, type MatrixResult, type RoadGraph,
} from '../src/index.js';

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];

function timed<T>(run: () => T): { ms: number; value: T } {
  const t = performance.now();
  const value = run();
  return { ms: performance.now() - t, value };
}

/** Points on random roads of the graph. */
function roadPoints(graph: RoadGraph, rand: () => number, count: number): LatLon[] {
  return Array.from({ length: count }, () => {
    const r = Math.floor(rand() * graph.roadCount);
    return { latitude: graph.roadPointLat(r, 0), longitude: graph.roadPointLon(r, 0) };
  });
}

/** A star zone about `metres` across around a random road point. */
function zoneAround(graph: RoadGraph, rand: () => number, name: string, metres: number): CalculatedZone {
  const r = Math.floor(rand() * graph.roadCount);
  const cy = graph.roadPointLat(r, 0), cx = graph.roadPointLon(r, 0);
  const ry = metres / 2 / 111_320, rx = ry / Math.cos((cy * Math.PI) / 180);
  const ring: number[][] = [];
  for (let i = 0; i < 24; i++) {
    const a = (2 * Math.PI * i) / 24, k = 0.6 + 0.4 * rand();
    ring.push([cx + rx * k * Math.cos(a), cy + ry * k * Math.sin(a)]);
  }
  ring.push([...ring[0]]);
  return calculateZone(graph, zoneFromGeoJson(name, { type: 'Polygon', coordinates: [ring] }));
}

/** Elements whose optimised value equals the reference's (failures must match too). */
function agreeing(a: MatrixResult, b: MatrixResult, mode: string): number {
  let same = 0;
  for (let o = 0; o < a.originCount; o++) {
    for (let d = 0; d < a.destinationCount; d++) {
      const x = matrixElement(a, o, d), y = matrixElement(b, o, d);
      const vx = mode === 'THE_SHORTEST' ? x.distance : x.duration, vy = mode === 'THE_SHORTEST' ? y.distance : y.duration;
      if ((x.failure && y.failure?.code === x.failure.code) || (vx !== null && vy !== null && Math.abs(vx - vy) <= 1e-9 * Math.max(1, vy))) same++;
    }
  }
  return same;
}

/** `npm run bench matrix`: Router.matrix against one Router.route per element, Gothenburg 100 x 100. */
export async function matrixBench(): Promise<string> {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const alt = new Router(graph, { engine: 'astar', snapIndex: router.snapIndex });
  const rand = seededRandom(2024);
  const origins = roadPoints(graph, rand, 100), destinations = roadPoints(graph, rand, 100);
  const zones = Array.from({ length: 10 }, (_, i) => zoneAround(graph, rand, `m${i}`, 500 + rand() * 1000));
  const blocked = zones.reduce((s, z) => s + z.roads.length, 0);
  const lines = [
    '## Distance matrix (default city: Gothenburg)', '',
    `100 origins x 100 destinations on random roads; zones: 10 stars 0.5-1.5 km across blocking ${blocked} roads. `
      + 'Router.matrix: bucket many-to-many on the contraction hierarchy when nothing is blocked; with zones, one A* per origin '
      + 'towards all destinations with the hierarchy\'s potential. Peers: the same 10,000 elements as one `Router.route` each, '
      + 'with the ALT engine (`engine: \'astar\'`) and with the default engine; medians of 5 matrix runs, one peer run.', '',
    '| mode | zones | Router.matrix | 10,000 Router.route, ALT | ratio | 10,000 Router.route, default engine | ratio | elements equal to ALT routes |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const checks: string[] = [];
  for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
    for (const withZones of [false, true]) {
      const request: MatrixRequest = { origins, destinations, calculationMode: mode, zones: withZones ? zones : [] };
      router.matrix(request); // first use: scratch arrays and the other metric's arc costs
      const runs: number[] = [];
      let fast!: MatrixResult;
      for (let i = 0; i < 5; i++) { const t = timed(() => router.matrix(request)); runs.push(t.ms); fast = t.value; }
      const fastMs = median(runs);
      matrixByRoutes(alt, { ...request, origins: origins.slice(0, 2) }); // landmarks before timing
      const viaAlt = timed(() => matrixByRoutes(alt, request));
      const viaDefault = timed(() => matrixByRoutes(router, request));
      const same = agreeing(fast, viaAlt.value, mode);
      lines.push(`| ${mode} | ${withZones ? 10 : 0} | ${fastMs.toFixed(1)} ms | ${viaAlt.ms.toFixed(0)} ms | ${(viaAlt.ms / fastMs).toFixed(1)}x | ${viaDefault.ms.toFixed(0)} ms | ${(viaDefault.ms / fastMs).toFixed(1)}x | ${same} of 10000 |`);
      if (withZones) checks.push(`${mode}: ${fastMs.toFixed(1)} ms (<= 150 ms: ${fastMs <= 150 ? 'met' : 'MISSED'}), ${(viaAlt.ms / fastMs).toFixed(1)}x ALT (>= 30x: ${viaAlt.ms / fastMs >= 30 ? 'met' : 'MISSED'})`);
    }
  }
  lines.push('', `Targets (issue 11, Gothenburg 100 x 100 with 10 zones): ${checks.join('; ')}.`);
  return lines.join('\n');
}

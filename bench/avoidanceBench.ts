import { seededRandom } from './seededRandom.js';
import {
  AVOIDANCE_FLAGS, DEFAULT_GRAPH_PATH, DetourError, loadGraph, Router, type AvoidanceBehavior, type AvoidanceType, type LatLon, type RouteRequest,
} from '../src/index.js';

const quantile = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))];

/**
 * `npm run bench avoidance`: routes with avoidance types against the same routes without them
 * (default engine, Gothenburg, 500 random pairs), per behaviour: time per route and what the
 * avoidance changed (routes failing under FAIL, longer routes, metres still driven).
 */
export async function avoidanceBench(): Promise<string> {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const rand = seededRandom(31);
  const at = (): LatLon => {
    const r = Math.floor(rand() * graph.roadCount);
    return { latitude: graph.roadPointLat(r, 0), longitude: graph.roadPointLon(r, 0) };
  };
  const pairs = Array.from({ length: 500 }, () => [at(), at()]);
  const run = (extra: Partial<RouteRequest>) => {
    const times: number[] = [];
    let failed = 0, driven = 0, distance = 0;
    for (const points of pairs) {
      const t = performance.now();
      try {
        const route = router.route({ points, ...extra });
        distance += route.distance;
        driven += route.legs.reduce((s, l) => s + (l.avoidedTypesDriven ?? []).reduce((a, d) => a + d.metres, 0), 0);
      } catch (err) {
        if (!(err instanceof DetourError)) throw err;
        failed++;
      }
      times.push(performance.now() - t);
    }
    return { times, failed, driven, distance };
  };
  const types: AvoidanceType[] = ['TUNNELS', 'BRIDGES'];
  const bits = AVOIDANCE_FLAGS.TUNNELS | AVOIDANCE_FLAGS.BRIDGES;
  const lines = [
    '## Avoidance options (default city: Gothenburg)', '',
    `500 random pairs, THE_FASTEST, default engine (CH; with avoidance types the CH-potential A* around the avoided roads). `
      + `Avoiding ${types.join(' and ')}: ${graph.roadFlags.filter((f) => f & bits).length} of ${graph.roadCount} roads. `
      + 'Peer: the same pairs without avoidance, same process.', '',
    '| request | p50 | p95 | ratio of p50 to free | routes failing | mean distance | metres on avoided types |',
    '|---|---|---|---|---|---|---|',
  ];
  run({}); // warm-up: snap index, scratch arrays
  const free = run({});
  const row = (name: string, r: ReturnType<typeof run>) => {
    const ok = pairs.length - r.failed;
    lines.push(`| ${name} | ${quantile(r.times, 0.5).toFixed(2)} ms | ${quantile(r.times, 0.95).toFixed(2)} ms | `
      + `${(quantile(r.times, 0.5) / quantile(free.times, 0.5)).toFixed(1)}x | ${r.failed} | ${ok ? (r.distance / ok / 1000).toFixed(2) : '-'} km | ${Math.round(r.driven)} m |`);
  };
  row('free', free);
  for (const behavior of ['FAIL', 'STRONG', 'RELAXED'] as AvoidanceBehavior[]) {
    row(`${types.join('+')} ${behavior}`, run({ avoidanceTypes: types, avoidanceBehavior: behavior }));
  }
  return lines.join('\n');
}

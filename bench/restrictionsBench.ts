/**
 * What turn restrictions cost: the same extract imported with and without them (junction
 * copies: nodes, edges, bytes) and the same random routes on both (A* with 16 ALT landmarks).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { carRoadAttributes, type OsmTags } from '../src/graph/carProfile.js';
import { GraphBuilder, type RoadLayout, type TurnRule } from '../src/graph/GraphBuilder.js';
import { importOsmWithSummary, type OsmFormat } from '../src/graph/importOsm.js';
import { Router } from '../src/routing/Router.js';
import { AStarSearch } from '../src/routing/AStarSearch.js';
import type { RoadGraph } from '../src/graph/RoadGraph.js';
import { seededRandom } from './seededRandom.js';

const OSM_DIR = fileURLToPath(new URL('../../shared/data/osm/', import.meta.url));
const EXTRACTS: [string, OsmFormat][] = [['monaco.osm.pbf', 'pbf'], ['andorra.osm.pbf', 'pbf'], ['campo-grande.osm.gz', 'xml.gz']];
const PAIRS = 1000;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median microseconds per route and mean nodes settled, over the given point pairs. */
function routeTimes(graph: RoadGraph, pairs: [number, number, number, number][], mode: 'THE_FASTEST' | 'THE_SHORTEST') {
  const router = new Router(graph);
  const search = router.search as AStarSearch;
  const times: number[] = [];
  let settled = 0;
  let routed = 0;
  // Warm up (landmarks are built on first use).
  for (const [a, b, c, d] of pairs.slice(0, 20)) {
    try { router.route({ points: [{ latitude: a, longitude: b }, { latitude: c, longitude: d }], calculationMode: mode }); } catch { /* unreachable pair */ }
  }
  for (const [a, b, c, d] of pairs) {
    const t0 = performance.now();
    try {
      router.route({ points: [{ latitude: a, longitude: b }, { latitude: c, longitude: d }], calculationMode: mode });
      times.push((performance.now() - t0) * 1000);
      settled += search.settledCount;
      routed++;
    } catch { /* unreachable pair */ }
  }
  return { us: median(times), settled: settled / Math.max(1, routed) };
}

/**
 * The default city built through GraphBuilder with synthetic restrictions: at a share of its
 * junctions (3+ roads), one random `no_*` or `only_*` turn from a random way in to a way out.
 */
function gothenburg(share: number): RoadGraph {
  const require = createRequire(import.meta.url);
  const data = JSON.parse(readFileSync(require.resolve('geojson-path-finder/test/large-network.json'), 'utf8'));
  const builder = new GraphBuilder();
  const pointOf = new Map<string, number>();
  for (const f of data.features as { properties: Record<string, unknown> | null; geometry: { type: string; coordinates: number[][] } | null }[]) {
    if (f.geometry?.type !== 'LineString') continue;
    const tags: OsmTags = {};
    for (const [k, v] of Object.entries(f.properties ?? {})) if (v !== null && v !== undefined) tags[k] = String(v);
    if (tags.highway === undefined && tags.route === undefined) tags.highway = 'road';
    const attrs = carRoadAttributes(tags);
    if (!attrs) continue;
    builder.addWay(f.geometry.coordinates.map(([lon, lat]) => {
      const key = `${lon},${lat}`;
      let p = pointOf.get(key);
      if (p === undefined) pointOf.set(key, (p = builder.addPoint(lat, lon)));
      return p;
    }), attrs);
  }
  if (share === 0) return builder.build({ source: 'gothenburg', attribution: '', profile: 'car', builtAt: '' });
  const random = seededRandom(11);
  const turns = (layout: RoadLayout): TurnRule[] => {
    const into = new Map<number, number[]>(), outOf = new Map<number, number[]>();
    for (let d = 0; d < 2 * layout.roadCount; d++) {
      const end = layout.directedRoadEnd(d), start = layout.directedRoadStart(d);
      (into.get(end) ?? into.set(end, []).get(end)!).push(d);
      (outOf.get(start) ?? outOf.set(start, []).get(start)!).push(d);
    }
    const rules: TurnRule[] = [];
    for (const [point, ins] of into) {
      const outs = outOf.get(point) ?? [];
      if (ins.length < 3 || outs.length < 3 || random() >= share) continue;
      const from = ins[Math.floor(random() * ins.length)];
      const to = outs.filter((d) => d >> 1 !== from >> 1)[0];
      if (to !== undefined) rules.push({ kind: random() < 0.7 ? 'no' : 'only', roads: [from, to] });
    }
    return rules;
  };
  return builder.build({ source: 'gothenburg', attribution: '', profile: 'car', builtAt: '' }, turns);
}

export async function restrictionsBench(): Promise<string> {
  const lines = [
    '## Turn restrictions (junction copies)',
    '',
    'Each extract imported twice, without and with its `type=restriction` relations; routes between',
    `the same ${PAIRS.toLocaleString('en')} random node positions on both (Router.route: snapping + A* with 16 landmarks + geometry).`,
    'The default city (Gothenburg, GeoJSON) has no relations, so restrictions cost it nothing.',
    'Andorra and Campo Grande apply none: their rows show how much the timings move between identical graphs.',
    '',
    '| extract | restrictions applied | nodes | edges | graph bytes | import | route, fastest | route, shortest | nodes settled (fastest) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [file, format] of EXTRACTS) {
    const path = OSM_DIR + file;
    if (!existsSync(path)) {
      lines.push(`| ${file} | absent | | | | | | | |`);
      continue;
    }
    // Alternate the two imports and keep each one's fastest of 3 (the machine is shared).
    let plainMs = Infinity, withMs = Infinity;
    let plain!: Awaited<ReturnType<typeof importOsmWithSummary>>, withR!: typeof plain;
    for (let run = 0; run < 3; run++) {
      let t0 = performance.now();
      plain = await importOsmWithSummary(path, format, { turnRestrictions: false });
      plainMs = Math.min(plainMs, performance.now() - t0);
      t0 = performance.now();
      withR = await importOsmWithSummary(path, format);
      withMs = Math.min(withMs, performance.now() - t0);
    }
    const g0 = plain.graph, g1 = withR.graph;
    const random = seededRandom(7);
    const pairs: [number, number, number, number][] = [];
    for (let i = 0; i < PAIRS; i++) {
      const u = Math.floor(random() * g0.nodeCount), v = Math.floor(random() * g0.nodeCount);
      pairs.push([g0.nodeLatitude(u), g0.nodeLongitude(u), g0.nodeLatitude(v), g0.nodeLongitude(v)]);
    }
    // Alternating rounds; the median of the rounds' medians.
    const rounds = (g: RoadGraph, mode: 'THE_FASTEST' | 'THE_SHORTEST', other: RoadGraph) => {
      const us: number[] = [], usOther: number[] = [];
      let settled = 0, settledOther = 0;
      for (let r = 0; r < 3; r++) {
        const a = routeTimes(g, pairs, mode), b = routeTimes(other, pairs, mode);
        us.push(a.us); usOther.push(b.us); settled = a.settled; settledOther = b.settled;
      }
      return [{ us: median(us), settled }, { us: median(usOther), settled: settledOther }];
    };
    const [f0, f1] = rounds(g0, 'THE_FASTEST', g1);
    const [s0, s1] = rounds(g0, 'THE_SHORTEST', g1);
    const pct = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`;
    const pair = (a: number, b: number, unit = '') => `${a.toFixed(0)}${unit} → ${b.toFixed(0)}${unit} (${pct(a, b)})`;
    lines.push(
      `| ${file} | ${withR.summary.restrictions.applied} of ${withR.summary.restrictions.read} | ${pair(g0.nodeCount, g1.nodeCount)} | ` +
        `${pair(g0.edgeCount, g1.edgeCount)} | ${pair(g0.byteSize(), g1.byteSize())} | ${pair(plainMs, withMs, ' ms')} | ` +
        `${pair(f0.us, f1.us, ' µs')} | ${pair(s0.us, s1.us, ' µs')} | ${pair(f0.settled, f1.settled)} |`,
    );
  }
  lines.push('', `Synthetic: the default city with a random restriction at 2 % and 10 % of its junctions (70 % no_*,`,
    '30 % only_*; directions not always drivable, so some forbid nothing), same measures:', '',
    '| graph | nodes | edges | graph bytes | route, fastest | route, shortest | nodes settled (fastest) |', '|---|---|---|---|---|---|---|');
  const g0 = gothenburg(0);
  const random = seededRandom(5);
  const pairs: [number, number, number, number][] = [];
  for (let i = 0; i < PAIRS; i++) {
    const u = Math.floor(random() * g0.nodeCount), v = Math.floor(random() * g0.nodeCount);
    pairs.push([g0.nodeLatitude(u), g0.nodeLongitude(u), g0.nodeLatitude(v), g0.nodeLongitude(v)]);
  }
  const pct = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`;
  const pair = (a: number, b: number, unit = '') => `${a.toFixed(0)}${unit} → ${b.toFixed(0)}${unit} (${pct(a, b)})`;
  for (const share of [0.02, 0.1]) {
    const g1 = gothenburg(share);
    const f0 = routeTimes(g0, pairs, 'THE_FASTEST'), f1 = routeTimes(g1, pairs, 'THE_FASTEST');
    const s0 = routeTimes(g0, pairs, 'THE_SHORTEST'), s1 = routeTimes(g1, pairs, 'THE_SHORTEST');
    lines.push(`| Gothenburg, ${share * 100} % of junctions | ${pair(g0.nodeCount, g1.nodeCount)} | ${pair(g0.edgeCount, g1.edgeCount)} | ` +
      `${pair(g0.byteSize(), g1.byteSize())} | ${pair(f0.us, f1.us, ' µs')} | ${pair(s0.us, s1.us, ' µs')} | ${pair(f0.settled, f1.settled)} |`);
  }
  lines.push('');
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(await restrictionsBench());

import { withHierarchy } from '../src/hierarchy/hierarchySections.js';
import type { HierarchyGraph } from '../src/hierarchy/ContractionHierarchy.js';
/**
 * Turn restrictions, barriers and ferries against an independent oracle: a plain edge-based
 * Dijkstra written here over the raw OSM ways and restriction relations (parsed here, from the
 * XML fixtures or the PBF extracts), whose states are directed way segments plus how far each
 * restriction's segment sequence has been driven. It shares only the car profile's per-way and
 * per-node rules (carRoadAttributes, carBarrierBlocks) with detour.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { createReadStream } from 'node:fs';
import { OSMTransform } from 'osm-pbf-parser-node';
import { importOsmWithSummary, type ImportSummary } from '../src/graph/importOsm.js';
import { carBarrierBlocks, carRoadAttributes, RoadFlag, type OsmTags } from '../src/graph/carProfile.js';
import { haversineMetres } from '../src/geo/haversine.js';
import { Router } from '../src/routing/Router.js';
import { RoadGraph } from '../src/graph/RoadGraph.js';
import { buildHierarchy } from '../src/hierarchy/buildHierarchy.js';
import { DetourError } from '../src/errors.js';
import { seededRandom } from '../bench/seededRandom.js';
import { CLI, ROOT, roundingSlack, SHARED_OSM, withinRounding } from './support/helpers.js';
import { calculateZone } from '../src/zones/calculateZone.js';
import { validateZone } from '../src/zones/validateZone.js';

const FIXTURES = join(ROOT, 'test', 'fixtures') + '/';

interface RawOsm {
  nodes: Map<number, { lat: number; lon: number; tags: OsmTags }>;
  ways: Map<number, { refs: number[]; tags: OsmTags }>;
  relations: { id: number; members: { type: string; ref: number; role: string }[]; tags: OsmTags }[];
}

/** A deliberately simple reader for the hand-made fixtures (one element or tag per line). */
function parseFixture(path: string): RawOsm {
  const raw: RawOsm = { nodes: new Map(), ways: new Map(), relations: [] };
  let tags: OsmTags | null = null;
  let refs: number[] = [];
  let members: RawOsm['relations'][number]['members'] = [];
  const attr = (line: string, k: string) => new RegExp(`${k}="([^"]*)"`).exec(line)?.[1];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const t = line.trim();
    if (t.startsWith('<node')) {
      const n = { lat: Number(attr(t, 'lat')), lon: Number(attr(t, 'lon')), tags: {} as OsmTags };
      raw.nodes.set(Number(attr(t, 'id')), n);
      tags = t.endsWith('/>') ? null : n.tags;
    } else if (t.startsWith('<way')) {
      refs = [];
      tags = {};
      raw.ways.set(Number(attr(t, 'id')), { refs, tags });
    } else if (t.startsWith('<relation')) {
      members = [];
      tags = {};
      raw.relations.push({ id: Number(attr(t, 'id')), members, tags });
    } else if (t.startsWith('<nd')) refs.push(Number(attr(t, 'ref')));
    else if (t.startsWith('<member')) members.push({ type: attr(t, 'type')!, ref: Number(attr(t, 'ref')), role: attr(t, 'role')! });
    else if (t.startsWith('<tag') && tags) tags[attr(t, 'k')!] = attr(t, 'v')!.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  }
  return raw;
}

async function parsePbf(path: string): Promise<RawOsm> {
  const raw: RawOsm = { nodes: new Map(), ways: new Map(), relations: [] };
  const parser = new OSMTransform({ withTags: true, withInfo: false });
  createReadStream(path).pipe(parser);
  for await (const batch of parser as AsyncIterable<Array<Record<string, any>>>) {
    for (const item of batch) {
      if (item.type === 'node') raw.nodes.set(item.id, { lat: item.lat, lon: item.lon, tags: item.tags ?? {} });
      else if (item.type === 'way') raw.ways.set(item.id, { refs: item.refs, tags: item.tags ?? {} });
      else if (item.type === 'relation') raw.relations.push({ id: item.id, members: item.members, tags: item.tags ?? {} });
    }
  }
  return raw;
}

/** Directed segment key: way, index of its second point, direction. */
type Seg = string;
const segKey = (way: number, k: number, against: boolean): Seg => `${way}:${k}:${against ? 1 : 0}`;

interface OracleSeg { key: Seg; from: number; to: number; distance: number; duration: number; reverse: Seg }

/** The raw network and its restrictions as sequences of directed segments. */
class Oracle {
  readonly out = new Map<number, OracleSeg[]>();
  readonly seg = new Map<Seg, OracleSeg>();
  readonly degree = new Map<number, number>();
  readonly barrier = new Set<number>();
  readonly patterns: { kind: 'no' | 'only'; segs: Seg[] }[] = [];
  readonly startsWith = new Map<Seg, number[]>();
  applied = 0;

  /** `closed`: segments (as "lat,lon|lat,lon" either way round) a route may not use, e.g. a zone's. */
  constructor(readonly raw: RawOsm, readonly closed: Set<string> = new Set()) {
    for (const [id, n] of raw.nodes) if (carBarrierBlocks(n.tags)) this.barrier.add(id);
    for (const [wayId, w] of raw.ways) {
      const attrs = carRoadAttributes(w.tags);
      if (!attrs) continue;
      for (let k = 1; k < w.refs.length; k++) {
        const a = w.refs[k - 1], b = w.refs[k];
        const na = raw.nodes.get(a), nb = raw.nodes.get(b);
        if (!na || !nb || a === b) continue;
        this.degree.set(a, (this.degree.get(a) ?? 0) + 1);
        this.degree.set(b, (this.degree.get(b) ?? 0) + 1);
        if (closed.has(`${na.lat},${na.lon}|${nb.lat},${nb.lon}`)) continue;
        const distance = haversineMetres(na.lat, na.lon, nb.lat, nb.lon);
        const duration = distance / (attrs.speedKmh / 3.6);
        const fwd = segKey(wayId, k, false), bwd = segKey(wayId, k, true);
        if (attrs.flags & RoadFlag.FORWARD) this.add({ key: fwd, from: a, to: b, distance, duration, reverse: bwd });
        if (attrs.flags & RoadFlag.BACKWARD) this.add({ key: bwd, from: b, to: a, distance, duration, reverse: fwd });
      }
    }
    for (const r of raw.relations) this.addRestriction(r);
    this.patterns.forEach((p, i) => {
      const list = this.startsWith.get(p.segs[0]) ?? [];
      list.push(i);
      this.startsWith.set(p.segs[0], list);
    });
  }

  private add(s: OracleSeg) {
    this.seg.set(s.key, s);
    const list = this.out.get(s.from) ?? [];
    list.push(s);
    this.out.set(s.from, list);
  }

  /** The segment of way w touching its end node `node`, into it (or out of it). */
  private endSegment(w: number, node: number, into: boolean): Seg | null {
    const refs = this.raw.ways.get(w)!.refs;
    const atEnd = refs[refs.length - 1] === node, atStart = refs[0] === node;
    if (atEnd === atStart) return null;
    return atEnd ? segKey(w, refs.length - 1, !into) : segKey(w, 1, into);
  }

  private addRestriction(r: RawOsm['relations'][number]) {
    if (r.tags.type !== 'restriction') return;
    const value = r.tags['restriction:motorcar'] ?? r.tags['restriction:motor_vehicle'] ?? r.tags['restriction:vehicle'] ?? r.tags.restriction;
    if (!value || !/^(no|only)_(left_turn|right_turn|straight_on|u_turn|entry|exit)$/.test(value)) return;
    if ((r.tags.except ?? '').split(';').some((v) => ['motorcar', 'motor_vehicle', 'vehicle'].includes(v))) return;
    const role = (x: string) => r.members.filter((m) => m.role === x);
    const from = role('from').map((m) => m.ref), to = role('to').map((m) => m.ref), via = role('via');
    const isCarWay = (id: number) => this.raw.ways.has(id) && carRoadAttributes(this.raw.ways.get(id)!.tags) !== null;
    if (!from.length || !to.length || !via.length || ![...from, ...to].every(isCarWay)) return;
    let entry: number, exit: number;
    let viaSegs: Seg[] = [];
    if (via[0].type === 'node') {
      if (via.length !== 1) return;
      entry = exit = via[0].ref;
    } else {
      if (!via.every((m) => m.type === 'way' && isCarWay(m.ref))) return;
      const f = this.raw.ways.get(from[0])!.refs, v0 = this.raw.ways.get(via[0].ref)!.refs;
      const shared = [v0[0], v0[v0.length - 1]].filter((p) => p === f[0] || p === f[f.length - 1]);
      if (shared.length !== 1) return;
      let at = shared[0];
      entry = at;
      for (const m of via) {
        const refs = this.raw.ways.get(m.ref)!.refs;
        if (refs[0] === refs[refs.length - 1]) return;
        if (refs[0] === at) {
          for (let k = 1; k < refs.length; k++) viaSegs.push(segKey(m.ref, k, false));
          at = refs[refs.length - 1];
        } else if (refs[refs.length - 1] === at) {
          for (let k = refs.length - 1; k >= 1; k--) viaSegs.push(segKey(m.ref, k, true));
          at = refs[0];
        } else return;
      }
      exit = at;
    }
    if (this.barrier.has(entry) || this.barrier.has(exit)) return;
    const kind = value.startsWith('only') ? 'only' : 'no';
    if (kind === 'only' && to.length > 1) return;
    const seqs: Seg[][] = [];
    for (const f of from) {
      const a = this.endSegment(f, entry, true);
      if (!a) return;
      for (const t of to) {
        const b = this.endSegment(t, exit, false);
        if (!b) return;
        seqs.push([a, ...viaSegs, b]);
      }
    }
    this.applied++;
    for (const segs of seqs) this.patterns.push({ kind, segs });
  }

  /**
   * Cheapest cost from junction node s to junction node t: states are (directed segment, partial
   * matches of restriction sequences); a u-turn (back along the same segment) only where the
   * node has 1 or 3+ segment ends or is a barrier, and at a barrier nothing else.
   */
  cost(s: number, t: number, metric: 'distance' | 'duration'): number {
    return this.costsFrom(s, [t], metric).get(t)!;
  }

  /** Cheapest costs from junction node s to each of `targets` (Infinity when unreachable): one search for all. */
  costsFrom(s: number, targets: readonly number[], metric: 'distance' | 'duration'): Map<number, number> {
    const found = new Map<number, number>();
    const wanted = new Set(targets);
    if (wanted.delete(s)) found.set(s, 0);
    const best = new Map<string, number>();
    const heap: [number, Seg, string][] = [];
    const push = (c: number, seg: Seg, progress: string) => {
      const key = `${seg}|${progress}`;
      if ((best.get(key) ?? Infinity) <= c) return;
      best.set(key, c);
      heap.push([c, seg, progress]);
      let i = heap.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (heap[p][0] <= heap[i][0]) break;
        [heap[p], heap[i]] = [heap[i], heap[p]];
        i = p;
      }
    };
    const pop = () => {
      const top = heap[0];
      const last = heap.pop()!;
      if (heap.length) {
        heap[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1, r = l + 1;
          let m = i;
          if (l < heap.length && heap[l][0] < heap[m][0]) m = l;
          if (r < heap.length && heap[r][0] < heap[m][0]) m = r;
          if (m === i) break;
          [heap[m], heap[i]] = [heap[i], heap[m]];
          i = m;
        }
      }
      return top;
    };
    /** Progress after driving `next`; null when a restriction forbids it. */
    const step = (progress: string, next: Seg): string | null => {
      if (!progress && !this.startsWith.has(next)) return '';
      const out: string[] = [];
      const matches = progress ? progress.split(',').map((x) => x.split('/').map(Number)) : [];
      for (const p of this.startsWith.get(next) ?? []) matches.push([p, 0]);
      for (const [p, i] of matches) {
        const pat = this.patterns[p];
        const len = pat.segs.length;
        if (pat.kind === 'only' && i === len - 1) {
          if (next !== pat.segs[i]) return null;
          continue;
        }
        if (pat.segs[i] !== next) continue;
        if (pat.kind === 'no' && i + 1 === len) return null;
        out.push(`${p}/${i + 1}`);
      }
      return [...new Set(out)].sort().join(',');
    };
    for (const seg of this.out.get(s) ?? []) {
      const progress = step('', seg.key);
      if (progress !== null) push(seg[metric], seg.key, progress);
    }
    while (heap.length) {
      const [c, key, progress] = pop();
      if (best.get(`${key}|${progress}`)! < c) continue;
      const seg = this.seg.get(key)!;
      const v = seg.to;
      if (wanted.delete(v)) {
        found.set(v, c);
        if (wanted.size === 0) break;
      }
      const barrier = this.barrier.has(v);
      const uTurnHere = barrier || this.degree.get(v) !== 2;
      for (const next of this.out.get(v) ?? []) {
        const uTurn = next.key === seg.reverse;
        if (uTurn ? !uTurnHere : barrier) continue;
        const p = step(progress, next.key);
        if (p !== null) push(c + next[metric], next.key, p);
      }
    }
    for (const v of wanted) found.set(v, Infinity);
    return found;
  }
}

/**
 * detour's cost between two node positions, Infinity when it finds no route, or null when it
 * moved a stop (a node on a piece cut off from the main network: the snapping rule, not ours).
 */
function detourCost(router: Router, a: { lat: number; lon: number }, b: { lat: number; lon: number }, mode: 'THE_SHORTEST' | 'THE_FASTEST'): number | null {
  return detourRoute(router, a, b, mode)?.cost ?? null;
}

/** The route's cost, and how far above the exact cost of its path its rounding of roads may put it (roundingSlack). */
function detourRoute(router: Router, a: { lat: number; lon: number }, b: { lat: number; lon: number }, mode: 'THE_SHORTEST' | 'THE_FASTEST'): { cost: number; slack: number } | null {
  const points = [{ latitude: a.lat, longitude: a.lon }, { latitude: b.lat, longitude: b.lon }];
  const snaps = router.snapStops(points);
  if (snaps.some((s) => s.distance > 1e-6)) return null;
  const metric = mode === 'THE_SHORTEST' ? 'distance' : 'duration';
  try {
    const route = router.route({ points, calculationMode: mode });
    return { cost: mode === 'THE_SHORTEST' ? route.distance : route.duration, slack: roundingSlack(router.graph, route.legs[0], metric) };
  } catch (err) {
    if (err instanceof DetourError && err.code === 'ROUTE_NOT_FOUND') return { cost: Infinity, slack: 0 };
    throw err;
  }
}

function close(a: number, b: number): boolean {
  if (a === Infinity || b === Infinity) return a === b;
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a));
}

/** The same graph with its contraction hierarchy, so both engines run over the junction copies. */
function hierarchyCopy(graph: RoadGraph): HierarchyGraph {
  return withHierarchy(new RoadGraph(graph, graph.meta), buildHierarchy(graph));
}

/**
 * Compares detour with the oracle on node pairs, with the A* engine and with the contraction
 * hierarchy (both over the junction copies); returns the number of pairs compared.
 */
function compareOnPairs(graph: HierarchyGraph, oracle: Oracle, pairs: [number, number][], label: string): number {
  const routers = [new Router(graph, { landmarks: 0 }), new Router(hierarchyCopy(graph), { engine: 'ch' })];
  let compared = 0;
  const failures: string[] = [];
  // One oracle search per source and metric, for all of that source's targets.
  const targetsOf = new Map<number, number[]>();
  for (const [s, t] of pairs) targetsOf.set(s, [...(targetsOf.get(s) ?? []), t]);
  const expectedFrom = new Map<string, Map<number, number>>();
  for (const [s, t] of pairs) {
    const a = oracle.raw.nodes.get(s)!, b = oracle.raw.nodes.get(t)!;
    for (const [mode, metric] of [['THE_SHORTEST', 'distance'], ['THE_FASTEST', 'duration']] as const) {
      const key = `${s}|${metric}`;
      if (!expectedFrom.has(key)) expectedFrom.set(key, oracle.costsFrom(s, targetsOf.get(s)!, metric));
      const expected = expectedFrom.get(key)!.get(t)!;
      for (const router of routers) {
        const got = detourRoute(router, a, b, mode);
        if (got === null) continue;
        if (router === routers[0]) compared++;
        if (!withinRounding(got.cost, expected, got.slack)) failures.push(`${label} ${router.search.name} ${s} -> ${t} ${metric}: detour ${got.cost}, oracle ${expected}`);
      }
    }
  }
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${compared} disagree`);
  assert.ok(compared >= pairs.length, `only ${compared} of ${pairs.length * 2} pairs compared (stops moved)`);
  return compared;
}

/** Nodes where three or more car segments meet (positions a stop snaps to unambiguously). */
function junctions(oracle: Oracle): number[] {
  return [...oracle.degree].filter(([id, d]) => d >= 3 && !oracle.barrier.has(id)).map(([id]) => id).sort((a, b) => a - b);
}

async function importFixture(name: string): Promise<{ graph: RoadGraph; summary: ImportSummary; oracle: Oracle }> {
  const path = FIXTURES + name;
  const { graph, summary } = await importOsmWithSummary(path, 'xml');
  return { graph, summary, oracle: new Oracle(parseFixture(path)) };
}

test('restrictions fixture: the import summary counts every relation by what happened to it', async () => {
  const { summary, oracle } = await importFixture('restrictions.osm');
  assert.equal(summary.restrictions.read, 22);
  assert.equal(summary.restrictions.applied, 14);
  assert.equal(oracle.applied, 14);
  assert.deepEqual(summary.restrictions.skipped, {
    conditionalOnly: 1, otherVehicles: 1, exceptCars: 1, unknownKind: 1, missingMembers: 1, outsideExtract: 1,
    notCarRoad: 1, viaNotJoined: 1, barrier: 0,
  });
  assert.ok(summary.turns.nodesAdded > 0 && summary.turns.edgesAdded > 0);
});

test('restrictions fixture: every restriction kind, via node and via ways, equals the edge-based oracle on all junction pairs', async () => {
  const { graph, oracle } = await importFixture('restrictions.osm');
  const nodes = [...junctions(oracle), 900]; // 900: a point where two roads with different speeds meet
  const pairs: [number, number][] = [];
  for (const s of nodes) for (const t of nodes) if (s !== t) pairs.push([s, t]);
  const compared = compareOnPairs(graph, oracle, pairs, 'fixture');
  assert.ok(compared > 1500, `${compared}`);
  // Point 900's original node has no in-edges left (both ways in lead to copies): a stop there
  // must still count as on the main network and stay put.
  const x = oracle.raw.nodes.get(900)!, j = oracle.raw.nodes.get(122)!;
  const snaps = new Router(graph).snapStops([{ latitude: x.lat, longitude: x.lon }, { latitude: j.lat, longitude: j.lon }]);
  assert.deepEqual(snaps.map((s) => s.distance), [0, 0]);
});

test('restrictions fixture: stops in the middle of roads (on a from way, on a to way) equal the oracle', async () => {
  const { graph, oracle } = await importFixture('restrictions.osm');
  const raw = oracle.raw;
  const carNodes = [...oracle.degree.keys()].filter((id) => !oracle.barrier.has(id)).sort((a, b) => a - b);
  const pairs: [number, number][] = [];
  // Every restriction: from each node of its from ways to each node of its to ways.
  for (const r of raw.relations) {
    const nodesOf = (role: string) => r.members.filter((m) => m.role === role && raw.ways.has(m.ref)).flatMap((m) => raw.ways.get(m.ref)!.refs);
    for (const s of nodesOf('from')) for (const t of nodesOf('to')) if (s !== t && oracle.degree.has(s) && oracle.degree.has(t)) pairs.push([s, t]);
  }
  const random = seededRandom(42);
  while (pairs.length < 800) {
    const s = carNodes[Math.floor(random() * carNodes.length)], t = carNodes[Math.floor(random() * carNodes.length)];
    if (s !== t) pairs.push([s, t]);
  }
  compareOnPairs(graph, oracle, pairs, 'mid-road');
});

test('restrictions fixture: each applied restriction changes some route (so none is vacuous)', async () => {
  const raw = parseFixture(FIXTURES + 'restrictions.osm');
  const free = new Oracle({ ...raw, relations: [] });
  const all = new Oracle(raw);
  const nodes = junctions(free);
  const differ = (a: Oracle, b: Oracle) => {
    for (const s of nodes) {
      for (const t of nodes) {
        for (const metric of ['distance', 'duration'] as const) if (Math.abs(a.cost(s, t, metric) - b.cost(s, t, metric)) > 1e-6) return true;
      }
    }
    return false;
  };
  let checked = 0;
  for (const relation of raw.relations) {
    const alone = new Oracle({ ...raw, relations: [relation] });
    if (alone.applied === 0) continue;
    checked++;
    // On its own, or (a no_u_turn, which only matters beside another restriction) by its absence.
    const others = new Oracle({ ...raw, relations: raw.relations.filter((r) => r !== relation) });
    assert.ok(differ(alone, free) || differ(all, others), `relation ${relation.id} (${JSON.stringify(relation.tags)}) changes no route`);
  }
  assert.equal(checked, 14);
});

test('barriers fixture: blocking barriers cut roads, passable ones do not; equals the oracle', async () => {
  const { graph, summary, oracle } = await importFixture('barriers.osm');
  // Rungs 0, 3, 4, 6 and the junction bollard block; 1, 2, 5, 7 pass.
  assert.deepEqual(summary.barriers, { blocking: 5, passable: 4, tollBooths: 0 });
  // A restriction whose via node is the junction bollard: cars cannot pass there anyway.
  assert.equal(summary.restrictions.skipped.barrier, 1);
  assert.equal(oracle.applied, 0);
  const J = (r: number, c: number) => 100 + r * 10 + c;
  const router = new Router(graph, { landmarks: 0 });
  const at = (id: number) => oracle.raw.nodes.get(id)!;
  // Straight up a passable rung: about 111 m; up a blocked rung: around through a passable one.
  const up = (c: number) => detourCost(router, at(J(0, c)), at(J(1, c)), 'THE_SHORTEST')!;
  for (const c of [1, 2, 7]) assert.ok(up(c) < 115, `rung ${c} passes: ${up(c)}`);
  for (const c of [0, 3, 4, 6]) assert.ok(up(c) > 200, `rung ${c} blocks: ${up(c)}`);
  const nodes = [...oracle.raw.nodes.keys()].filter((id) => id < 1000 && !oracle.barrier.has(id));
  const pairs: [number, number][] = [];
  for (const s of nodes) for (const t of nodes) if (s !== t) pairs.push([s, t]);
  compareOnPairs(graph, oracle, pairs, 'barriers');
});

test('ferries fixture: passenger ferries are not roads, car ferries are; equals the oracle', async () => {
  const { graph, oracle } = await importFixture('ferries.osm');
  const ferries = [...Array(graph.roadCount).keys()].filter((r) => graph.roadFlags[r] & RoadFlag.FERRY);
  assert.equal(ferries.length, 2, 'the motorcar=yes ferry and the ferry=primary one');
  const J = (r: number, c: number) => 100 + r * 10 + c;
  const nodes = [J(0, 0), J(0, 1), J(0, 2), J(0, 3), J(1, 0), J(1, 1), J(1, 2), J(1, 3)];
  const pairs: [number, number][] = [];
  for (const s of nodes) for (const t of nodes) if (s !== t) pairs.push([s, t]);
  compareOnPairs(graph, oracle, pairs, 'ferries');
  // Across the water from the passenger pier: by the car ferry, not the water bus.
  const router = new Router(graph, { landmarks: 0 });
  const at = (id: number) => oracle.raw.nodes.get(id)!;
  assert.ok(detourCost(router, at(J(0, 1)), at(J(1, 1)), 'THE_SHORTEST')! > 1200);
});

/** Each extract imported and parsed once per file: the tests below only read them. */
const extractImports = new Map<string, ReturnType<typeof importOsmWithSummary>>();
const importExtract = (path: string) => extractImports.get(path) ?? extractImports.set(path, importOsmWithSummary(path, 'pbf')).get(path)!;
const extractParses = new Map<string, Promise<RawOsm>>();
const parseExtract = (path: string) => extractParses.get(path) ?? extractParses.set(path, parsePbf(path)).get(path)!;

for (const file of ['monaco.osm.pbf', 'andorra.osm.pbf']) {
  const path = SHARED_OSM + file;
  test(`${file}: random junction pairs equal the edge-based oracle, both metrics`, { skip: existsSync(path) ? false : `${path} is absent` }, async () => {
    const { graph, summary } = await importExtract(path);
    const oracle = new Oracle(await parseExtract(path));
    assert.equal(summary.restrictions.applied, oracle.applied);
    const nodes = junctions(oracle);
    const random = seededRandom(file.length * 7919);
    const pairs: [number, number][] = [];
    // Pairs around restricted junctions first (where copies matter), then any: from each via node to
    // random junctions, from random junctions to every via node, and among random junctions (each
    // source's targets share one oracle search).
    const viaNodes = [...new Set(oracle.raw.relations.flatMap((r) => r.members.filter((m) => m.role === 'via' && m.type === 'node').map((m) => m.ref)).filter((id) => oracle.degree.has(id)))];
    const pick = (count: number) => Array.from({ length: count }, () => nodes[Math.floor(random() * nodes.length)]);
    for (const v of viaNodes) for (const t of pick(4)) pairs.push([v, t]);
    for (const s of pick(4)) for (const v of viaNodes) pairs.push([s, v]);
    const sources = pick(10), targets = pick(Math.ceil(Math.max(0, 300 - pairs.length) / 10));
    for (const s of sources) for (const t of targets) pairs.push([s, t]);
    compareOnPairs(graph, oracle, pairs, file);
  });
}

test('detour import prints the restriction and barrier summary', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'detour-legal-')), 'r.detour');
  const r = spawnSync(process.execPath, [CLI, 'import', FIXTURES + 'restrictions.osm', '-o', out], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /turn restrictions: 22 read, 14 applied, 8 skipped \(conditionalOnly 1, otherVehicles 1, exceptCars 1, unknownKind 1, missingMembers 1, outsideExtract 1, notCarRoad 1, viaNotJoined 1\); junction copies add \d+ nodes and \d+ edges/);
  const b = spawnSync(process.execPath, [CLI, 'import', FIXTURES + 'barriers.osm', '-o', out], { encoding: 'utf8', timeout: 120_000 });
  assert.match(b.stdout, /barriers: 5 stop cars, 4 passable/);
});

test('monaco.osm.pbf: the passenger Bateau Bus (way 166399542, bare route=ferry) is not a road', { skip: existsSync(SHARED_OSM + 'monaco.osm.pbf') ? false : 'monaco.osm.pbf is absent' }, async () => {
  const { graph } = await importExtract(SHARED_OSM + 'monaco.osm.pbf');
  const ferries = [...Array(graph.roadCount).keys()].filter((r) => graph.roadFlags[r] & RoadFlag.FERRY);
  assert.deepEqual(ferries, [], 'Monaco has no car ferry');
  // Across the harbour between its two piers: by road, far longer than the ~320 m crossing.
  const router = new Router(graph);
  const route = router.route({
    points: [{ latitude: 43.736984, longitude: 7.4252073 }, { latitude: 43.7346299, longitude: 7.4274737 }],
    calculationMode: 'THE_SHORTEST',
  });
  assert.ok(route.distance > 600, String(route.distance));
});

test('monaco.osm.pbf: with restriction zones too, random junction pairs equal the oracle (zone roads closed in it)', { skip: existsSync(SHARED_OSM + 'monaco.osm.pbf') ? false : 'monaco.osm.pbf is absent' }, async () => {
  const path = SHARED_OSM + 'monaco.osm.pbf';
  const { graph } = await importExtract(path);
  const raw = await parseExtract(path);
  const random = seededRandom(2024);
  // Three squares of about 300 m around random junctions.
  const zones = [0, 1, 2].map((i) => {
    const v = Math.floor(random() * graph.nodeCount);
    const lat = graph.nodeLatitude(v), lon = graph.nodeLongitude(v), d = 0.0014;
    return calculateZone(graph, validateZone({ name: `z${i}`, geometries: [{ name: 'square', vertices: [
      { latitude: lat - d, longitude: lon - d }, { latitude: lat - d, longitude: lon + d },
      { latitude: lat + d, longitude: lon + d }, { latitude: lat + d, longitude: lon - d },
    ] }] }));
  });
  const closed = new Set<string>();
  for (const z of zones) {
    for (const r of z.roads) {
      for (let k = 1; k < graph.roadPointCount(r); k++) {
        const a = `${graph.roadPointLat(r, k - 1)},${graph.roadPointLon(r, k - 1)}`, b = `${graph.roadPointLat(r, k)},${graph.roadPointLon(r, k)}`;
        closed.add(`${a}|${b}`);
        closed.add(`${b}|${a}`);
      }
    }
  }
  assert.ok(closed.size > 100, `the zones close ${closed.size / 2} segments`);
  const oracle = new Oracle(raw, closed);
  const full = new Oracle(raw);
  // Junctions no zone touches (a stop inside a zone is served through it: another rule).
  const nodes = junctions(full).filter((id) => oracle.degree.get(id) === full.degree.get(id));
  // The hierarchy's engine: its CH-potential A* honours the zones over the junction copies.
  const router = new Router(hierarchyCopy(graph));
  assert.equal(router.search.name, 'ch');
  let compared = 0, throughZones = 0, changed = 0;
  const failures: string[] = [];
  // 10 sources x 20 targets, junctions where a stop stays put; one oracle search per source and metric.
  const onRoad = (id: number) => {
    const p = raw.nodes.get(id)!;
    return router.snapStops([{ latitude: p.lat, longitude: p.lon }])[0].distance <= 1e-6;
  };
  const pickOnRoad = (count: number) => {
    const picked: number[] = [];
    while (picked.length < count) {
      const id = nodes[Math.floor(random() * nodes.length)];
      if (onRoad(id)) picked.push(id);
    }
    return picked;
  };
  const sources = pickOnRoad(10), targets = pickOnRoad(20);
  for (const s of sources) for (const [mode, metric] of [['THE_SHORTEST', 'distance'], ['THE_FASTEST', 'duration']] as const) {
    const expectedTo = oracle.costsFrom(s, targets, metric), freeTo = full.costsFrom(s, targets, metric);
    for (const t of targets) {
      const a = raw.nodes.get(s)!, b = raw.nodes.get(t)!;
      const points = [{ latitude: a.lat, longitude: a.lon }, { latitude: b.lat, longitude: b.lon }];
      const expected = expectedTo.get(t)!;
      let got: number, slack = 0;
      try {
        const route = router.route({ points, calculationMode: mode, zones });
        slack = roundingSlack(graph, route.legs[0], metric);
        // A stop exactly on a junction may snap to the end of a zone road (the first of the roads
        // meeting there): served by the fallback, it lists the zones it drove inside, none here.
        const through = (route.legs[0].zonesEntered?.length ?? 0) > 0;
        got = through ? Infinity : mode === 'THE_SHORTEST' ? route.distance : route.duration;
        if (through) throughZones++;
      } catch (err) {
        if (!(err instanceof DetourError && err.code === 'ROUTE_NOT_FOUND')) throw err;
        got = Infinity;
      }
      compared++;
      if (!close(freeTo.get(t)!, expected)) changed++;
      if (!withinRounding(got, expected, slack)) failures.push(`${s} -> ${t} ${metric}: detour ${got}, oracle ${expected}`);
    }
  }
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${compared} disagree (${throughZones} only through zones)`);
  assert.ok(changed > 20, `the zones change ${changed} of ${compared} routes`);
});

test('malformed restriction relations are skipped and counted, never a crash', async () => {
  const { graph, summary, oracle } = await importFixture('malformed-restrictions.osm');
  assert.equal(summary.restrictions.read, 11);
  assert.equal(summary.restrictions.applied, 0);
  assert.equal(oracle.applied, 0);
  assert.deepEqual(summary.restrictions.skipped, {
    conditionalOnly: 0, otherVehicles: 0, exceptCars: 0,
    unknownKind: 2, // no restriction tag (nor members); a list of values
    missingMembers: 4, // a from without a role; a relation as via; two via nodes; two `to` for an only_*
    outsideExtract: 3, // a from id that is not a number; a via id that is not a number; a via node not in the file
    notCarRoad: 0,
    viaNotJoined: 2, // a closed via way; a via node the from way does not end at
    barrier: 0,
  });
  const nodes = [1, 2, 3, 4, 5];
  const pairs: [number, number][] = [];
  for (const s of nodes) for (const t of nodes) if (s !== t) pairs.push([s, t]);
  compareOnPairs(graph, oracle, pairs, 'malformed');
});

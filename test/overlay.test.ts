import { withHierarchy } from '../src/hierarchy/hierarchySections.js';
import type { HierarchyGraph } from '../src/hierarchy/ContractionHierarchy.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Route, RouteRequest } from '../src/routing/routeRequest.js';
import type { BlockedCellCliques } from '../src/routing/PathSearch.js';
import { buildHierarchy, decodeGraph, encodeGraph, importGeoJson, openGraph, Router, type DetourError, type LatLon, type Metric, type RoadGraph } from '../src/index.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { bigCellOf, buildCellOverlay, slotIn, cellPartition, cliqueOffsets, OVERLAY_ARRAY_KEYS, UNREACHABLE, type CellOverlay } from '../src/hierarchy/CellOverlay.js';
import { crc32 } from '../src/graph/crc32.js';
import { sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { MAX_CUSTOMIZED_ENTRIES, OverlaySearch } from '../src/routing/OverlaySearch.js';
import { close, dijkstra, GOTHENBURG_GEOJSON, randomZone, seededRandom, sharedExtract } from './support/helpers.js';

const METRICS: Metric[] = ['duration', 'distance'];

const gothenburg: HierarchyGraph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')), { source: 'gothenburg', attribution: 'ODbL' });
buildHierarchy(gothenburg);

/** Random stops snapped as the router snaps them. */
function randomSnaps(graph: HierarchyGraph, router: Router, rand: () => number) {
  const ra = Math.floor(rand() * graph.roadCount), rb = Math.floor(rand() * graph.roadCount);
  return router.snapStops([
    { latitude: graph.roadPointLat(ra, 0) + (rand() - 0.5) * 1e-3, longitude: graph.roadPointLon(ra, 0) + (rand() - 0.5) * 1e-3 },
    { latitude: graph.roadPointLat(rb, 0) + (rand() - 0.5) * 1e-3, longitude: graph.roadPointLon(rb, 0) + (rand() - 0.5) * 1e-3 },
  ]);
}

/**
 * Routes around random zones and random blocked-road sets through the overlay search (the zones
 * with their road lists, the blocked sets as a bare mask) against plain Dijkstra on the roads:
 * same cost, and a path of unblocked edges from a source to a target that adds up to it.
 */
function checkOverlayRoutes(
  graph: HierarchyGraph, overlay: CellOverlay, pairs: number, seed: number, zoneCount = 2, customized: false | 'each' | 'shared' | 'big' = false,
): { routed: number; opened: number; settled: number; customizedCells: number; sharedCells: number; bigCells: number } {
  const rand = seededRandom(seed);
  const router = new Router(graph);
  const search = new OverlaySearch(graph, overlay);
  let routed = 0, opened = 0, settled = 0, customizedCells = 0, sharedCells = 0, bigCells = 0;
  for (let i = 0; i < pairs; i++) {
    const [from, to] = randomSnaps(graph, router, rand);
    const zones = Array.from({ length: zoneCount }, (_, k) => randomZone(graph, rand, `z${k}`, 200 + rand() * 1500));
    const zoneMask = new Uint8Array(graph.roadCount);
    // With `customized`, each zone's cells get cliques around its own roads (a zone's mask alone).
    const cliques = zones.map((z) => {
      if (!customized) return undefined;
      for (const r of z.roads) zoneMask[r] = 1;
      const own = search.customize(z.roads, zoneMask);
      zoneMask.fill(0);
      customizedCells += own?.cells.length ?? 0;
      return own;
    });
    // With 'shared', each cell two or more zones' cells share gets cliques around all their roads too.
    const shared: BlockedCellCliques[] = [];
    if (customized === 'shared' || customized === 'big') {
      const byCell = new Map<number, number[]>();
      cliques.forEach((c, k) => c?.cells.forEach((cell) => byCell.set(cell, [...byCell.get(cell) ?? [], k])));
      for (const [cell, members] of byCell) {
        if (members.length < 2) continue;
        for (const k of members) for (const r of zones[k].roads) zoneMask[r] = 1;
        shared.push(search.customizeCells(Uint32Array.of(cell), zoneMask)!);
        zoneMask.fill(0);
      }
      sharedCells += shared.length;
    }
    // With 'big', each big cell holding zones' customized cells gets cliques around those zones' roads, built on their small cells' cliques.
    const big: BlockedCellCliques[] = [];
    if (customized === 'big') {
      const byBig = new Map<number, Set<number>>();
      cliques.forEach((c, k) => c?.cells.forEach((cell) => {
        const b = overlay.cellOf[cell];
        byBig.set(b, (byBig.get(b) ?? new Set()).add(k));
      }));
      for (const [b, members] of byBig) {
        for (const k of members) for (const r of zones[k].roads) zoneMask[r] = 1;
        const own = [...members].map((k) => cliques[k]!);
        // The shared cells of exactly these members (a cell other zones touch too is walked inside).
        const theirs = shared.filter((c) => [...byCellMembers(cliques, c.cells[0])].every((k) => members.has(k)));
        const made = search.customizeBigCells(Uint32Array.of(b), zoneMask, own, theirs);
        zoneMask.fill(0);
        if (made) big.push(made);
      }
      bigCells += big.length;
    }
    for (const z of zones) for (const r of z.roads) zoneMask[r] = 1;
    const blocked = new Uint8Array(graph.roadCount);
    for (let r = 0; r < graph.roadCount; r++) blocked[r] = rand() < 0.03 ? 1 : 0;
    for (const metric of METRICS) {
      const sources = sourceEndpoints(graph, from, metric), targets = targetEndpoints(graph, to, metric);
      const base = { sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude };
      for (const [kind, mask, lists] of [['zones', zoneMask, zones.map((z) => z.roads)], ['blocked', blocked, undefined]] as const) {
        const want = dijkstra(graph, sources, targets, metric, mask);
        const got = search.find({
          ...base, blockedRoads: mask, blockedRoadLists: lists, blockedCellCliques: lists && cliques, sharedCellCliques: lists && shared, bigCellCliques: lists && big,
        });
        if (want === Infinity) { assert.equal(got, null, `pair ${i} ${metric} ${kind}: a route Dijkstra did not find`); continue; }
        assert.ok(got, `pair ${i} ${metric} ${kind}: no route, Dijkstra ${want}`);
        assert.ok(close(got.cost, want, 1e-9), `pair ${i} ${metric} ${kind}: overlay ${got.cost} vs Dijkstra ${want}`);
        const weight = graph.edgeCost(metric);
        let node = sources[got.source].node, sum = sources[got.source].cost;
        for (const e of got.edges) {
          assert.equal(graph.edgeTail[e], node, `pair ${i} ${metric} ${kind}: the unpacked edges form a path`);
          assert.equal(mask[graph.edgeRoad[e]], 0, `pair ${i} ${metric} ${kind}: a blocked road was used`);
          node = graph.edgeHead[e];
          sum += weight[e];
        }
        assert.equal(node, targets[got.target].node, 'the path ends at the target endpoint');
        assert.ok(close(sum + targets[got.target].cost, got.cost, 1e-9), `pair ${i} ${metric} ${kind}: the edges add up to ${sum}, reported ${got.cost}`);
        routed++;
        opened += search.openCount;
        settled += search.settledCount;
      }
    }
  }
  return { routed, opened, settled, customizedCells, sharedCells, bigCells };
}

/** The zones (by index) whose customized cells hold a small cell. */
function byCellMembers(cliques: readonly (BlockedCellCliques | undefined)[], cell: number): Set<number> {
  const out = new Set<number>();
  cliques.forEach((c, k) => { if (c?.cells.includes(cell)) out.add(k); });
  return out;
}

describe('cell overlay', () => {
  test('the partition: every node in one cell, none over the size, cells connected to few others', () => {
    for (const size of [32, 256, 2048]) {
      const { cellOf, cellCount } = cellPartition(gothenburg, size);
      const count = new Uint32Array(cellCount);
      for (let v = 0; v < gothenburg.nodeCount; v++) {
        assert.ok(cellOf[v] < cellCount);
        count[cellOf[v]]++;
      }
      for (let c = 0; c < cellCount; c++) assert.ok(count[c] > 0 && count[c] <= size, `cell ${c} of size ${size} holds ${count[c]} nodes`);
      assert.ok(cellCount <= (4 * gothenburg.nodeCount) / size, `${cellCount} cells of at most ${size} nodes: the parts are not packed`);
    }
  });

  test('entries and exits are exactly the heads and tails of links between cells; clique entries equal Dijkstra over the cell\'s own roads', () => {
    const overlay = buildCellOverlay(gothenburg, 256);
    const { cellOf, entryFirst, entryNode, exitFirst, exitNode } = overlay;
    const cliqueFirst = cliqueOffsets(entryFirst, exitFirst), cellCount = entryFirst.length - 1;
    const entering = new Uint8Array(gothenburg.nodeCount), leaving = new Uint8Array(gothenburg.nodeCount);
    for (let e = 0; e < gothenburg.edgeCount; e++) {
      const t = gothenburg.edgeTail[e], h = gothenburg.edgeHead[e];
      if (cellOf[t] !== cellOf[h]) { leaving[t] = 1; entering[h] = 1; }
    }
    let oneWay = 0;
    for (let v = 0; v < gothenburg.nodeCount; v++) {
      const entry = slotIn(entryFirst, entryNode, cellOf[v], v), exit = slotIn(exitFirst, exitNode, cellOf[v], v);
      assert.equal(entry >= 0, entering[v] === 1, `node ${v} as an entry`);
      assert.equal(exit >= 0, leaving[v] === 1, `node ${v} as an exit`);
      if (entering[v] !== leaving[v]) oneWay++;
    }
    assert.ok(oneWay > 0, 'some node only enters or only leaves its cell (one-way roads)');
    const rand = seededRandom(3);
    let checked = 0;
    for (let k = 0; k < 25; k++) {
      const c = Math.floor(rand() * cellCount);
      const e0 = entryFirst[c], E = entryFirst[c + 1] - e0, x0 = exitFirst[c], X = exitFirst[c + 1] - x0;
      if (E < 1 || X < 1) continue;
      // The oracle's graph: every road with an end outside the cell blocked.
      const outside = new Uint8Array(gothenburg.roadCount);
      for (let r = 0; r < gothenburg.roadCount; r++) if (cellOf[gothenburg.roadFrom[r]] !== c || cellOf[gothenburg.roadTo[r]] !== c) outside[r] = 1;
      for (const metric of METRICS) {
        const step = metric === 'duration' ? 0.001 : 0.01;
        for (let n = 0; n < 4; n++) {
          const i = Math.floor(rand() * E), j = Math.floor(rand() * X);
          const want = dijkstra(gothenburg, [{ node: entryNode[e0 + i], cost: 0 }], [{ node: exitNode[x0 + j], cost: 0 }], metric, outside);
          const entry = overlay[metric][cliqueFirst[c] + i * X + j];
          if (want === Infinity) assert.equal(entry, UNREACHABLE, `cell ${c} ${metric} ${i}->${j}`);
          else assert.ok(close(entry * step, want, 1e-9), `cell ${c} ${metric} ${i}->${j}: clique ${entry * step} vs Dijkstra ${want}`);
          checked++;
        }
      }
    }
    assert.ok(checked >= 100, `${checked} clique entries checked`);
  });

  for (const size of [64, 512]) {
    test(`Gothenburg, cells of ${size}: 100 pairs, both metrics, random zones and blocked sets equal Dijkstra`, () => {
      const { routed, opened } = checkOverlayRoutes(gothenburg, buildCellOverlay(gothenburg, size), 100, size);
      assert.ok(routed >= 300, `${routed} routes compared`);
      assert.ok(opened > 2 * routed, 'zones and blocked roads open cells beyond the endpoints\'');
    });
  }

  test('two levels: small cells lie inside the big ones, numbered in a row per big cell, each under its size, with their own entries and exits', () => {
    const overlay = buildCellOverlay(gothenburg, 1024, 64);
    const fine = overlay.fine!;
    assert.ok(fine, 'a second level below the big cells');
    const cells = fine.entryFirst.length - 1, bigCells = overlay.entryFirst.length - 1;
    assert.equal(overlay.cellOf.length, cells, 'with small cells, cellOf names each small cell\'s big cell');
    for (let f = 1; f < cells; f++) assert.ok(overlay.cellOf[f - 1] <= overlay.cellOf[f], `small cell ${f} in its big cell's row`);
    const count = new Uint32Array(cells), bigCount = new Uint32Array(bigCells);
    for (let v = 0; v < gothenburg.nodeCount; v++) { count[fine.cellOf[v]]++; bigCount[bigCellOf(overlay, v)]++; }
    for (let c = 0; c < cells; c++) assert.ok(count[c] > 0 && count[c] <= 64, `small cell ${c} holds ${count[c]} nodes`);
    for (let c = 0; c < bigCells; c++) assert.ok(bigCount[c] > 0 && bigCount[c] <= 1024, `big cell ${c} holds ${bigCount[c]} nodes`);
    assert.ok(cells > bigCells, 'more small cells than big ones');
    // Both levels' boundaries: every link between two cells leaves an exit and reaches an entry.
    for (let e = 0; e < gothenburg.edgeCount; e++) {
      const t = gothenburg.edgeTail[e], h = gothenburg.edgeHead[e];
      if (fine.cellOf[t] !== fine.cellOf[h]) {
        assert.ok(slotIn(fine.exitFirst, fine.exitNode, fine.cellOf[t], t) >= 0 && slotIn(fine.entryFirst, fine.entryNode, fine.cellOf[h], h) >= 0, `edge ${e} leaves a small cell`);
      }
      const bt = bigCellOf(overlay, t), bh = bigCellOf(overlay, h);
      if (bt !== bh) assert.ok(slotIn(overlay.exitFirst, overlay.exitNode, bt, t) >= 0 && slotIn(overlay.entryFirst, overlay.entryNode, bh, h) >= 0, `edge ${e} leaves a big cell`);
    }
    assert.equal(buildCellOverlay(gothenburg, 256, 256).fine, undefined, 'no second level when it would not be smaller');
  });

  for (const [name, big, small] of [['gothenburg', 1024, 64], ['campo-grande.osm.gz', 2048, 128]] as const) {
    const data = name === 'gothenburg' ? { skip: false as const, path: '' } : sharedExtract(name);
    test(`${name}, cells of ${big} with cells of ${small} inside: zones and blocked sets (3 % of the roads: every cell open) equal Dijkstra, fewer nodes settled than with the big cells alone`, { skip: data.skip }, async () => {
      const graph = name === 'gothenburg' ? gothenburg : await openGraph(data.path);
      if (!graph.hierarchy) buildHierarchy(graph);
      const two = checkOverlayRoutes(graph, buildCellOverlay(graph, big, small), 60, big + small);
      const one = checkOverlayRoutes(graph, buildCellOverlay(graph, big, big), 60, big + small);
      assert.ok(two.routed >= 150 && two.routed === one.routed, `${two.routed} routes compared`);
      assert.ok(two.settled < one.settled, `settled ${two.settled} with small cells against ${one.settled} without`);
    });
  }

  for (const [name, big, small] of [['gothenburg', 1024, 64], ['campo-grande.osm.gz', 2048, 128]] as const) {
    const data = name === 'gothenburg' ? { skip: false as const, path: '' } : sharedExtract(name);
    test(`${name}, cells of ${big} / ${small}: three zones a pair, each zone's small cells customized around its roads (cells two zones touch walked, or customized for both; then their big cells, around the zones in each), equal Dijkstra, fewer nodes settled than walking them`, { skip: data.skip }, async () => {
      const graph = name === 'gothenburg' ? gothenburg : await openGraph(data.path);
      if (!graph.hierarchy) buildHierarchy(graph);
      const overlay = buildCellOverlay(graph, big, small);
      const bigCells = checkOverlayRoutes(graph, overlay, 60, 7 * big, 3, 'big');
      const shared = checkOverlayRoutes(graph, overlay, 60, 7 * big, 3, 'shared');
      const custom = checkOverlayRoutes(graph, overlay, 60, 7 * big, 3, 'each');
      const walked = checkOverlayRoutes(graph, overlay, 60, 7 * big, 3, false);
      assert.ok(custom.routed >= 150 && custom.routed === walked.routed && shared.routed === walked.routed && bigCells.routed === walked.routed, `${custom.routed} routes compared`);
      assert.ok(bigCells.bigCells >= 30, `${bigCells.bigCells} big cells customized`);
      assert.ok(bigCells.settled < shared.settled, `settled ${bigCells.settled} with big cells customized against ${shared.settled} walking their small cells`);
      assert.ok(custom.customizedCells >= 60 && shared.sharedCells >= 20, `${custom.customizedCells} cells customized, ${shared.sharedCells} shared`);
      assert.ok(custom.settled < walked.settled, `settled ${custom.settled} through customized cells against ${walked.settled} walking them`);
      assert.ok(shared.settled < custom.settled, `settled ${shared.settled} with shared cells customized against ${custom.settled} walking them`);
    });
  }

  test('a zone touching a small cell with more entries than customize() allows gets no cliques (walked); one within the bound gets its cells\' cliques; the default bound customizes every cell of real roads', () => {
    const overlay = buildCellOverlay(gothenburg, 1024, 64), fine = overlay.fine!;
    const search = new OverlaySearch(gothenburg, overlay);
    const entries = (c: number) => fine.entryFirst[c + 1] - fine.entryFirst[c];
    const sorted = Array.from({ length: fine.entryFirst.length - 1 }, (_, c) => entries(c)).sort((a, b) => a - b);
    const bound = sorted[Math.floor(sorted.length * 0.8)];
    assert.ok(sorted[sorted.length - 1] <= MAX_CUSTOMIZED_ENTRIES && bound < sorted[sorted.length - 1], `entries per small cell: 80th percentile ${bound}, most ${sorted[sorted.length - 1]}`);
    const rand = seededRandom(64);
    const mask = new Uint8Array(gothenburg.roadCount);
    let refused = 0, made = 0;
    for (let i = 0; i < 40; i++) {
      const z = randomZone(gothenburg, rand, `e${i}`, 100 + rand() * 400);
      if (z.roads.length === 0) continue;
      // The cells of the zone's road ends, counted here (no junction copies in this GeoJSON import: one node per coordinate).
      const cells = new Set<number>();
      for (const r of z.roads) { cells.add(fine.cellOf[gothenburg.roadFrom[r]]); cells.add(fine.cellOf[gothenburg.roadTo[r]]); }
      const densest = Math.max(...[...cells].map(entries));
      for (const r of z.roads) mask[r] = 1;
      const bounded = search.customize(z.roads, mask, Infinity, bound);
      const unbounded = search.customize(z.roads, mask);
      mask.fill(0);
      assert.deepEqual([...unbounded!.cells].sort((a, b) => a - b), [...cells].sort((a, b) => a - b), `zone ${i}: the cells of its roads`);
      if (densest > bound) { assert.equal(bounded, undefined, `zone ${i}: a cell of ${densest} entries against a bound of ${bound}`); refused++; }
      else { assert.deepEqual(bounded, unbounded, `zone ${i}: every cell within the bound`); made++; }
    }
    assert.ok(refused >= 5 && made >= 5, `${refused} zones refused, ${made} customized`);
  });

  for (const name of ['monaco.osm.pbf', 'campo-grande.osm.gz']) {
    const data = sharedExtract(name);
    test(`${name}: 60 pairs, both metrics, zones and blocked sets equal Dijkstra`, { skip: data.skip }, async () => {
      const graph = await openGraph(data.path);
      buildHierarchy(graph);
      const { routed } = checkOverlayRoutes(graph, buildCellOverlay(graph, 256), 60, name.length);
      assert.ok(routed >= 150, `${routed} routes compared`);
    });
  }

  /**
   * 40 random pairs of road starts, both metrics, through the Router with an overlay of cells of
   * `cellSize` and through the ALT engine: equal costs and zones entered, or the same error code.
   * `request` makes a pair's request (from its stops, the random sequence and the first stop's
   * road); `check` sees each route both found (the overlay's). Returns how many were compared.
   */
  function agreeWithAlt(
    cellSize: number | [big: number, small: number], seed: number,
    request: (i: number, points: LatLon[], rand: () => number, firstRoad: number) => Omit<RouteRequest, 'calculationMode'>,
    check: (route: Route) => void,
  ): number {
    const overlay = typeof cellSize === 'number' ? buildCellOverlay(gothenburg, cellSize) : buildCellOverlay(gothenburg, ...cellSize);
    const withOverlay = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay) });
    const alt = new Router(gothenburg, { engine: 'astar' });
    const rand = seededRandom(seed);
    let compared = 0;
    for (let i = 0; i < 40; i++) {
      const a = Math.floor(rand() * gothenburg.roadCount), b = Math.floor(rand() * gothenburg.roadCount);
      const points = [
        { latitude: gothenburg.roadPointLat(a, 0), longitude: gothenburg.roadPointLon(a, 0) },
        { latitude: gothenburg.roadPointLat(b, 0), longitude: gothenburg.roadPointLon(b, 0) },
      ];
      const pair = request(i, points, rand, a);
      for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
        const run = (r: Router) => { try { return r.route({ ...pair, calculationMode }); } catch (err) { return (err as { code: string }).code; } };
        const x = run(withOverlay), y = run(alt);
        if (typeof x === 'string' || typeof y === 'string') { assert.equal(x, y, `pair ${i}`); continue; }
        const cost = (r: Route) => (calculationMode === 'THE_FASTEST' ? r.duration : r.distance);
        assert.ok(close(cost(x), cost(y), 1e-9), `pair ${i} ${calculationMode}: overlay ${cost(x)} vs ALT ${cost(y)}`);
        assert.deepEqual(x.legs[0].zonesEntered?.map((z) => z.name), y.legs[0].zonesEntered?.map((z) => z.name), `pair ${i} ${calculationMode}: zones entered`);
        check(x);
        compared++;
      }
    }
    return compared;
  }

  test('the hierarchy engine with an overlay: the Router agrees with the ALT engine around zones, and stops inside a zone take the penalised A*', () => {
    let inside = 0;
    agreeWithAlt(256, 21, (i, points, rand, firstRoad) => {
      const zones = [randomZone(gothenburg, rand, 'z', 400 + rand() * 1200)];
      // Every third pair has a zone around its first stop: the least-metres-inside fallback.
      if (i % 3 === 0) zones.push(randomZone(gothenburg, () => firstRoad / gothenburg.roadCount, 'around', 600));
      return { points, zones };
    }, (route) => { if (route.legs[0].zonesEntered) inside++; });
    assert.ok(inside > 0, 'some stops lay inside a zone');
  });

  test('two levels (big cells of 1,024, small of 64): stops inside a zone and avoided road types agree with the ALT engine', () => {
    let inside = 0;
    const compared = agreeWithAlt([1024, 64], 45, (i, points, rand, firstRoad) => {
      const zones = [randomZone(gothenburg, rand, 'z', 300 + rand() * 1200)];
      if (i % 2 === 0) zones.push(randomZone(gothenburg, () => firstRoad / gothenburg.roadCount, 'around', 500));
      return { points, zones, avoidanceTypes: i % 3 === 0 ? ['BRIDGES', 'TUNNELS'] : undefined, avoidanceBehavior: i % 3 === 0 ? 'STRONG' : undefined };
    }, (route) => { if (route.legs[0].zonesEntered) inside++; });
    assert.ok(compared >= 60 && inside > 0, `${compared} routes compared, ${inside} entering a zone`);
  });

  test('prepareZones customizes each zone\'s cells once, and the cells its zones share for them together, keeping at most zoneCliqueBytes: same routes as without, fewer nodes settled', () => {
    const overlay = buildCellOverlay(gothenburg, 1024, 64);
    const kept = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay) });
    const none = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay), zoneCliqueBytes: 0 });
    // Room for a few zones only: the least recently used go, routes stay the same.
    const small = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay), zoneCliqueBytes: 40_000 });
    const rand = seededRandom(77);
    let settledKept = 0, settledNone = 0, compared = 0;
    for (let i = 0; i < 30; i++) {
      const zones = [0, 1, 2].map((k) => randomZone(gothenburg, rand, `z${k}`, 300 + rand() * 1200));
      const a = Math.floor(rand() * gothenburg.roadCount), b = Math.floor(rand() * gothenburg.roadCount);
      const points = [a, b].map((r) => ({ latitude: gothenburg.roadPointLat(r, 0), longitude: gothenburg.roadPointLon(r, 0) }));
      // As a service does once zones are calculated, and as route() does with what earlier routes paid for.
      kept.prepareZones(zones);
      small.prepareZones(zones);
      for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
        const run = (r: Router) => { try { return r.route({ points, zones, calculationMode }); } catch (err) { return (err as { code: string }).code; } };
        const x = run(kept);
        const settled = (kept.search as HierarchySearch).settledCount;
        const y = run(none), z = run(small);
        assert.ok(small.preparedZones.bytes <= 40_000, `${small.preparedZones.bytes} bytes kept`);
        if (typeof x === 'string' || typeof y === 'string' || typeof z === 'string') { assert.ok(x === y && y === z, `pair ${i}`); continue; }
        assert.ok(close(x.duration, y.duration, 1e-9) && close(x.distance, y.distance, 1e-9), `pair ${i} ${calculationMode}`);
        assert.ok(close(z.duration, y.duration, 1e-9) && close(z.distance, y.distance, 1e-9), `pair ${i} ${calculationMode}: with few kept`);
        if (x.legs[0].zonesEntered || y.legs[0].zonesEntered) continue;
        settledKept += settled;
        settledNone += (none.search as HierarchySearch).settledCount;
        compared++;
      }
    }
    assert.ok(compared >= 40, `${compared} routes compared`);
    assert.ok(settledKept < settledNone, `settled ${settledKept} with customized cells, ${settledNone} with none kept`);
    assert.ok(kept.preparedZones.sharedCells >= 10, `${kept.preparedZones.sharedCells} cells customized for the zones sharing them`);
    assert.ok(small.preparedZones.zones < kept.preparedZones.zones && small.preparedZones.zones > 0, `${small.preparedZones.zones} zones kept in 40 kB, ${kept.preparedZones.zones} without a bound`);
  });

  test('route() customizes nothing: zones prepareZones did not prepare are walked, with the same routes as a router keeping no cliques', () => {
    const overlay = buildCellOverlay(gothenburg, 1024, 64);
    const router = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay) });
    const none = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay), zoneCliqueBytes: 0 });
    const rand = seededRandom(313);
    let compared = 0;
    for (let i = 0; i < 6; i++) {
      const zones = [0, 1, 2].map((k) => randomZone(gothenburg, rand, `z${k}`, 300 + rand() * 1200));
      const a = Math.floor(rand() * gothenburg.roadCount), b = Math.floor(rand() * gothenburg.roadCount);
      const points = [a, b].map((r) => ({ latitude: gothenburg.roadPointLat(r, 0), longitude: gothenburg.roadPointLon(r, 0) }));
      for (let rep = 0; rep < 3; rep++) {
        for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
          const run = (r: Router) => { try { return r.route({ points, zones, calculationMode }); } catch (err) { return (err as { code: string }).code; } };
          const x = run(router), y = run(none);
          assert.deepEqual(router.preparedZones, { zones: 0, sharedCells: 0, bigCells: 0, bytes: 0 }, `pair ${i} request ${rep}: nothing customized`);
          if (typeof x === 'string' || typeof y === 'string') { assert.equal(x, y, `pair ${i}`); continue; }
          assert.ok(close(x.duration, y.duration, 1e-9) && close(x.distance, y.distance, 1e-9), `pair ${i} request ${rep} ${calculationMode}`);
          compared++;
        }
      }
    }
    assert.ok(compared >= 24, `${compared} routes compared`);
  });

  test('byte bounds so tight that a zone\'s own cells go while its set\'s cells are customized: the same routes as without customization, request after request', () => {
    const overlay = buildCellOverlay(gothenburg, 1024, 64);
    const none = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay), zoneCliqueBytes: 0 });
    const rand = seededRandom(91);
    let compared = 0, bigKept = 0;
    for (const bytes of [6_000, 12_000, 24_000]) {
      const tight = new Router(gothenburg, { engine: new HierarchySearch(gothenburg, overlay), zoneCliqueBytes: bytes });
      for (let i = 0; i < 8; i++) {
        const zones = [0, 1, 2].map((k) => randomZone(gothenburg, rand, `z${k}`, 300 + rand() * 1200));
        const a = Math.floor(rand() * gothenburg.roadCount), b = Math.floor(rand() * gothenburg.roadCount);
        const points = [a, b].map((r) => ({ latitude: gothenburg.roadPointLat(r, 0), longitude: gothenburg.roadPointLon(r, 0) }));
        // The same request again and again, each time after one zone alone: what one call keeps, the next may drop.
        for (let rep = 0; rep < 3; rep++) {
          tight.prepareZones([zones[rep]]);
          for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
            const run = (r: Router) => { try { return r.route({ points, zones, calculationMode }); } catch (err) { return (err as { code: string }).code; } };
            const x = run(tight), y = run(none);
            bigKept = Math.max(bigKept, tight.preparedZones.bigCells);
            // The counts kept as entries come and go equal a walk over the kept entries.
            const held = [...(tight as unknown as { cliques: { zoneCliques: Map<unknown, unknown> } }).cliques.zoneCliques].filter(([, c]) => c);
            const walked = { zones: held.filter(([k]) => typeof k !== 'string').length, bigCells: held.filter(([k]) => typeof k === 'string' && k.startsWith('B')).length };
            assert.deepEqual({ zones: tight.preparedZones.zones, bigCells: tight.preparedZones.bigCells }, walked, `${bytes} bytes, pair ${i}: counts kept`);
            assert.equal(tight.preparedZones.sharedCells, held.length - walked.zones - walked.bigCells);
            if (typeof x === 'string' || typeof y === 'string') { assert.equal(x, y, `pair ${i}`); continue; }
            assert.ok(close(x.duration, y.duration, 1e-9) && close(x.distance, y.distance, 1e-9), `${bytes} bytes, pair ${i}, request ${rep} ${calculationMode}`);
            compared++;
          }
        }
      }
    }
    assert.ok(compared >= 100 && bigKept > 0, `${compared} routes compared, up to ${bigKept} big cells kept`);
  });

  test('around avoided road types (their road lists open the cells, as zones\' do): the Router with the overlay agrees with the ALT engine', () => {
    let avoided = 0;
    const compared = agreeWithAlt(128, 33, (i, points, rand) => ({
      points,
      zones: [randomZone(gothenburg, rand, 'z', 300 + rand() * 900)],
      avoidanceTypes: ['BRIDGES', 'TUNNELS'],
      avoidanceBehavior: (['STRONG', 'FAIL'] as const)[i % 2],
    }), (route) => { if (!route.legs[0].avoidedTypesDriven) avoided++; });
    assert.ok(compared >= 40 && avoided >= 20, `${compared} routes compared, ${avoided} driving no avoided road`);
  });
});

describe('graph file with the cell overlay', () => {
  test('save then load: the overlay comes back whole and the default engine routes with it', () => {
    const loaded = decodeGraph(encodeGraph(gothenburg));
    const a = gothenburg.hierarchy!.overlay!, b = loaded.hierarchy!.overlay!;
    assert.ok(b, 'the overlay was loaded');
    for (const key of OVERLAY_ARRAY_KEYS) assert.deepEqual(b[key], a[key], key);
    assert.ok(a.fine && b.fine, 'the small cells were saved and loaded');
    for (const key of OVERLAY_ARRAY_KEYS) assert.deepEqual(b.fine[key], a.fine[key], `fine.${key}`);
    const engine = new HierarchySearch(loaded);
    assert.ok(engine.constrained instanceof OverlaySearch, 'the loaded overlay is used by default');
  });

  test('a file without the overlay (written before it) loads; the hierarchy engine asks for a re-import, the ALT engine routes on it', () => {
    const copy = decodeGraph(encodeGraph(gothenburg));
    delete copy.hierarchy!.overlay;
    const loaded = decodeGraph(encodeGraph(copy));
    assert.equal(loaded.hierarchy!.overlay, undefined);
    assert.throws(() => new Router(loaded), (err: DetourError) => err.code === 'INVALID_INPUT' && /no cell overlay.*re-import/.test(err.message));
    const a = Math.floor(loaded.roadCount / 3), b = Math.floor((2 * loaded.roadCount) / 3);
    const points = [a, b].map((r) => ({ latitude: loaded.roadPointLat(r, 0), longitude: loaded.roadPointLon(r, 0) }));
    assert.ok(new Router(loaded, { engine: 'astar' }).route({ points }).distance > 0);
  });

  test('a damaged overlay is GRAPH_CORRUPT naming what is wrong, not a search out of range', () => {
    // One level of 256-node cells (the file's overlay of Gothenburg is one big cell with small ones inside).
    const damage = (what: RegExp, change: (o: CellOverlay) => Partial<CellOverlay>) => {
      const copy = decodeGraph(encodeGraph(gothenburg));
      copy.hierarchy!.overlay = buildCellOverlay(copy, 256);
      Object.assign(copy.hierarchy!.overlay, change(copy.hierarchy!.overlay));
      assert.throws(() => decodeGraph(encodeGraph(copy)), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && what.test(err.message), String(what));
    };
    damage(/puts node 5 in cell/, (o) => { const cellOf = o.cellOf.slice(); cellOf[5] = o.entryFirst.length; return { cellOf }; });
    damage(/entries \d+ is not an ascending node/, (o) => { const entryNode = o.entryNode.slice(); entryNode[3] = entryNode[2]; return { entryNode }; });
    damage(/exits \d+ is not an ascending node/, (o) => { const exitNode = o.exitNode.slice(); exitNode[4] = o.cellOf.length; return { exitNode }; });
    damage(/cliques do not match/, (o) => ({ distance: o.distance.subarray(1) }));
    damage(/exits do not match their offsets/, (o) => ({ exitNode: o.exitNode.subarray(1) }));
    {
      // A small cell across two big cells: in the file's per-node big cells, a node inside its
      // small cell (in no boundary list of either level) moved to another big cell.
      const copy = decodeGraph(encodeGraph(gothenburg));
      const o = (copy.hierarchy!.overlay = buildCellOverlay(copy, 1024, 64)), fine = o.fine!;
      const inside = (v: number) => [[fine, fine.cellOf[v]], [o, bigCellOf(o, v)]].every(([l, c]) =>
        slotIn((l as CellOverlay).entryFirst, (l as CellOverlay).entryNode, c as number, v) < 0 && slotIn((l as CellOverlay).exitFirst, (l as CellOverlay).exitNode, c as number, v) < 0);
      let v = 0;
      while (bigCellOf(o, v) === bigCellOf(o, 0) || !inside(v)) v++;
      const bytes = encodeGraph(copy);
      const at = Buffer.from(bytes).indexOf(Buffer.from('cells.cellOf'));
      assert.ok(at > 0 && o.cellOf instanceof Uint16Array);
      new DataView(bytes.buffer).setUint16(at + 16 + 2 * v, bigCellOf(o, 0), true);
      new DataView(bytes.buffer).setUint32(bytes.length - 4, crc32(bytes.subarray(0, bytes.length - 4)), true);
      assert.throws(() => decodeGraph(bytes), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && /small cell \d+ lies in two big cells/.test(err.message));
    }
    // One section renamed (a name no reader knows, so it is skipped), the checksum made good again.
    const bytes = encodeGraph(gothenburg);
    const name = new TextEncoder().encode('cells.duration');
    const at = Buffer.from(bytes).indexOf(Buffer.from(name));
    assert.ok(at > 0);
    bytes[at + 6] = 'D'.charCodeAt(0);
    new DataView(bytes.buffer).setUint32(bytes.length - 4, crc32(bytes.subarray(0, bytes.length - 4)), true);
    assert.throws(() => decodeGraph(bytes), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && /cell overlay is incomplete/.test(err.message));
  });
});

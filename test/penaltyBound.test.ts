import { describe, test } from 'node:test';
import TinyQueue from 'tinyqueue';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildHierarchy, calculateZone, importGeoJson, Router, zoneFromGeoJson, type Metric, type RoadGraph } from '../src/index.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import type { Endpoint } from '../src/routing/PathSearch.js';
import { uniformPenalty, type Penalty } from '../src/routing/PathSearch.js';
import { PenaltyBound } from '../src/routing/PenaltyBound.js';
import { buildCellOverlay } from '../src/hierarchy/CellOverlay.js';
import { ZONE_COST_PER_METRE } from '../src/routing/PathSearch.js';
import { close, dijkstra, GOTHENBURG_GEOJSON, randomZone, seededRandom } from './support/helpers.js';

const gothenburg = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')), { source: 'gothenburg', attribution: 'ODbL' });
buildHierarchy(gothenburg);
const METRICS: Metric[] = ['duration', 'distance'];

/** The exact penalty from every node to the nearest target: a plain backward Dijkstra over all edges (the oracle). */
function penaltyLeft(graph: RoadGraph, targets: Endpoint[], penalty: Penalty, blocked: Uint8Array): Float64Array {
  const into: number[][] = Array.from({ length: graph.nodeCount }, () => []);
  for (let e = 0; e < graph.edgeCount; e++) into[graph.edgeHead[e]].push(e);
  const dist = new Float64Array(graph.nodeCount).fill(Infinity);
  const done = new Uint8Array(graph.nodeCount);
  const queue = new TinyQueue<[number, number]>([], (a, b) => a[0] - b[0]);
  for (const t of targets) { dist[t.node] = 0; queue.push([0, t.node]); }
  while (queue.length) {
    const [d, u] = queue.pop()!;
    if (done[u]) continue;
    done[u] = 1;
    for (const e of into[u]) {
      const road = graph.edgeRoad[e];
      if (blocked[road]) continue;
      const c = d + penalty.costPerMetre[penalty.roads[road]] * graph.roadMetres(road);
      const x = graph.edgeTail[e];
      if (c < dist[x]) { dist[x] = c; queue.push([c, x]); }
    }
  }
  return dist;
}

/**
 * PenaltyBound for the targets against the oracle: at or below the exact penalty left at every
 * node that reaches a target, and consistent on every open edge.
 */
function checkBound(targets: Endpoint[], penalty: Penalty, blocked: Uint8Array, label: string): { bound: PenaltyBound; exact: Float64Array } {
  const bound = new PenaltyBound(gothenburg);
  bound.reset(targets, penalty, blocked);
  const exact = penaltyLeft(gothenburg, targets, penalty, blocked);
  const slack = (x: number) => 1e-9 * Math.max(1, Math.abs(x));
  for (let v = 0; v < gothenburg.nodeCount; v++) {
    if (exact[v] === Infinity) continue; // any bound holds where no target can be reached
    assert.ok(bound.of(v) <= exact[v] + slack(exact[v]), `${label}: node ${v} bound ${bound.of(v)} above the exact ${exact[v]}`);
  }
  for (let e = 0; e < gothenburg.edgeCount; e++) {
    const road = gothenburg.edgeRoad[e];
    if (blocked[road]) continue;
    const p = penalty.costPerMetre[penalty.roads[road]] * gothenburg.roadMetres(road);
    const bv = bound.of(gothenburg.edgeTail[e]), bw = bound.of(gothenburg.edgeHead[e]);
    if (bw === Infinity) continue;
    assert.ok(bv <= p + bw + slack(bv), `${label}: edge ${e} breaks consistency: ${bv} > ${p} + ${bw}`);
  }
  return { bound, exact };
}

/** A stop on a road of the zone: the first point of one of its roads. */
function stopOnZone(graph: RoadGraph, roads: ArrayLike<number>, rand: () => number) {
  const r = roads[Math.floor(rand() * roads.length)];
  return { latitude: graph.roadPointLat(r, 0), longitude: graph.roadPointLon(r, 0) };
}

describe('the penalty bound (stops inside zones)', () => {
  test('a lower bound of the penalty left from every node, consistent on every edge, and positive outside the zone where a target needs penalised metres', () => {
    const rand = seededRandom(5);
    const router = new Router(gothenburg);
    let positive = 0;
    for (let i = 0; i < 6; i++) {
      const zone = randomZone(gothenburg, rand, 'z', 600 + rand() * 900);
      if (zone.roads.length === 0) continue;
      const mask = new Uint8Array(gothenburg.roadCount);
      for (const r of zone.roads) mask[r] = 1;
      const blocked = new Uint8Array(gothenburg.roadCount);
      for (let r = 0; r < gothenburg.roadCount; r++) if (!mask[r] && rand() < 0.02) blocked[r] = 1;
      const [to] = router.snapStops([stopOnZone(gothenburg, zone.roads, rand)]);
      const penalty = uniformPenalty(mask, i % 2 ? ZONE_COST_PER_METRE : 3);
      const targets = targetEndpoints(gothenburg, to, 'distance', penalty);
      const { bound, exact } = checkBound(targets, penalty, blocked, `zone ${i}`);
      // Where a target needs penalised metres from everywhere outside, the bound says so there.
      let far = -1;
      for (let v = 0; v < gothenburg.nodeCount; v++) if (exact[v] < Infinity && (far < 0 || exact[v] > exact[far])) far = v;
      if (far >= 0 && exact[far] > 0 && bound.rest > 0) positive++;
    }
    assert.ok(positive >= 2, `${positive} zones gave a positive bound outside them`);
  });

  test('a target enclosed by a ring zone (reached only through it): with the penalty unavoidable the bound walks the enclosed roads and bounds the outside by the least way in', () => {
    let lat = 0, lon = 0;
    for (let v = 0; v < gothenburg.nodeCount; v++) { lat += gothenburg.nodeLatitude(v); lon += gothenburg.nodeLongitude(v); }
    lat /= gothenburg.nodeCount; lon /= gothenburg.nodeCount;
    const circle = (r: number) => {
      const ry = r / 111_320, rx = ry / Math.cos((lat * Math.PI) / 180), ring: number[][] = [];
      for (let i = 0; i < 48; i++) ring.push([lon + rx * Math.cos((2 * Math.PI * i) / 48), lat + ry * Math.sin((2 * Math.PI * i) / 48)]);
      ring.push([...ring[0]]);
      return ring;
    };
    const zone = calculateZone(gothenburg, zoneFromGeoJson('ring', { type: 'Polygon', coordinates: [circle(3000), circle(2200).reverse()] }));
    const mask = new Uint8Array(gothenburg.roadCount);
    for (const r of zone.roads) mask[r] = 1;
    const [to] = new Router(gothenburg).snapStops([{ latitude: lat, longitude: lon }]);
    assert.equal(mask[to.road], 0, 'the target lies in the hole');
    const penalty = { ...uniformPenalty(mask, ZONE_COST_PER_METRE), unavoidable: true };
    const targets = targetEndpoints(gothenburg, to, 'duration', penalty);
    const { bound, exact } = checkBound(targets, penalty, new Uint8Array(gothenburg.roadCount), 'ring');
    let inside = 0, outsideLeast = Infinity;
    for (let v = 0; v < gothenburg.nodeCount; v++) {
      if (exact[v] === 0) inside++;
      else if (exact[v] < Infinity) outsideLeast = Math.min(outsideLeast, exact[v]);
    }
    assert.ok(inside > 1024, `${inside} nodes reach the target without a penalty: more than a plateau`);
    assert.ok(outsideLeast > 0 && outsideLeast < Infinity);
    assert.ok(bound.rest > 0, `the bound outside is ${bound.rest}`);
  });

  for (const [label, overlay] of [['the overlay of the file', undefined], ['an overlay of 256-node cells', buildCellOverlay(gothenburg, 256)]] as const) {
    test(`a stop inside a zone, ${label}: the hierarchy engine settles a small part of the city, costs what Dijkstra costs, and its path adds up`, () => {
      const rand = seededRandom(8);
      const router = new Router(gothenburg);
      const search = new HierarchySearch(gothenburg, overlay);
      let checked = 0, settled = 0;
      for (let i = 0; i < 20; i++) {
        const zone = randomZone(gothenburg, rand, 'z', 500 + rand() * 800);
        if (zone.roads.length === 0) continue;
        const mask = new Uint8Array(gothenburg.roadCount);
        for (const r of zone.roads) mask[r] = 1;
        const a = Math.floor(rand() * gothenburg.roadCount);
        const [from, to] = router.snapStops([
          { latitude: gothenburg.roadPointLat(a, 0), longitude: gothenburg.roadPointLon(a, 0) },
          stopOnZone(gothenburg, zone.roads, rand),
        ]);
        if (mask[from.road]) continue;
        // Half the queries tell where the penalised roads are; the others leave the search to find them.
        const penalty = { ...uniformPenalty(mask, ZONE_COST_PER_METRE), roadLists: i % 2 ? [zone.roads] : undefined };
        for (const metric of METRICS) {
          const sources = sourceEndpoints(gothenburg, from, metric, penalty), targets = targetEndpoints(gothenburg, to, metric, penalty);
          const want = dijkstra(gothenburg, sources, targets, metric, undefined, penalty);
          const got = search.find({ sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude, penalty });
          if (want === Infinity) { assert.equal(got, null); continue; }
          assert.ok(got, `pair ${i} ${metric}: no route, Dijkstra ${want}`);
          assert.ok(close(got.cost, want, 1e-9), `pair ${i} ${metric}: ${got.cost} vs Dijkstra ${want}`);
          const weight = gothenburg.edgeCost(metric);
          let node = sources[got.source].node, sum = sources[got.source].cost;
          for (const e of got.edges) {
            assert.equal(gothenburg.edgeTail[e], node, `pair ${i} ${metric}: the edges form a path`);
            const road = gothenburg.edgeRoad[e];
            sum += weight[e] + penalty.costPerMetre[mask[road]] * gothenburg.roadMetres(road);
            node = gothenburg.edgeHead[e];
          }
          assert.equal(node, targets[got.target].node, `pair ${i} ${metric}: the path ends at the target`);
          assert.ok(close(sum + targets[got.target].cost, got.cost, 1e-9), `pair ${i} ${metric}: the path costs ${sum + targets[got.target].cost}, reported ${got.cost}`);
          settled += search.settledCount;
          checked++;
        }
      }
      assert.ok(checked >= 20, `${checked} routes checked`);
      // Without the bound the A* settled every node it could reach without a penalised metre first:
      // most of the city on every such route. With it, what a detour to the cheapest way in needs.
      assert.ok(settled / checked < gothenburg.nodeCount / 8, `${(settled / checked).toFixed(0)} nodes settled per route, of ${gothenburg.nodeCount}`);
    });
  }
});

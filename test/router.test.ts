import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { haversineMetres, importGeoJson, Router, DetourError, type LatLon } from '../src/index.js';
import { dijkstra, GOTHENBURG_GEOJSON, roundingSlack, seededRandom } from './support/helpers.js';
import { sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';

const graph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')));
const router = new Router(graph);
const CENTRAL = { latitude: 57.70887, longitude: 11.97456 };
const LISEBERG = { latitude: 57.69514, longitude: 11.99253 };
const SLOTTSSKOGEN = { latitude: 57.68431, longitude: 11.94347 };

const pathLength = (points: LatLon[]) =>
  points.slice(1).reduce((s, p, i) => s + haversineMetres(points[i].latitude, points[i].longitude, p.latitude, p.longitude), 0);

test('a leg starts and ends at the snapped positions and its geometry is as long as its distance', () => {
  const rand = seededRandom(11);
  let checked = 0;
  for (let i = 0; i < 100; i++) {
    const a = { latitude: 57.66 + rand() * 0.08, longitude: 11.90 + rand() * 0.16 };
    const b = { latitude: 57.66 + rand() * 0.08, longitude: 11.90 + rand() * 0.16 };
    for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      let route;
      try {
        route = router.route({ points: [a, b], calculationMode });
      } catch (err) {
        assert.ok(['ROUTE_NOT_FOUND', 'POINT_NOT_ROUTABLE'].includes((err as DetourError).code), String(err));
        continue;
      }
      const leg = route.legs[0];
      assert.deepEqual(leg.points[0], { latitude: leg.from.latitude, longitude: leg.from.longitude });
      assert.deepEqual(leg.points.at(-1), { latitude: leg.to.latitude, longitude: leg.to.longitude });
      const geometric = pathLength(leg.points);
      // The distance counts each road at its length rounded up to whole centimetres.
      assert.ok(leg.distance >= geometric - 1e-6 * leg.distance - 0.01 && leg.distance <= geometric + roundingSlack(graph, leg, 'distance') + 1e-6 * leg.distance,
        `route ${i}: geometry ${geometric} m vs distance ${leg.distance} m`);
      assert.ok(leg.duration > 0 || leg.distance === 0);
      checked++;
    }
  }
  assert.ok(checked > 100, `only ${checked} routes checked`);
});

test("a leg's points are its roads' polylines point by point, in the direction driven, no point repeated", () => {
  // Reference built point by point through RoadGraph.roadPointLat/Lon (not the Router's LegLine):
  // the snapped start, the rest of its road one way or the other, every edge's whole road, the
  // end road up to the snap, the snapped end; consecutive equal points dropped.
  const polyline = (r: number) => Array.from({ length: graph.roadPointCount(r) }, (_, k) => ({ latitude: graph.roadPointLat(r, k), longitude: graph.roadPointLon(r, k) }));
  const dedupe = (points: LatLon[]) => points.filter((p, i) => i === 0 || p.latitude !== points[i - 1].latitude || p.longitude !== points[i - 1].longitude);
  const rand = seededRandom(29);
  let checked = 0, direct = 0;
  for (let i = 0; i < 150; i++) {
    const a = { latitude: 57.66 + rand() * 0.08, longitude: 11.90 + rand() * 0.16 };
    // One pair in five close together (often on one road: a leg without edges).
    const b = i % 5 === 0 ? { latitude: a.latitude + (rand() - 0.5) * 0.002, longitude: a.longitude + (rand() - 0.5) * 0.003 } : { latitude: 57.66 + rand() * 0.08, longitude: 11.90 + rand() * 0.16 };
    let route;
    try { route = router.route({ points: [a, b], calculationMode: i % 2 ? 'THE_SHORTEST' : 'THE_FASTEST' }); } catch { continue; }
    const leg = route.legs[0];
    const from = polyline(leg.from.road), to = polyline(leg.to.road);
    const candidates: LatLon[][] = [];
    if (leg.edges.length === 0 && leg.from.road === leg.to.road) {
      candidates.push(dedupe([leg.from, ...from.slice(leg.from.segment + 1, leg.to.segment + 1), leg.to]));
      candidates.push(dedupe([leg.from, ...from.slice(leg.to.segment + 1, leg.from.segment + 1).reverse(), leg.to]));
      direct++;
    }
    {
      const middle = leg.edges.flatMap((e) => (graph.edgeReversed[e] ? polyline(graph.edgeRoad[e]).reverse() : polyline(graph.edgeRoad[e])));
      for (const start of [from.slice(leg.from.segment + 1), from.slice(0, leg.from.segment + 1).reverse()]) {
        for (const end of [to.slice(0, leg.to.segment + 1), to.slice(leg.to.segment + 1).reverse()]) {
          candidates.push(dedupe([leg.from, ...start, ...middle, ...end, leg.to]));
        }
      }
    }
    const got = leg.points.map((p) => ({ latitude: p.latitude, longitude: p.longitude }));
    assert.deepEqual(Array.from(leg.coordinates), got.flatMap((p) => [p.latitude, p.longitude]), `route ${i}: points are not the coordinates`);
    const json = JSON.parse(JSON.stringify(leg));
    assert.deepEqual([json.points, json.coordinates, json.distance, json.edges], [got, undefined, leg.distance, leg.edges], `route ${i}: JSON of the leg`);
    assert.ok(candidates.some((c) => JSON.stringify(c.map((p) => [p.latitude, p.longitude])) === JSON.stringify(got.map((p) => [p.latitude, p.longitude]))),
      `route ${i}: ${got.length} points match none of the reference polylines (${candidates.map((c) => c.length).join(', ')} points)`);
    checked++;
  }
  assert.ok(checked > 100 && direct > 0, `${checked} legs checked, ${direct} without edges`);
});

test('THE_SHORTEST is never longer, THE_FASTEST never slower, than the other', () => {
  const pts = [CENTRAL, LISEBERG];
  const fast = router.route({ points: pts, calculationMode: 'THE_FASTEST' });
  const short = router.route({ points: pts, calculationMode: 'THE_SHORTEST' });
  assert.ok(short.distance <= fast.distance + 1e-9);
  assert.ok(fast.duration <= short.duration + 1e-9);
  assert.equal(router.route({ points: pts }).duration, fast.duration, 'THE_FASTEST is the default');
});

test('via points make legs whose sums are the totals; each leg equals the route of its own pair', () => {
  const route = router.route({ points: [CENTRAL, LISEBERG, SLOTTSSKOGEN] });
  assert.equal(route.legs.length, 2);
  assert.ok(Math.abs(route.distance - route.legs[0].distance - route.legs[1].distance) < 1e-9);
  assert.ok(Math.abs(route.duration - route.legs[0].duration - route.legs[1].duration) < 1e-9);
  const second = router.route({ points: [LISEBERG, SLOTTSSKOGEN] });
  assert.ok(Math.abs(second.duration - route.legs[1].duration) < 1e-9);
  assert.ok(Math.abs(route.averageSpeed - (route.distance / route.duration) * 3.6) < 1e-9);
});

test('the same point twice is a zero-length leg, not an error', () => {
  const route = router.route({ points: [CENTRAL, CENTRAL] });
  assert.equal(route.distance, 0);
  assert.equal(route.duration, 0);
  assert.equal(route.averageSpeed, 0);
});

test('the ngraph engine gives the same routes through the Router', () => {
  const ng = new Router(graph, { engine: 'ngraph', snapIndex: router.snapIndex });
  for (const pts of [[CENTRAL, LISEBERG], [SLOTTSSKOGEN, CENTRAL, LISEBERG]]) {
    for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      const a = router.route({ points: pts, calculationMode });
      const b = ng.route({ points: pts, calculationMode });
      assert.ok(Math.abs(a.distance - b.distance) < 1e-6 && Math.abs(a.duration - b.duration) < 1e-6);
    }
  }
});

test('bad requests: clear errors naming the field', () => {
  const code = (fn: () => unknown, c: string, re: RegExp) =>
    assert.throws(fn, (e: DetourError) => e.code === c && re.test(e.message));
  code(() => router.route({ points: [CENTRAL] }), 'TOO_FEW_POINTS', /at least 2 points, got 1/);
  code(() => router.route({ points: [] }), 'TOO_FEW_POINTS', /got 0/);
  code(() => router.route({ points: null as never }), 'TOO_FEW_POINTS', /got 0/);
  code(() => router.route({ points: [CENTRAL, LISEBERG], calculationMode: 'FASTEST' as never }), 'INVALID_MODE', /THE_FASTEST, THE_SHORTEST/);
  code(() => router.route({ points: [CENTRAL, { latitude: NaN, longitude: 11.9 }] }), 'INVALID_COORDINATE', /points\[1\]: latitude/);
  code(() => router.route({ points: [CENTRAL, { latitude: 57.7, longitude: 200 }] }), 'INVALID_COORDINATE', /points\[1\]: longitude/);
  code(() => router.route({ points: [null as never, CENTRAL] }), 'INVALID_COORDINATE', /points\[0\]/);
  code(() => router.route({ points: [CENTRAL, { latitude: 0, longitude: 0 }] }), 'POINT_NOT_ROUTABLE', /points\[1\]/);
});

test('no route between disconnected roads names the leg', () => {
  // Block every road around the destination: its leg cannot be driven.
  const to = router.snap(LISEBERG, 'to');
  const blocked = new Uint8Array(graph.roadCount);
  const node = graph.roadFrom[to.road];
  for (let e = graph.firstIn[node]; e < graph.firstIn[node + 1]; e++) blocked[graph.edgeRoad[graph.inEdge[e]]] = 1;
  const other = graph.roadTo[to.road];
  for (let e = graph.firstIn[other]; e < graph.firstIn[other + 1]; e++) blocked[graph.edgeRoad[graph.inEdge[e]]] = 1;
  blocked[to.road] = 0;
  assert.throws(
    () => router.route({ points: [SLOTTSSKOGEN, CENTRAL, LISEBERG], blockedRoads: blocked }),
    (e: DetourError) => e.code === 'ROUTE_NOT_FOUND' && /leg 1 \(points\[1\] to points\[2\]\)/.test(e.message),
  );
});

test('a stop nearest a tiny cut-off piece of road snaps to the main network instead; stops all on one piece route on it', async () => {
  const { stronglyConnectedComponents } = await import('../src/graph/components.js');
  const { component, size } = stronglyConnectedComponents(graph);
  const main = size.indexOf(Math.max(...size));
  const centralRoad = router.snap(CENTRAL, 'central').road;
  const hub = graph.roadFrom[centralRoad];
  assert.equal(component[hub], main);
  // Independent check of the components with plain Dijkstra: a node is in the hub's component
  // exactly when it reaches the hub and the hub reaches it.
  const rand = seededRandom(5);
  const probes = [...Array.from({ length: 40 }, () => Math.floor(rand() * graph.nodeCount)), ...Array.from({ length: graph.nodeCount }, (_, u) => u).filter((u) => component[u] !== main).slice(0, 20)];
  for (const u of probes) {
    const both = dijkstra(graph, [{ node: u, cost: 0 }], [{ node: hub, cost: 0 }], 'distance') < Infinity
      && dijkstra(graph, [{ node: hub, cost: 0 }], [{ node: u, cost: 0 }], 'distance') < Infinity;
    assert.equal(component[u] === main, both, `node ${u}`);
  }

  // Roads with both ends in one tiny component, grouped by component.
  const tinyRoads = new Map<number, number[]>();
  for (let r = 0; r < graph.roadCount; r++) {
    const c = component[graph.roadFrom[r]];
    if (c !== main && c === component[graph.roadTo[r]] && size[c] >= 2) tinyRoads.set(c, [...(tinyRoads.get(c) ?? []), r]);
  }
  assert.ok(tinyRoads.size > 5, 'Gothenburg has cut-off pieces');
  let rescued = 0;
  let checked = 0;
  const stayed = { first: 0, last: 0 };
  for (const roads of tinyRoads.values()) {
    const r = roads[0];
    const onPiece = { latitude: (graph.roadPointLat(r, 0) + graph.roadPointLat(r, 1)) / 2, longitude: (graph.roadPointLon(r, 0) + graph.roadPointLon(r, 1)) / 2 };
    const choice = router.snapIndex.snapChoice(onPiece.latitude, onPiece.longitude);
    assert.equal(choice.nearest.road, r);
    if (!choice.big) continue; // no main road within 1,000 m
    checked++;
    assert.ok(router.snapIndex.servesRole(choice.big.road, 'via'));
    assert.ok(choice.big.distance >= choice.nearest.distance);
    // A route from the piece to the centre stays on the piece exactly when a car there can drive
    // to the main network (plain Dijkstra from the snapped point's exits), else it starts on the
    // nearest road that can; the reverse route likewise for being reached. Both succeed.
    const leaves = dijkstra(graph, sourceEndpoints(graph, choice.nearest, 'distance'), [{ node: hub, cost: 0 }], 'distance') < Infinity;
    const arrives = dijkstra(graph, [{ node: hub, cost: 0 }], targetEndpoints(graph, choice.nearest, 'distance'), 'distance') < Infinity;
    const out = router.route({ points: [onPiece, CENTRAL] });
    assert.equal(out.legs[0].from.road === r, leaves, `first stop on road ${r}`);
    const back = router.route({ points: [CENTRAL, onPiece] });
    assert.equal(back.legs[0].to.road === r, arrives, `last stop on road ${r}`);
    if (leaves) stayed.first++;
    if (arrives) stayed.last++;
    rescued++;
  }
  assert.ok(checked > 5 && rescued === checked, `${rescued} of ${checked} stops beside cut-off pieces routed`);

  // Two stops on the same piece (several roads, strongly connected) route on the piece itself.
  const [piece] = [...tinyRoads.entries()].filter(([, roads]) => roads.length >= 3).map(([c, roads]) => ({ c, roads }));
  assert.ok(piece, 'a cut-off piece with several roads');
  const mid = (r: number) => ({ latitude: (graph.roadPointLat(r, 0) + graph.roadPointLat(r, 1)) / 2, longitude: (graph.roadPointLon(r, 0) + graph.roadPointLon(r, 1)) / 2 });
  const [a, b] = [piece.roads[0], piece.roads.at(-1)!];
  const inside = router.route({ points: [mid(a), mid(b)] });
  assert.equal(inside.legs[0].from.road, a);
  assert.equal(inside.legs[0].to.road, b);
  for (const e of inside.legs[0].edges) assert.equal(component[graph.edgeTail[e]], piece.c);
});

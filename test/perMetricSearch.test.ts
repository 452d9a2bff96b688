import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AStarSearch, DEFAULT_GRAPH_PATH, HierarchySearch, loadGraph, MAX_CORE_NODES, PerMetricSearch, Router, type Metric } from '../src/index.js';
import { contractGraph } from '../src/hierarchy/contract.js';
import { sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { coreNodes } from '../src/routing/PerMetricSearch.js';
import { close, dijkstra, randomZone, seededRandom } from './support/helpers.js';

test('a metric whose hierarchy kept a big core routes by ALT, the other by the hierarchy; both equal plain Dijkstra, free and around zones with customized cells', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  assert.equal(coreNodes(graph, 'distance'), 0, 'the city contracts completely');
  assert.ok(new Router(graph).search instanceof HierarchySearch, 'no core: the hierarchy engine alone');
  // A hierarchy stopped early, as uniform grids stop under THE_SHORTEST.
  graph.hierarchy!.distance = contractGraph(graph, 'distance', { coreDegree: 2.5 });
  assert.ok(coreNodes(graph, 'distance') > MAX_CORE_NODES, `a core of ${coreNodes(graph, 'distance')} nodes`);
  assert.ok(new Router(graph, { landmarks: 0 }).search instanceof HierarchySearch, 'no landmarks: the hierarchy engine alone');
  const router = new Router(graph);
  const search = router.search as PerMetricSearch;
  assert.ok(search instanceof PerMetricSearch, search.name);
  assert.ok(search.engines.distance instanceof AStarSearch && search.engines.duration === search.hierarchy, search.name);

  const rand = seededRandom(2048);
  let compared = 0, customized = 0;
  for (let i = 0; i < 40; i++) {
    const [ra, rb] = [rand(), rand()].map((x) => Math.floor(x * graph.roadCount));
    const [from, to] = router.snapStops([ra, rb].map((r) => ({ latitude: graph.roadPointLat(r, 0), longitude: graph.roadPointLon(r, 0) })));
    const zones = [0, 1].map((k) => randomZone(graph, rand, `z${k}`, 300 + rand() * 900));
    const mask = new Uint8Array(graph.roadCount);
    const cliques = zones.map((z) => {
      for (const r of z.roads) mask[r] = 1;
      const own = search.customize(z.roads, mask, Infinity);
      mask.fill(0);
      if (own) customized++;
      return own;
    });
    for (const z of zones) for (const r of z.roads) mask[r] = 1;
    for (const metric of ['duration', 'distance'] as Metric[]) {
      const sources = sourceEndpoints(graph, from, metric), targets = targetEndpoints(graph, to, metric);
      const base = { sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude };
      for (const [kind, query] of [['free', base], ['zones', { ...base, blockedRoads: mask, blockedRoadLists: zones.map((z) => z.roads), blockedCellCliques: cliques }]] as const) {
        const want = dijkstra(graph, sources, targets, metric, kind === 'zones' ? mask : undefined);
        const got = search.find(query);
        if (want === Infinity) { assert.equal(got, null, `pair ${i} ${metric} ${kind}`); continue; }
        assert.ok(got && close(got.cost, want, 1e-9), `pair ${i} ${metric} ${kind}: ${got?.cost} vs Dijkstra ${want}`);
        assert.equal(search.settledCount, search.engines[metric].settledCount, 'the engine of the metric searched');
        compared++;
      }
    }
  }
  assert.ok(compared >= 150 && customized >= 20, `${compared} searches compared, ${customized} zones customized`);
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_GRAPH_PATH, loadGraph, openGraph, type Metric, type RoadGraph } from '../src/index.js';
import {
  buildCCHTopology, customizeCCH, customizeInto, findArc, type CCHMetric, type CCHTopology,
} from '../src/hierarchy/CustomizableHierarchy.js';
import { nestedDissectionOrder } from '../src/hierarchy/nestedDissection.js';
import { CCHBlockedMetric } from '../src/routing/CCHBlockedMetric.js';
import { CCHManyToMany } from '../src/routing/CCHManyToMany.js';
import { close, dijkstra, randomZone, seededRandom, sharedExtract } from './support/helpers.js';

const METRICS: Metric[] = ['duration', 'distance'];

/** Costs between random nodes on the CCH (10 x 10) against plain Dijkstra over the open roads (with the same penalty). */
function checkAgainstDijkstra(
  graph: RoadGraph, topology: CCHTopology, metric: CCHBlockedMetric, rand: () => number, closed?: Uint8Array, penalty?: { roads: Uint8Array; costPerMetre: Float64Array },
): number {
  const pick = () => Array.from({ length: 10 }, () => Math.floor(rand() * graph.nodeCount));
  const from = pick(), to = pick();
  const cost = new Float64Array(100), second = new Float64Array(100);
  new CCHManyToMany(topology).run(metric, from.map((node) => [{ node, cost: 0, second: 0 }]), to.map((node) => [{ node, cost: 0, second: 0 }]), cost, second);
  let finite = 0;
  for (let i = 0; i < 10; i++) {
    for (let j = 0; j < 10; j++) {
      const want = dijkstra(graph, [{ node: from[i], cost: 0 }], [{ node: to[j], cost: 0 }], metric.base.metric, closed, penalty);
      const got = cost[i * 10 + j];
      assert.ok(got === want || close(got, want, 1e-9), `${metric.base.metric} ${from[i]} -> ${to[j]}: CCH ${got}, Dijkstra ${want}`);
      if (want < Infinity) finite++;
    }
  }
  return finite;
}

/** Every arc of the overlay equals a full customization with the same roads closed (and penalised). */
function assertSameArcs(topology: CCHTopology, overlay: CCHBlockedMetric, full: CCHMetric, label: string, plain?: { up: Float64Array; down: Float64Array }): void {
  let differ = 0;
  for (let a = 0; a < topology.upHead.length; a++) {
    if (overlay.up(a) !== full.up[a] || overlay.down(a) !== full.down[a] || overlay.upSecond(a) !== full.upSecond[a] || overlay.downSecond(a) !== full.downSecond[a]) differ++;
    else if (overlay.upPlain(a) !== (plain ?? full).up[a] || overlay.downPlain(a) !== (plain ?? full).down[a]) differ++;
  }
  assert.equal(differ, 0, `${label}: ${differ} arcs differ from a full customization`);
}

function emptyMetric(metric: Metric, arcs: number): CCHMetric {
  return { metric, up: new Float64Array(arcs), down: new Float64Array(arcs), upSecond: new Float64Array(arcs), downSecond: new Float64Array(arcs) };
}

describe('customizable contraction hierarchy', () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const rank = nestedDissectionOrder(graph);
  const topology = buildCCHTopology(graph, rank);

  test('the nested dissection order is a permutation and the contracted graph is chordal', () => {
    const seen = new Uint8Array(graph.nodeCount);
    for (const r of rank) { assert.ok(r < graph.nodeCount); assert.equal(seen[r], 0, `rank ${r} given twice`); seen[r] = 1; }
    // Every pair of upper neighbours of a node is joined (findArc throws otherwise), and every
    // graph edge has its arc.
    let triangles = 0;
    for (let v = 0; v < graph.nodeCount; v++) {
      const { upFirst, upHead } = topology;
      for (let i = upFirst[v]; i < upFirst[v + 1]; i++) {
        assert.ok(upHead[i] > v);
        for (let j = i + 1; j < upFirst[v + 1]; j++) { findArc(topology, upHead[i], upHead[j]); triangles++; }
      }
    }
    assert.ok(triangles > 0);
    for (let e = 0; e < graph.edgeCount; e++) {
      const t = rank[graph.edgeTail[e]], h = rank[graph.edgeHead[e]];
      if (t !== h) assert.equal(topology.edgeArc[e], findArc(topology, Math.min(t, h), Math.max(t, h)));
    }
  });

  test('free: costs between random nodes equal plain Dijkstra, both metrics', () => {
    const rand = seededRandom(41);
    for (const m of METRICS) {
      const metric = new CCHBlockedMetric(topology, customizeCCH(topology, graph, m), graph);
      assert.ok(checkAgainstDijkstra(graph, topology, metric, rand) >= 80);
    }
  });

  test('closed roads: the partial re-customization equals a full one and Dijkstra over the open roads (random zones and random road sets)', () => {
    const rand = seededRandom(42);
    const arcs = topology.upHead.length;
    for (const m of METRICS) {
      const base = customizeCCH(topology, graph, m);
      const overlay = new CCHBlockedMetric(topology, base, graph);
      const full = emptyMetric(m, arcs);
      let partial = 0, whole = 0;
      for (let round = 0; round < 8; round++) {
        const closed = new Uint8Array(graph.roadCount);
        const roads: number[] = [];
        if (round % 2 === 0) {
          // One to four zones of 300-1500 m.
          for (let z = 0, n = 1 + (round % 4); z < n; z++) for (const r of randomZone(graph, rand, `z${z}`, 300 + rand() * 1200).roads) { closed[r] = 1; roads.push(r); }
        } else {
          // Roads scattered over the city: few (a partial update) or many (the full fallback).
          const count = round < 4 ? 20 : 3000;
          for (let k = 0; k < count; k++) { const r = Math.floor(rand() * graph.roadCount); closed[r] = 1; roads.push(r); }
        }
        overlay.apply(roads, closed);
        if (overlay.full) whole++; else partial++;
        customizeInto(topology, graph, full, closed);
        assertSameArcs(topology, overlay, full, `${m} round ${round} (${roads.length} roads)`);
        checkAgainstDijkstra(graph, topology, overlay, rand, closed);
      }
      assert.ok(partial >= 2 && whole >= 1, `${m}: ${partial} partial and ${whole} full re-customizations (both ways must be tested)`);
      // Clearing brings the base metric back.
      overlay.clear();
      assertSameArcs(topology, overlay, base, `${m} cleared`);
    }
  });

  test('a penalty per metre on zone roads (stops inside zones): equal to a full customization and to Dijkstra with the penalty, plain costs carried', () => {
    const rand = seededRandom(44);
    const arcs = topology.upHead.length;
    for (const m of METRICS) {
      const overlay = new CCHBlockedMetric(topology, customizeCCH(topology, graph, m), graph);
      const full = emptyMetric(m, arcs);
      const plain = { up: new Float64Array(arcs), down: new Float64Array(arcs) };
      for (let round = 0; round < 4; round++) {
        const zone = new Uint8Array(graph.roadCount), hard = new Uint8Array(graph.roadCount);
        const roads: number[] = [];
        for (let z = 0; z < 1 + round; z++) for (const r of randomZone(graph, rand, `z${z}`, 400 + rand() * 800).roads) { zone[r] = 1; roads.push(r); }
        // A few scattered roads closed outright beside the penalised ones.
        for (let k = 0; k < 10; k++) { const r = Math.floor(rand() * graph.roadCount); if (!zone[r]) { hard[r] = 1; roads.push(r); } }
        const penalty = { roads: zone, costPerMetre: Float64Array.of(0, 1e6) };
        overlay.apply(roads, hard, penalty);
        customizeInto(topology, graph, full, hard, penalty, plain);
        assertSameArcs(topology, overlay, full, `${m} penalty round ${round}`, plain);
        checkAgainstDijkstra(graph, topology, overlay, rand, hard, penalty);
      }
    }
  });

  const andorra = sharedExtract('andorra.osm.pbf');
  test('Andorra (turn restrictions as junction copies): closed roads equal Dijkstra', { skip: andorra.skip }, async () => {
    const real = await openGraph(andorra.path);
    const t = buildCCHTopology(real);
    const rand = seededRandom(43);
    for (const m of METRICS) {
      const overlay = new CCHBlockedMetric(t, customizeCCH(t, real, m), real);
      const closed = new Uint8Array(real.roadCount);
      const roads: number[] = [];
      for (let z = 0; z < 3; z++) for (const r of randomZone(real, rand, `z${z}`, 800).roads) { closed[r] = 1; roads.push(r); }
      overlay.apply(roads, closed);
      checkAgainstDijkstra(real, t, overlay, rand, closed);
    }
  });
});

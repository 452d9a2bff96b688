import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import turfDistance from '@turf/distance';
import {
  calculateZone, DEFAULT_GRAPH_PATH, decodeGraph, zoneFromGeoJson, encodeGraph, importOsmWithSummary, loadGraph, RoadFlag, Router,
  type OsmFormat, type RoadGraph, type Route, type RouteLeg, type RouteStep,
} from '../src/index.js';
import { labelKeyOf, labelOfKey } from '../src/graph/roadLabels.js';
import { bearingOf, roadBearings } from '../src/graph/roadBearings.js';
import { OBVIOUS_MARGIN_DEGREES, STEP_TYPES, TURN_THRESHOLD_DEGREES } from '../src/routing/steps.js';
import { STEP_LANGUAGES, wordSteps } from '../src/routing/stepTexts.js';
import { seededRandom, sharedExtract } from './support/helpers.js';

/**
 * Turn-by-turn steps: names kept by the import, maneuvers checked against a hand-built junction and
 * roundabout, and on real extracts against the route's own geometry: steps tile each leg, every name
 * change and every clear turn at a junction has a step, a straight run through junctions has none,
 * roundabout exits are counted again from the graph.
 */

// A crossing of Rua A (west-east) and Rua B (south-north) at (0, 0); a roundabout of 4 arms around
// (0, 0.02) driven anticlockwise (the ring W -> S -> E -> N); Rua C and Rua D meeting end to end at
// (0.01, 0.04) where no other road does, and Rua E's two ways meeting likewise.
const r = 0.0003;
const FIXTURE = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  <node id="1" lat="0" lon="-0.005"/><node id="2" lat="0" lon="0"/><node id="3" lat="0" lon="0.005"/>
  <node id="4" lat="-0.005" lon="0"/><node id="5" lat="0.005" lon="0"/>
  <node id="10" lat="0" lon="${0.02 - r}"/><node id="11" lat="${-r}" lon="0.02"/><node id="12" lat="0" lon="${0.02 + r}"/><node id="13" lat="${r}" lon="0.02"/>
  <node id="14" lat="0" lon="0.015"/><node id="15" lat="-0.005" lon="0.02"/><node id="16" lat="0" lon="0.025"/><node id="17" lat="0.005" lon="0.02"/>
  <node id="20" lat="0.01" lon="0.035"/><node id="21" lat="0.01" lon="0.04"/><node id="22" lat="0.01" lon="0.045"/>
  <node id="23" lat="0.02" lon="0.035"/><node id="24" lat="0.02" lon="0.04"/><node id="25" lat="0.02" lon="0.045"/>
  <way id="1"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/><tag k="name" v="Rua A"/></way>
  <way id="2"><nd ref="4"/><nd ref="2"/><nd ref="5"/><tag k="highway" v="residential"/><tag k="name" v="Rua B"/></way>
  <way id="3"><nd ref="10"/><nd ref="11"/><nd ref="12"/><nd ref="13"/><nd ref="10"/><tag k="highway" v="primary"/><tag k="junction" v="roundabout"/></way>
  <way id="4"><nd ref="14"/><nd ref="10"/><tag k="highway" v="primary"/><tag k="name" v="Rua Oeste"/></way>
  <way id="5"><nd ref="11"/><nd ref="15"/><tag k="highway" v="primary"/><tag k="name" v="Rua Sul"/></way>
  <way id="6"><nd ref="12"/><nd ref="16"/><tag k="highway" v="primary"/><tag k="name" v="Avenida Leste"/></way>
  <way id="7"><nd ref="13"/><nd ref="17"/><tag k="highway" v="trunk"/><tag k="name" v="Rodovia Norte"/><tag k="ref" v="BR-116;BR-101"/></way>
  <way id="8"><nd ref="20"/><nd ref="21"/><tag k="highway" v="residential"/><tag k="name" v="Rua C"/></way>
  <way id="9"><nd ref="21"/><nd ref="22"/><tag k="highway" v="residential"/><tag k="name" v="Rua D"/></way>
  <way id="10"><nd ref="23"/><nd ref="24"/><tag k="highway" v="residential"/><tag k="name" v="Rua E"/></way>
  <way id="11"><nd ref="24"/><nd ref="25"/><tag k="highway" v="residential"/><tag k="name" v="Rua E"/></way>
</osm>`;

const at = (latitude: number, longitude: number) => ({ latitude, longitude });

/** The steps tile the leg: consecutive point ranges from its first point to its last, distances and durations summing to the leg's. */
function assertTiles(leg: RouteLeg, last: boolean): void {
  const steps = leg.steps!;
  const n = leg.points.length;
  assert.equal(steps[0].first, 0);
  for (let i = 1; i < steps.length; i++) assert.equal(steps[i].first, steps[i - 1].last, `step ${i} starts where step ${i - 1} ends`);
  assert.equal(steps.at(-1)!.last, n - 1);
  assert.ok(steps.every((s) => s.first <= s.last));
  const metres = steps.reduce((sum, s) => sum + s.distance, 0);
  const seconds = steps.reduce((sum, s) => sum + s.duration, 0);
  assert.ok(Math.abs(metres - leg.distance) <= 1e-6 * Math.max(1, leg.distance), `${metres} m of steps, ${leg.distance} of leg`);
  assert.ok(Math.abs(seconds - leg.duration) <= 1e-6 * Math.max(1, leg.duration), `${seconds} s of steps, ${leg.duration} of leg`);
  assert.equal(steps.at(-1)!.type, last ? 'LAST_POINT' : 'VIA_POINT');
  assert.ok(steps.every((s) => s.text.length > 0 && !s.text.includes('{')), 'every step is worded');
}

describe('steps on a hand-built crossing and roundabout', () => {
  let graph: RoadGraph;
  let router: Router;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'detour-steps-'));
    writeFileSync(join(dir, 'steps.osm'), FIXTURE);
    const { graph: g, summary } = await importOsmWithSummary(join(dir, 'steps.osm'), 'xml');
    assert.equal(summary.labelledWays, 10);
    graph = g;
    router = new Router(graph);
  });
  const route = (points: Array<{ latitude: number; longitude: number }>, language: 'pt_BR' | 'es_AR' | 'en' = 'pt_BR'): Route =>
    router.route({ points, steps: language });
  const types = (route: Route, leg = 0) => route.legs[leg].steps!.map((s) => s.type);

  test('labels: name, ref (a list read as signs read it), destination; roads keep them; pieces join only when named alike', () => {
    assert.deepEqual(labelOfKey(labelKeyOf({ name: 'Rodovia Norte', ref: 'BR-116;BR-101', destination: 'Curitiba' })), { name: 'Rodovia Norte', ref: 'BR-116 / BR-101', destination: 'Curitiba' });
    assert.deepEqual(labelOfKey(labelKeyOf({ highway: 'primary' })), {});
    assert.deepEqual(labelOfKey(labelKeyOf({ 'destination:ref': 'SP-55' })), { destination: 'SP-55' });
    const road = (p: { latitude: number; longitude: number }) => router.snap(p, 'probe').road;
    assert.deepEqual(graph.labelOf(road(at(0.005, 0.02 + 0.0000001))), { name: 'Rodovia Norte', ref: 'BR-116 / BR-101' });
    assert.notEqual(road(at(0.01, 0.037)), road(at(0.01, 0.043)), 'Rua C and Rua D stay two roads');
    assert.equal(road(at(0.02, 0.037)), road(at(0.02, 0.043)), 'the two ways of Rua E join into one road');
    const copy = decodeGraph(encodeGraph(graph));
    for (let k = 0; k < graph.roadCount; k++) assert.deepEqual(copy.labelOf(k), graph.labelOf(k));
  });

  test('a crossing: left, right, straight on; names in the texts of each language', () => {
    const left = route([at(0, -0.004), at(0.004, 0)]);
    assert.deepEqual(types(left), ['CONTINUE_ON_STREET', 'TURN_LEFT', 'LAST_POINT']);
    assert.deepEqual(left.legs[0].steps!.map((s) => s.text), ['Siga leste em Rua A', 'Vire à esquerda em Rua B', 'Você chegou ao seu destino']);
    assert.ok(Math.abs(left.legs[0].steps![1].turnAngle! + 90) < 1);
    const right = route([at(0, -0.004), at(-0.004, 0)], 'en');
    assert.deepEqual(right.legs[0].steps!.map((s) => s.text), ['Head east on Rua A', 'Turn right onto Rua B', 'You have arrived at your destination']);
    const straight = route([at(0, -0.004), at(0, 0.004)], 'es_AR');
    assert.deepEqual(straight.legs[0].steps!.map((s) => s.text), ['Ve a este en Rua A', 'Has llegado a tu destino']);
    for (const leg of [left, right, straight]) assertTiles(leg.legs[0], true);
  });

  test('a roundabout: the exit counted anticlockwise from the arm entered, then leaving it', () => {
    for (const [to, exit, name] of [[at(-0.004, 0.02), 1, 'Rua Sul'], [at(0, 0.024), 2, 'Avenida Leste'], [at(0.004, 0.02), 3, 'Rodovia Norte']] as const) {
      const trip = route([at(0, 0.016), to]);
      assert.deepEqual(types(trip), ['CONTINUE_ON_STREET', 'ROUNDABOUT', 'LEAVE_ROUNDABOUT', 'LAST_POINT']);
      const [, roundabout, leave] = trip.legs[0].steps!;
      assert.equal(roundabout.exitNumber, exit);
      assert.equal(roundabout.name, name);
      assert.match(roundabout.text, new RegExp(`^Entre na rotatória e saia na ${exit}ª saída em ${name}`));
      assert.equal(leave.text, `Saia da rotatória para ${name}${name === 'Rodovia Norte' ? ' (BR-116 / BR-101)' : ''}`);
      assertTiles(trip.legs[0], true);
    }
    const en = route([at(0, 0.016), at(0.004, 0.02)], 'en').legs[0].steps![1].text;
    assert.equal(en, 'Enter the roundabout and take the 3rd exit onto Rodovia Norte (BR-116 / BR-101)');
  });

  test('a trip with a via stop: VIA_POINT ends the first leg, LAST_POINT the second; a leg along one road is one step', () => {
    const trip = route([at(0, -0.004), at(0.004, 0), at(0, 0.004)], 'en');
    assert.equal(trip.legs[0].steps!.at(-1)!.text, 'You have arrived at your 1st destination');
    assert.deepEqual(trip.legs.map((l) => l.steps!.at(-1)!.type), ['VIA_POINT', 'LAST_POINT']);
    trip.legs.forEach((leg, i) => assertTiles(leg, i === 1));
    const back = route([at(0.0049, 0.0000001), at(0.004, 0), at(0, 0.004)]);
    back.legs.forEach((leg, i) => assertTiles(leg, i === 1));
    assert.deepEqual(types(back), ['CONTINUE_ON_STREET', 'VIA_POINT']);
  });

  test('a bad language is refused naming the field', () => {
    assert.throws(() => router.route({ points: [at(0, -0.004), at(0, 0.004)], steps: 'tlh' as 'en' }), (e: Error & { code?: string }) => e.code === 'INVALID_INPUT' && /steps/.test(e.message));
  });
});

test('every step type is worded in every language, with the road and the exit', () => {
  for (const language of STEP_LANGUAGES) {
    for (const type of STEP_TYPES) {
      const step: RouteStep = { type, distance: 10, duration: 1, first: 0, last: 1, road: 0, name: 'Rua Augusta', ref: 'SP-55', bearing: 90, text: '', ...(type === 'ROUNDABOUT' && { exitNumber: 2 }) };
      const lead: RouteStep = { ...step, type: 'CONTINUE_ON_STREET' };
      wordSteps([lead, step], language, 0, type === 'VIA_POINT' ? 2 : 1);
      assert.ok(step.text.length > 0 && !/[{}]/.test(step.text), `${language} ${type}: ${step.text}`);
      if (!['VIA_POINT', 'LAST_POINT'].includes(type)) assert.match(step.text, /Rua Augusta/, `${language} ${type}: ${step.text}`);
      if (type === 'ROUNDABOUT') assert.match(step.text, language === 'en' ? /2nd/ : /2ª/, `${language}: ${step.text}`);
      // Each language's grammar: a stop is masculine in Spanish and Portuguese; Spanish leaves *de* la rotonda.
      if (type === 'VIA_POINT') assert.match(step.text, { en: /your 1st destination/, pt_BR: /seu 1º destino/, es_AR: /tu 1º destino/ }[language], step.text);
      if (type === 'LEAVE_ROUNDABOUT') assert.match(step.text, { en: /^Exit the roundabout/, pt_BR: /^Saia da rotatória/, es_AR: /^Sal de la rotonda/ }[language], step.text);
    }
  }
});

/** Degrees from one bearing to another in (-180, 180]. */
const angleBetween = (a: number, b: number) => { const d = (((b - a) % 360) + 360) % 360; return d > 180 ? d - 360 : d; };
const metresBetween = (p: { latitude: number; longitude: number }, q: { latitude: number; longitude: number }) =>
  turfDistance([p.longitude, p.latitude], [q.longitude, q.latitude], { units: 'meters' });
/** Bearing measured on the leg's own polyline, from point i towards the first point at least `m` metres away in direction dir. */
function polylineBearing(points: RouteLeg['points'], i: number, dir: 1 | -1, m: number): number | undefined {
  for (let k = i + dir; k >= 0 && k < points.length; k += dir) {
    if (metresBetween(points[i], points[k]) >= m) {
      const [a, b] = dir === 1 ? [points[i], points[k]] : [points[k], points[i]];
      const dx = (b.longitude - a.longitude) * Math.cos(((a.latitude + b.latitude) / 2) * Math.PI / 180);
      return (Math.atan2(dx, b.latitude - a.latitude) * 180) / Math.PI;
    }
  }
  return undefined;
}

/** Bearing of leaving a road by its start (its end when reversed), from its points at least 20 m along. */
function roadBearingFrom(graph: RoadGraph, road: number, reversed: boolean): number {
  const n = graph.roadPointCount(road);
  const pt = (k: number) => at(graph.roadPointLat(road, k), graph.roadPointLon(road, k));
  const ks = [...Array(n).keys()];
  if (reversed) ks.reverse();
  const points = ks.map(pt);
  return polylineBearing(points as RouteLeg['points'], 0, 1, 20) ?? polylineBearing(points as RouteLeg['points'], 0, 1, 0)!;
}

test('the stored road bearings: leaving each end towards the first point 20 m along it (else the other end), as measured again with turf', { skip: sharedExtract('andorra.osm.pbf').skip }, async () => {
  const { graph } = await importOsmWithSummary(sharedExtract('andorra.osm.pbf').path, 'pbf');
  const bearings = roadBearings(graph);
  let checked = 0;
  for (let road = 0; road < graph.roadCount; road++) {
    for (const fromStart of [true, false]) {
      const n = graph.roadPointCount(road);
      const ks = [...Array(n).keys()];
      if (!fromStart) ks.reverse();
      const points = ks.map((k) => at(graph.roadPointLat(road, k), graph.roadPointLon(road, k)));
      // Only where no point lies within 5 cm of 20 m (the two distance formulas could pick different points there).
      if (points.some((q) => Math.abs(metresBetween(points[0], q) - 20) < 0.05) || metresBetween(points[0], points[n - 1]) === 0) continue;
      const k = points.findIndex((q) => metresBetween(points[0], q) >= 20);
      const [a, b] = [points[0], points[k >= 0 ? k : n - 1]];
      const expected = (Math.atan2((b.longitude - a.longitude) * Math.cos(((a.latitude + b.latitude) / 2) * Math.PI / 180), b.latitude - a.latitude) * 180) / Math.PI;
      const got = bearingOf(bearings, road, fromStart);
      assert.ok(Math.abs(angleBetween(expected, got)) < 0.1, `road ${road} from its ${fromStart ? 'start' : 'end'}: ${got} vs ${expected}`);
      checked++;
    }
  }
  assert.ok(checked > graph.roadCount, `${checked} road ends checked`);
});

const extracts: Array<[string, string, OsmFormat]> = [
  ['Monaco', 'monaco.osm.pbf', 'pbf'], ['Andorra', 'andorra.osm.pbf', 'pbf'], ['Campo Grande', 'campo-grande.osm.gz', 'xml.gz'],
];

for (const [name, file, format] of extracts) {
  test(`${name}: steps tile every leg; every name change and clear turn at a junction has a step, straight runs none; roundabout exits recounted`, { skip: sharedExtract(file).skip }, async (t) => {
    const { graph } = await importOsmWithSummary(sharedExtract(file).path, format);
    const router = new Router(graph);
    const rand = seededRandom(file.length * 104729);
    const { firstOut, edgeHead, edgeRoad, edgeReversed, roadFlags } = graph;
    const isRoundabout = (road: number) => (roadFlags[road] & RoadFlag.ROUNDABOUT) !== 0;
    // What a driver follows: the road number where there is one, else the name.
    const named = (road: number) => { const l = graph.labelOf(road); return l.ref !== undefined ? `ref ${l.ref}` : `name ${l.name ?? ''}`; };
    let checkedRenamed = 0, checkedTurns = 0, checkedBends = 0, checkedStraight = 0, roundabouts = 0;
    for (let k = 0; k < 40; k++) {
      const points = [0, 1, 2].slice(0, 2 + Math.floor(rand() * 2)).map(() => {
        const road = Math.floor(rand() * graph.roadCount);
        return at(graph.roadPointLat(road, 0) * 0.5 + graph.roadPointLat(road, 1) * 0.5, graph.roadPointLon(road, 0) * 0.5 + graph.roadPointLon(road, 1) * 0.5);
      });
      let trip: Route;
      try {
        trip = router.route({ points, steps: 'en' });
      } catch {
        continue; // no route between these points
      }
      trip.legs.forEach((leg, legIndex) => {
        const steps = leg.steps!;
        assertTiles(leg, legIndex === trip.legs.length - 1);
        const starts = new Set(steps.map((s) => s.first));
        // Where each junction between two edges of the leg lies in its polyline: the head of the earlier edge, found in order.
        let p = 0;
        for (let i = 1; i < leg.edges.length; i++) {
          const a = leg.edges[i - 1], b = leg.edges[i], v = edgeHead[a];
          const lat = graph.nodeLatitude(v), lon = graph.nodeLongitude(v);
          while (p < leg.points.length && !(leg.points[p].latitude === lat && leg.points[p].longitude === lon)) p++;
          assert.ok(p < leg.points.length, 'each junction lies on the leg');
          const ra = edgeRoad[a], rb = edgeRoad[b];
          if (isRoundabout(ra) || isRoundabout(rb) || ra === rb) continue;
          if (named(ra) !== named(rb)) {
            assert.ok(starts.has(p), `a step where ${named(ra)} becomes ${named(rb)}`);
            checkedRenamed++;
            continue;
          }
          const others = [...Array(firstOut[v + 1] - firstOut[v]).keys()].map((j) => firstOut[v] + j)
            .filter((e) => e !== b && !(edgeRoad[e] === ra && edgeReversed[e] !== edgeReversed[a]));
          const before = polylineBearing(leg.points, p, -1, 20), after = polylineBearing(leg.points, p, 1, 20);
          // Only where both roads run 20 m from the junction (the polyline then measures what the roads do).
          if (before === undefined || after === undefined || graph.roadMetres(ra) < 25 || graph.roadMetres(rb) < 25) continue;
          const angle = Math.abs(angleBetween(before, after));
          // How far each other road turns, from its own points 20 m out of the junction.
          const otherAngles = others.map((e) => Math.abs(angleBetween(before, roadBearingFrom(graph, edgeRoad[e], edgeReversed[e] === 1))));
          if (angle > TURN_THRESHOLD_DEGREES + 10 && otherAngles.some((o) => o < angle + OBVIOUS_MARGIN_DEGREES - 10)) {
            assert.ok(starts.has(p), `a step at a ${angle.toFixed(0)}° turn on ${named(ra)}`);
            checkedTurns++;
          } else if (angle > TURN_THRESHOLD_DEGREES + 10 && otherAngles.every((o) => o > angle + OBVIOUS_MARGIN_DEGREES + 10)) {
            assert.ok(!starts.has(p), `no step where ${named(ra)} bends ${angle.toFixed(0)}° and the other roads turn further`);
            checkedBends++;
          } else if (angle < TURN_THRESHOLD_DEGREES - 10) {
            assert.ok(!starts.has(p), `no step going straight on along ${named(ra)} (${angle.toFixed(0)}°)`);
            checkedStraight++;
          }
        }
        // Each roundabout step's exit, counted again: from the roundabout's first edge, every node
        // after it offering a road off the roundabout, up to the one the route leaves by.
        for (const s of steps.filter((x) => x.type === 'ROUNDABOUT' && x.exitNumber !== undefined)) {
          let i = leg.edges.findIndex((e) => isRoundabout(edgeRoad[e]) && leg.points[s.first].latitude === graph.nodeLatitude(graph.edgeTailOf(e)) && leg.points[s.first].longitude === graph.nodeLongitude(graph.edgeTailOf(e)));
          assert.ok(i >= 0);
          let exits = 0;
          for (; i < leg.edges.length && isRoundabout(edgeRoad[leg.edges[i]]); i++) {
            const v = edgeHead[leg.edges[i]];
            let offers = false;
            for (let e = firstOut[v]; e < firstOut[v + 1]; e++) if (!isRoundabout(edgeRoad[e])) offers = true;
            if (offers) exits++;
          }
          assert.equal(s.exitNumber, exits, 'the exit taken is the exits passed, plus one');
          roundabouts++;
        }
      });
    }
    assert.ok(checkedRenamed > 20 && checkedStraight > 20, `${checkedRenamed} name changes, ${checkedTurns} turns, ${checkedStraight} straight junctions checked`);
    if (name !== 'Monaco') assert.ok(checkedTurns > 5, `${checkedTurns} turns checked`);
    t.diagnostic(`${checkedRenamed} name changes, ${checkedTurns} turns, ${checkedBends} bends, ${checkedStraight} straight junctions, ${roundabouts} roundabout exits checked`);
  });
}

test('a route around a zone has the turns of its detour', async () => {
  const graph = loadGraph(DEFAULT_GRAPH_PATH);
  const router = new Router(graph);
  const rand = seededRandom(42);
  let detours = 0;
  for (let k = 0; k < 60 && detours < 5; k++) {
    const [a, b] = [0, 1].map(() => { const road = Math.floor(rand() * graph.roadCount); return at(graph.roadPointLat(road, 0), graph.roadPointLon(road, 0)); });
    let free: Route, around: Route;
    try {
      free = router.route({ points: [a, b], steps: 'pt_BR' });
      if (free.distance < 3000) continue;
      // A 300 m square on the middle of the free route.
      const mid = free.legs[0].points[free.legs[0].points.length >> 1], d = 0.0015;
      const square = { type: 'Polygon' as const, coordinates: [[[mid.longitude - d, mid.latitude - d], [mid.longitude + d, mid.latitude - d], [mid.longitude + d, mid.latitude + d], [mid.longitude - d, mid.latitude + d], [mid.longitude - d, mid.latitude - d]]] };
      around = router.route({ points: [a, b], steps: 'pt_BR', zones: [calculateZone(graph, zoneFromGeoJson('z', square))] });
    } catch {
      continue;
    }
    if (around.legs[0].zonesEntered || around.distance <= free.distance + 1) continue;
    assertTiles(around.legs[0], true);
    // The detour turns where the free route does not pass: a turn step at a point the free route never reaches.
    const onFree = new Set(free.legs[0].points.map((q) => `${q.latitude},${q.longitude}`));
    const turns = around.legs[0].steps!.filter((s) => /TURN|KEEP|U_TURN|ROUNDABOUT/.test(s.type) && !onFree.has(`${around.legs[0].points[s.first].latitude},${around.legs[0].points[s.first].longitude}`));
    assert.ok(turns.length > 0, 'the detour has turns of its own');
    detours++;
  }
  assert.ok(detours >= 3, `${detours} detours checked`);
});

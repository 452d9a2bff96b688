import { test } from 'node:test';
import assert from 'node:assert/strict';
import { carRoadAttributes, parseMaxspeed, RoadFlag, HIGHWAY_CLASSES } from '../src/index.js';
import { carBarrierBlocks, ferryCarriesCars, parseMetres } from '../src/graph/carProfile.js';

const both = RoadFlag.FORWARD | RoadFlag.BACKWARD;
const dir = (tags: Record<string, string>) => (carRoadAttributes(tags)?.flags ?? -1) & both;

test('maxspeed values parse to km/h', () => {
  assert.equal(parseMaxspeed('50'), 50);
  assert.equal(parseMaxspeed('50 km/h'), 50);
  assert.equal(parseMaxspeed('80kmh'), 80);
  assert.ok(Math.abs(parseMaxspeed('30 mph')! - 48.28032) < 1e-9);
  assert.ok(Math.abs(parseMaxspeed('10 knots')! - 18.52) < 1e-9);
  assert.equal(parseMaxspeed('RU:urban'), 50);
  assert.equal(parseMaxspeed('RU:rural'), 90);
  assert.equal(parseMaxspeed('DE:motorway'), 120);
  assert.equal(parseMaxspeed('DE:zone30'), 30);
  assert.equal(parseMaxspeed('DE:zone:30'), 30);
  assert.equal(parseMaxspeed('walk'), 7);
  assert.equal(parseMaxspeed('50;30'), 30);
  for (const junk of ['signals', 'none', 'variable', '', 'fast', '-5', '0', 'XX:unknown']) {
    assert.equal(parseMaxspeed(junk), undefined, junk);
  }
  assert.equal(parseMaxspeed(undefined), undefined);
});

test('speed comes from maxspeed, else the class default, clamped to a sane range', () => {
  assert.equal(carRoadAttributes({ highway: 'residential', maxspeed: '40' })!.speedKmh, 40);
  assert.equal(carRoadAttributes({ highway: 'residential' })!.speedKmh, 25);
  assert.equal(carRoadAttributes({ highway: 'motorway', maxspeed: 'none' })!.speedKmh, 90);
  assert.equal(carRoadAttributes({ highway: 'primary', maxspeed: 'signals' })!.speedKmh, 65);
  assert.equal(carRoadAttributes({ highway: 'motorway', maxspeed: '300' })!.speedKmh, 140);
  assert.equal(carRoadAttributes({ highway: 'service', maxspeed: '1' })!.speedKmh, 3);
});

test('oneway values, roundabouts and implied motorway oneway', () => {
  for (const v of ['yes', '1', 'true']) assert.equal(dir({ highway: 'primary', oneway: v }), RoadFlag.FORWARD, v);
  for (const v of ['-1', 'reverse']) assert.equal(dir({ highway: 'primary', oneway: v }), RoadFlag.BACKWARD, v);
  assert.equal(dir({ highway: 'primary', oneway: 'no' }), both);
  assert.equal(dir({ highway: 'primary' }), both);
  assert.equal(dir({ highway: 'residential', junction: 'roundabout' }), RoadFlag.FORWARD);
  assert.equal(dir({ highway: 'motorway' }), RoadFlag.FORWARD);
  assert.equal(dir({ highway: 'motorway_link' }), RoadFlag.FORWARD);
  assert.equal(dir({ highway: 'motorway', oneway: 'no' }), both);
  assert.equal(carRoadAttributes({ highway: 'primary', oneway: 'reversible' }), null);
  assert.ok(carRoadAttributes({ highway: 'residential', junction: 'roundabout' })!.flags & RoadFlag.ROUNDABOUT);
});

test('access rules: the most specific car tag wins', () => {
  assert.equal(carRoadAttributes({ highway: 'service', access: 'private' }), null);
  assert.equal(carRoadAttributes({ highway: 'service', access: 'no' }), null);
  assert.equal(carRoadAttributes({ highway: 'service', motor_vehicle: 'no' }), null);
  assert.ok(carRoadAttributes({ highway: 'service', access: 'no', motor_vehicle: 'yes' }));
  assert.equal(carRoadAttributes({ highway: 'service', access: 'yes', motorcar: 'private' }), null);
  assert.ok(carRoadAttributes({ highway: 'residential', access: 'destination' }));
});

test('non-car ways are not routable; car ferries are, with their flag', () => {
  for (const h of ['footway', 'cycleway', 'path', 'steps', 'pedestrian', 'construction', 'track', 'platform']) {
    assert.equal(carRoadAttributes({ highway: h }), null, h);
  }
  assert.equal(carRoadAttributes({ building: 'yes' }), null);
  assert.equal(carRoadAttributes({ highway: 'residential', area: 'yes' }), null);
  const ferry = carRoadAttributes({ route: 'ferry', motorcar: 'yes' })!;
  assert.ok(ferry.flags & RoadFlag.FERRY);
  assert.equal(HIGHWAY_CLASSES[ferry.highwayClass], 'ferry');
});

test('ferries carry cars only when a tag says so', () => {
  // A bare route=ferry is a passenger boat (Monaco's Bateau Bus, way 166399542, has no other tag).
  assert.equal(carRoadAttributes({ route: 'ferry' }), null);
  assert.equal(carRoadAttributes({ route: 'ferry', foot: 'yes', bicycle: 'yes' }), null);
  assert.equal(carRoadAttributes({ route: 'ferry', access: 'yes' }), null); // access=yes says nothing about cars
  for (const key of ['motorcar', 'motor_vehicle', 'vehicle']) {
    for (const v of ['yes', 'designated']) assert.ok(carRoadAttributes({ route: 'ferry', [key]: v }), `${key}=${v}`);
    for (const v of ['no', 'private', 'destination']) assert.equal(ferryCarriesCars({ route: 'ferry', [key]: v }), false, `${key}=${v}`);
  }
  // The most specific tag decides.
  assert.equal(carRoadAttributes({ route: 'ferry', vehicle: 'yes', motorcar: 'no' }), null);
  assert.ok(carRoadAttributes({ route: 'ferry', vehicle: 'no', motor_vehicle: 'yes' }));
  // ferry=<road class> names the road a car ferry carries.
  assert.ok(carRoadAttributes({ route: 'ferry', ferry: 'primary' }));
  assert.equal(carRoadAttributes({ route: 'ferry', ferry: 'footway' }), null);
  // The most specific tag wins over a general one, both ways.
  assert.ok(carRoadAttributes({ route: 'ferry', motorcar: 'yes', access: 'private' }));
  assert.equal(carRoadAttributes({ route: 'ferry', vehicle: 'yes', motorcar: 'private' }), null);
});

test('barriers: which stop a car (after OSRM car.lua)', () => {
  for (const b of ['bollard', 'block', 'jersey_barrier', 'chain', 'kerb', 'fence', 'wall', 'log', 'turnstile', 'stile', 'swing_gate']) {
    assert.equal(carBarrierBlocks({ barrier: b }), true, b);
  }
  for (const b of ['gate', 'lift_gate', 'cattle_grid', 'border_control', 'toll_booth', 'sally_port', 'entrance', 'arch', 'no', 'height_restrictor']) {
    assert.equal(carBarrierBlocks({ barrier: b }), false, b);
  }
  assert.equal(carBarrierBlocks({}), false);
  assert.equal(carBarrierBlocks({ highway: 'crossing' }), false);
  // Exceptions: rising bollards, flat kerbs, kerbs on crossings, virtual fences, tall enough height restrictors.
  assert.equal(carBarrierBlocks({ barrier: 'bollard', bollard: 'rising' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'bollard', bollard: 'fixed' }), true);
  assert.equal(carBarrierBlocks({ barrier: 'kerb', kerb: 'lowered' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'kerb', kerb: 'flush' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'kerb', kerb: 'raised' }), true);
  assert.equal(carBarrierBlocks({ barrier: 'kerb', highway: 'crossing' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'fence', sensory: 'audible' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'height_restrictor', maxheight: '1.9' }), true);
  assert.equal(carBarrierBlocks({ barrier: 'height_restrictor', maxheight: '2.5 m' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'height_restrictor', maxheight: `6'0"` }), true);
  // A car access tag on the node decides, whatever the barrier.
  assert.equal(carBarrierBlocks({ barrier: 'bollard', motor_vehicle: 'yes' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'bollard', access: 'yes', motorcar: 'no' }), true);
  assert.equal(carBarrierBlocks({ barrier: 'gate', access: 'private' }), true);
  assert.equal(carBarrierBlocks({ barrier: 'gate', access: 'no' }), true);
  assert.equal(carBarrierBlocks({ barrier: 'gate', access: 'destination' }), false);
  assert.equal(carBarrierBlocks({ barrier: 'bollard', foot: 'yes' }), true); // foot says nothing about cars
  assert.equal(carBarrierBlocks({ access: 'no' }), true); // as OSRM: a node closed to cars stops them
  assert.equal(parseMetres('3'), 3);
  assert.equal(parseMetres('default'), undefined);
});

test('tunnel, bridge and toll flags are kept', () => {
  const f = carRoadAttributes({ highway: 'primary', tunnel: 'yes', bridge: 'viaduct', toll: 'yes' })!.flags;
  assert.ok(f & RoadFlag.TUNNEL && f & RoadFlag.BRIDGE && f & RoadFlag.TOLL);
  const g = carRoadAttributes({ highway: 'primary', tunnel: 'no', bridge: 'no' })!.flags;
  assert.equal(g & (RoadFlag.TUNNEL | RoadFlag.BRIDGE | RoadFlag.TOLL), 0);
});

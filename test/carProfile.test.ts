import { test } from 'node:test';
import assert from 'node:assert/strict';
import { carRoadAttributes, parseMaxspeed, RoadFlag, HIGHWAY_CLASSES } from '../src/index.js';

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

test('non-car ways are not routable; ferries are, with their flag', () => {
  for (const h of ['footway', 'cycleway', 'path', 'steps', 'pedestrian', 'construction', 'track', 'platform']) {
    assert.equal(carRoadAttributes({ highway: h }), null, h);
  }
  assert.equal(carRoadAttributes({ building: 'yes' }), null);
  assert.equal(carRoadAttributes({ highway: 'residential', area: 'yes' }), null);
  const ferry = carRoadAttributes({ route: 'ferry' })!;
  assert.ok(ferry.flags & RoadFlag.FERRY);
  assert.equal(HIGHWAY_CLASSES[ferry.highwayClass], 'ferry');
});

test('tunnel, bridge and toll flags are kept', () => {
  const f = carRoadAttributes({ highway: 'primary', tunnel: 'yes', bridge: 'viaduct', toll: 'yes' })!.flags;
  assert.ok(f & RoadFlag.TUNNEL && f & RoadFlag.BRIDGE && f & RoadFlag.TOLL);
  const g = carRoadAttributes({ highway: 'primary', tunnel: 'no', bridge: 'no' })!.flags;
  assert.equal(g & (RoadFlag.TUNNEL | RoadFlag.BRIDGE | RoadFlag.TOLL), 0);
});

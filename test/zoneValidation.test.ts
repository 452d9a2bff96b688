import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateZone, zoneFromGeoJson, ZoneValidationError, ZONE_LIMITS, type ValidationIssue } from '../src/index.js';

const v = (latitude: number, longitude: number) => ({ latitude, longitude });
const square = [v(0, 0), v(0, 1), v(1, 1), v(1, 0)];

/** Validates and returns the issues (fails when the zone is accepted). */
function issuesOf(input: unknown): ValidationIssue[] {
  try {
    validateZone(input);
  } catch (err) {
    assert.ok(err instanceof ZoneValidationError, String(err));
    assert.equal(err.code, 'INVALID_ZONE');
    return err.issues;
  }
  return assert.fail('expected the zone to be rejected');
}

function expectIssue(input: unknown, path: string, message: RegExp) {
  const issues = issuesOf(input);
  const hit = issues.find((i) => i.path === path && message.test(i.message));
  assert.ok(hit, `expected ${path}: ${message}, got ${JSON.stringify(issues)}`);
}

test('a valid zone, open or closed ring, comes back as polygons in [lon, lat]', () => {
  const open = validateZone({ name: 'Zona 1', geometries: [{ name: '', vertices: square }] });
  const closed = validateZone({ name: 'Zona 1', geometries: [{ vertices: [...square, square[0]] }] });
  assert.deepEqual(open.polygons[0].rings, closed.polygons[0].rings);
  assert.deepEqual(open.polygons[0].rings[0][1], [1, 0]);
  assert.equal(open.polygons[0].rings[0].length, 4);
});

test('name: required, a string, 1..100 characters, not blank, no control characters or "/"', () => {
  expectIssue({ geometries: [{ vertices: square }] }, 'name', /is required/);
  expectIssue({ name: 42, geometries: [{ vertices: square }] }, 'name', /must be a string, got number/);
  expectIssue({ name: '', geometries: [{ vertices: square }] }, 'name', /must not be empty/);
  expectIssue({ name: '   ', geometries: [{ vertices: square }] }, 'name', /must not be empty or only spaces/);
  expectIssue({ name: 'x'.repeat(ZONE_LIMITS.nameMaxLength + 1), geometries: [{ vertices: square }] }, 'name', /at most 100 characters, got 101/);
  expectIssue({ name: 'a\nb', geometries: [{ vertices: square }] }, 'name', /control characters/);
  expectIssue({ name: 'a/b', geometries: [{ vertices: square }] }, 'name', /must not contain "\/"/);
  expectIssue({ name: '..', geometries: [{ vertices: square }] }, 'name', /must not be "\." or "\.\."/);
  expectIssue({ name: '.', geometries: [{ vertices: square }] }, 'name', /must not be "\." or "\.\."/);
  assert.equal(validateZone({ name: '...', geometries: [{ vertices: square }] }).name, '...');
  assert.equal(validateZone({ name: 'x'.repeat(100), geometries: [{ vertices: square }] }).name.length, 100);
  assert.equal(validateZone({ name: 'Zône Ünïcode ✓ %20', geometries: [{ vertices: square }] }).name, 'Zône Ünïcode ✓ %20');
});

test('geometries: required, an array, at least one, at most the limit', () => {
  expectIssue({ name: 'z' }, 'geometries', /is required/);
  expectIssue({ name: 'z', geometries: null }, 'geometries', /is required|must be an array/);
  expectIssue({ name: 'z', geometries: 'abc' }, 'geometries', /must be an array, got the string "abc"/);
  expectIssue({ name: 'z', geometries: [] }, 'geometries', /at least one geometry/);
  const big = Array.from({ length: 9_000 }, (_, i) => v(Math.sin(i), Math.cos(i)));
  const manyBig = Array.from({ length: 12 }, () => ({ vertices: big }));
  expectIssue({ name: 'z', geometries: manyBig }, 'geometries', /at most 100000 vertices in all, got 108000/);
  expectIssue({ name: 'z', geometries: [[]] }, 'geometries[0]', /must be an object with vertices, got an array/);
  expectIssue({ name: 'z', geometries: [null] }, 'geometries[0]', /got null/);
  const many = Array.from({ length: ZONE_LIMITS.geometriesMax + 1 }, () => ({ vertices: square }));
  expectIssue({ name: 'z', geometries: many }, 'geometries', /at most 100 geometries, got 101/);
});

test('geometry names: strings, unique within the zone (empty names may repeat)', () => {
  expectIssue({ name: 'z', geometries: [{ name: 'a', vertices: square }, { name: 'a', vertices: square }] }, 'geometries[1].name', /duplicates the name of geometries\[0\]/);
  expectIssue({ name: 'z', geometries: [{ name: 7, vertices: square }] }, 'geometries[0].name', /must be a string/);
  assert.equal(validateZone({ name: 'z', geometries: [{ name: '', vertices: square }, { name: '', vertices: square }] }).polygons.length, 2);
});

test('vertices: required array of {latitude, longitude}; finite numbers in range; strings and nulls rejected', () => {
  expectIssue({ name: 'z', geometries: [{}] }, 'geometries[0].vertices', /is required/);
  expectIssue({ name: 'z', geometries: [{ vertices: {} }] }, 'geometries[0].vertices', /must be an array/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), null] }] }, 'geometries[0].vertices[2]', /must be an object \{latitude, longitude\}, got null/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), { latitude: '1', longitude: 1 }] }] }, 'geometries[0].vertices[2].latitude', /finite number, got the string "1"/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), { latitude: 1 }] }] }, 'geometries[0].vertices[2].longitude', /is required/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), v(91, 1)] }] }, 'geometries[0].vertices[2].latitude', /between -90 and 90, got 91/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), v(1, -180.5)] }] }, 'geometries[0].vertices[2].longitude', /between -180 and 180/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), v(NaN, 1)] }] }, 'geometries[0].vertices[2].latitude', /finite number/);
  const tooMany = Array.from({ length: ZONE_LIMITS.verticesMax + 2 }, (_, i) => v(Math.sin(i), Math.cos(i)));
  expectIssue({ name: 'z', geometries: [{ vertices: tooMany }] }, 'geometries[0].vertices', /at most 10000 vertices/);
});

test('rings: at least 3 distinct vertices, some area, no self-intersection (naming the segments), no antimeridian crossing', () => {
  expectIssue({ name: 'z', geometries: [{ vertices: [] }] }, 'geometries[0].vertices', /at least 3 distinct vertices, got 0/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), v(0, 0), v(0, 1)] }] }, 'geometries[0].vertices', /at least 3 distinct vertices, got 2/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(0, 1), v(0, 2)] }] }, 'geometries[0].vertices', /no area/);
  // A bow tie: segment 0 (vertex 0 to 1) crosses segment 2 (vertex 2 to 3).
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 0), v(1, 1), v(1, 0), v(0, 1)] }] }, 'geometries[0].vertices', /self-intersecting: segment 0 \(vertex 0 to 1\) crosses segment 2 \(vertex 2 to 3\)/);
  expectIssue({ name: 'z', geometries: [{ vertices: [v(0, 179.5), v(0, -179.5), v(1, -179.5), v(1, 179.5)] }] }, 'geometries[0].vertices', /crosses the antimeridian between vertices 0 and 1; split the polygon/);
});

test('every issue is reported at once, each with its own path', () => {
  const issues = issuesOf({ name: '', geometries: [{ name: 'a', vertices: [v(0, 0)] }, { name: 'a', vertices: [v(100, 0), v(0, 0), v(1, 1)] }] });
  const paths = issues.map((i) => i.path).sort();
  assert.deepEqual(paths, ['geometries[0].vertices', 'geometries[1].name', 'geometries[1].vertices[0].latitude', 'name']);
});

test('not an object at all: one issue at $', () => {
  for (const bad of [null, 'zone', 42, [], undefined]) {
    const issues = issuesOf(bad);
    assert.equal(issues[0].path, '$');
  }
});

test('GeoJSON zones: Polygon with holes, MultiPolygon, Feature, FeatureCollection; errors name the GeoJSON path', () => {
  const outer = [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]];
  const hole = [[1, 1], [1, 3], [3, 3], [3, 1], [1, 1]];
  const withHole = zoneFromGeoJson('z', { type: 'Polygon', coordinates: [outer, hole] });
  assert.equal(withHole.polygons[0].rings.length, 2);
  assert.equal(zoneFromGeoJson('z', { type: 'MultiPolygon', coordinates: [[outer], [hole]] }).polygons.length, 2);
  const fc = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'park' }, geometry: { type: 'Polygon', coordinates: [outer] } }] };
  assert.equal(zoneFromGeoJson('z', fc).polygons[0].name, 'park');
  assert.throws(() => zoneFromGeoJson('z', { type: 'Point', coordinates: [0, 0] }), (e: ZoneValidationError) => /Polygon or MultiPolygon, got Point/.test(e.message));
  assert.throws(() => zoneFromGeoJson('z', { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1]]] }),
    (e: ZoneValidationError) => e.issues[0].path === '$.coordinates[0]' && /self-intersecting/.test(e.issues[0].message));
  assert.throws(() => zoneFromGeoJson('z', { type: 'Polygon', coordinates: [[[0, 0], [200, 1], [1, 0]]] }),
    (e: ZoneValidationError) => /\$\.coordinates\[0\]\[1\]/.test(e.issues[0].path) && /out of range/.test(e.issues[0].message));
  assert.throws(() => zoneFromGeoJson('a/b', { type: 'Polygon', coordinates: [outer] }), (e: ZoneValidationError) => e.issues[0].path === 'name');
  assert.throws(() => zoneFromGeoJson('z', { type: 'FeatureCollection', features: [] }), (e: ZoneValidationError) => /at least one polygon/.test(e.message));
});

test('storedZone: a stored body reads back as validateZone made it, without the shape checks; a damaged body throws', async () => {
  const { storedZone } = await import('../src/zones/validateZone.js');
  const { ADVERSARIAL_RINGS } = await import('../bench/adversarialRings.js');
  for (const [name, make] of Object.entries(ADVERSARIAL_RINGS)) {
    const ring = make(500);
    // Closed, with a repeated vertex: both are normalised away the same way.
    const vertices = [...ring, ring[0]].flatMap(([lon, lat], i) => (i === 7 ? [v(lat, lon), v(lat, lon)] : [v(lat, lon)]));
    const body = { name, geometries: [{ name: 'g', vertices }, { vertices: [v(0, 0), v(0, 1), v(1, 1)] }] };
    assert.deepEqual(storedZone(body), validateZone(body));
  }
  assert.throws(() => storedZone({ name: 'x', geometries: [{ vertices: [v(0, 0), v(Number.NaN, 1), v(1, 1)] }] }), /not a position/);
  assert.throws(() => storedZone({ name: 'x' } as never), /not a zone/);
});

test('validateZoneAsync: same answer as validateZone, and other work runs between its slices on a 100,000-vertex zone', async () => {
  const { validateZoneAsync } = await import('../src/zones/validateZone.js');
  const { starRing, sawtoothRing } = await import('../bench/adversarialRings.js');
  const geometries = Array.from({ length: 10 }, (_, i) => ({ name: `g${i}`, vertices: (i % 2 ? starRing : sawtoothRing)(10_000).map(([lon, lat]) => v(lat, lon + i * 0.05)) }));
  const body = { name: 'big', geometries };
  let turns = 0, stop = false;
  const tick = () => { turns++; if (!stop) setImmediate(tick); };
  setImmediate(tick);
  const zone = await validateZoneAsync(body);
  stop = true;
  assert.deepEqual(zone, validateZone(body));
  // 200,000 sweep events in slices of 4,096: dozens of turns for other requests.
  assert.ok(turns >= 40, `only ${turns} event-loop turns while validating`);
  // Errors come out the same way.
  const crossing = { name: 'x', geometries: [{ vertices: [v(0, 0), v(1, 1), v(1, 0), v(0, 1)] }] };
  await assert.rejects(validateZoneAsync(crossing), (e: ZoneValidationError) => /self-intersecting: segment 0/.test(e.issues[0].message));
});

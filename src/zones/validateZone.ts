import { DetourError, ErrorCode } from '../errors.js';
import type { Ring } from '../geo/PreparedPolygon.js';
import { allOnOneLine, findSelfIntersection, selfIntersectionSteps } from '../geo/selfIntersection.js';
import { VEHICLE_TYPES } from '../vehicleTypes.js';
import { checkSchedule } from './schedule.js';
import { MAX_SOFT_COST_PER_KM, ZONE_LIMITS, ZONE_VEHICLE_MINIMUMS, zoneRules, type Zone, type ZoneAvoidance, type ZoneInput, type ZonePolygon, type ZoneRules, type ZoneVehicles } from './Zone.js';

/** One problem with a zone: where (a JSON path such as `geometries[0].vertices[3].latitude`) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Thrown with every issue found, so a client can fix them all at once. */
export { findSelfIntersection };

export class ZoneValidationError extends DetourError {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super(ErrorCode.INVALID_ZONE, `invalid restriction zone: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
    this.issues = issues;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}` : typeof v);

/** `U+XXXX` of the code point at `index` of `text`. */
const codePointLabel = (text: string, index: number) => `U+${text.codePointAt(index)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `text` cannot be stored as text by every store, or null: PostgreSQL refuses NUL (U+0000) in
 * text, and a lone surrogate has no UTF-8 form (SQLite would store U+FFFD, so it could never be
 * found again). Client-supplied strings that reach a store (zone names, client ids) pass this first.
 */
export function unstorableTextProblem(text: string): string | null {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) return `must not contain NUL (U+0000), found at character ${nul}`;
  // With the u flag a paired surrogate is one code point, so only lone ones match \p{Cs}.
  const at = text.search(/\p{Cs}/u);
  if (at >= 0) {
    return `must not contain a lone surrogate (${codePointLabel(text, at)} at character ${at} is not part of a pair)`;
  }
  return null;
}

// Invisible format characters (zero-width space/joiner, BOM, bidi controls, soft hyphen...): two
// names differing only by them look the same.
const FORMAT = /\p{Cf}/u;

/**
 * Checks a zone name; returns the issue message or null. Names are compared after NFC
 * normalisation (the service normalises them), so this is meant for the normalised name.
 */
export function zoneNameProblem(name: unknown): string | null {
  if (name === undefined) return 'is required';
  if (typeof name !== 'string') return `must be a string, got ${describe(name)}`;
  const unstorable = unstorableTextProblem(name);
  if (unstorable) return unstorable;
  if (name.trim().length === 0) return 'must not be empty or only spaces';
  if ([...name].length > ZONE_LIMITS.nameMaxLength) return `must be at most ${ZONE_LIMITS.nameMaxLength} characters, got ${[...name].length}`;
  const control = name.search(CONTROL);
  if (control >= 0) return `must not contain control characters (${codePointLabel(name, control)} at character ${control})`;
  const format = name.search(FORMAT);
  if (format >= 0) return `must not contain invisible format characters (Unicode Cf: ${codePointLabel(name, format)} at character ${format})`;
  if (name.includes('/')) return 'must not contain "/"';
  // URLs resolve "." and ".." path segments away, so such a name could never be read back by name.
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  return null;
}

function checkCoordinate(v: unknown, path: string, min: number, max: number, issues: ValidationIssue[]): number | null {
  if (v === undefined) {
    issues.push({ path, message: 'is required' });
    return null;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    issues.push({ path, message: `must be a finite number, got ${describe(v)}` });
    return null;
  }
  if (v < min || v > max) {
    issues.push({ path, message: `must be between ${min} and ${max}, got ${v}` });
    return null;
  }
  return v;
}

/**
 * Validates a zone in the API's shape and returns it as a Zone. Throws ZoneValidationError listing
 * every issue. Rings may be open or closed; repeated consecutive vertices are dropped. Rings that
 * cross the antimeridian are rejected (split the polygon there into two geometries).
 * O(n log n) in the zone's vertices whatever its shape.
 */
export function validateZone(input: unknown): Zone {
  return finish(zoneSteps(input));
}

/**
 * validateZone that lets the event loop run every few milliseconds of work, so a large zone
 * (up to 100,000 vertices, some hundreds of milliseconds) never holds up other requests.
 */
export async function validateZoneAsync(input: unknown): Promise<Zone> {
  const steps = zoneSteps(input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Runs a generator of validation work to its end on this thread. */
function finish<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function* zoneSteps(input: unknown): Generator<void, Zone, void> {
  const issues: ValidationIssue[] = [];
  if (!isObject(input)) throw new ZoneValidationError([{ path: '$', message: `must be a JSON object, got ${describe(input)}` }]);
  const nameProblem = zoneNameProblem(input.name);
  if (nameProblem) issues.push({ path: 'name', message: nameProblem });
  const polygons: ZonePolygon[] = [];
  const geometries = input.geometries;
  if (geometries === undefined) {
    issues.push({ path: 'geometries', message: 'is required' });
  } else if (!Array.isArray(geometries)) {
    issues.push({ path: 'geometries', message: `must be an array, got ${describe(geometries)}` });
  } else if (geometries.length === 0) {
    issues.push({ path: 'geometries', message: 'must have at least one geometry' });
  } else if (geometries.length > ZONE_LIMITS.geometriesMax) {
    issues.push({ path: 'geometries', message: `must have at most ${ZONE_LIMITS.geometriesMax} geometries, got ${geometries.length}` });
  } else if (totalVertices(geometries) > ZONE_LIMITS.zoneVerticesMax) {
    issues.push({ path: 'geometries', message: `must have at most ${ZONE_LIMITS.zoneVerticesMax} vertices in all, got ${totalVertices(geometries)}` });
  } else {
    const seenNames = new Map<string, number>();
    for (let gi = 0; gi < geometries.length; gi++) {
      const g: unknown = geometries[gi];
      const at = `geometries[${gi}]`;
      if (!isObject(g)) {
        issues.push({ path: at, message: `must be an object with vertices, got ${describe(g)}` });
        continue;
      }
      let geometryName = '';
      if (g.name !== undefined && g.name !== null) {
        if (typeof g.name !== 'string') issues.push({ path: `${at}.name`, message: `must be a string, got ${describe(g.name)}` });
        else if ([...g.name].length > ZONE_LIMITS.nameMaxLength) issues.push({ path: `${at}.name`, message: `must be at most ${ZONE_LIMITS.nameMaxLength} characters` });
        else if (CONTROL.test(g.name)) issues.push({ path: `${at}.name`, message: 'must not contain control characters' });
        else {
          geometryName = g.name;
          if (geometryName !== '') {
            const first = seenNames.get(geometryName);
            if (first !== undefined) issues.push({ path: `${at}.name`, message: `duplicates the name of geometries[${first}] (${JSON.stringify(geometryName)}); names must be unique within a zone` });
            else seenNames.set(geometryName, gi);
          }
        }
      }
      const ring = yield* checkVertices(g.vertices, `${at}.vertices`, issues);
      if (ring) polygons.push({ name: geometryName, rings: [ring] });
    }
  }
  const rules = checkZoneRules(input, issues);
  if (issues.length > 0) throw new ZoneValidationError(issues);
  return { name: input.name as string, polygons, ...rules };
}

/** A zone's rules (`vehicles`, `avoidance`, `schedule`; absent or null: none), each checked; issues name their members. */
export function checkZoneRules(input: Record<string, unknown>, issues: ValidationIssue[]): ZoneRules {
  const vehicles = input.vehicles == null ? undefined : checkVehicles(input.vehicles, issues);
  const avoidance = input.avoidance == null ? undefined : checkAvoidance(input.avoidance, issues);
  const schedule = input.schedule == null ? undefined : checkSchedule(input.schedule, issues);
  return zoneRules({ vehicles, avoidance, schedule });
}

/** A zone's `avoidance` rule: HARD, or SOFT with a cost per km of its roads; undefined when it has a problem. */
export function checkAvoidance(input: unknown, issues: ValidationIssue[]): ZoneAvoidance | undefined {
  if (!isObject(input)) {
    issues.push({ path: 'avoidance', message: `must be an object {mode: HARD | SOFT, costPerKm}, got ${describe(input)}` });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(input)) if (key !== 'mode' && key !== 'costPerKm') issues.push({ path: `avoidance.${key}`, message: 'is not a known member (mode, costPerKm)' });
  const { mode, costPerKm } = input;
  if (mode !== 'HARD' && mode !== 'SOFT') issues.push({ path: 'avoidance.mode', message: `must be HARD or SOFT, got ${describe(mode)}` });
  if (mode === 'SOFT' && (typeof costPerKm !== 'number' || !(costPerKm > 0 && costPerKm <= MAX_SOFT_COST_PER_KM))) {
    issues.push({ path: 'avoidance.costPerKm', message: `must be a number above 0 and at most ${MAX_SOFT_COST_PER_KM} (seconds per km for THE_FASTEST, metres per km for THE_SHORTEST), got ${describe(costPerKm)}` });
  }
  if (mode === 'HARD' && costPerKm !== undefined && costPerKm !== null) issues.push({ path: 'avoidance.costPerKm', message: 'is only for a SOFT zone' });
  if (issues.length > before) return undefined;
  return mode === 'SOFT' ? { mode, costPerKm: costPerKm as number } : { mode: 'HARD' };
}

/** A zone's `vehicles` rule, checked member by member (issues name each); undefined when it has a problem. */
export function checkVehicles(input: unknown, issues: ValidationIssue[]): ZoneVehicles | undefined {
  const before = issues.length;
  if (!isObject(input)) {
    issues.push({ path: 'vehicles', message: `must be an object {types, minWeight, minLength, minHeight, minWidth, minAxles}, got ${describe(input)}` });
    return undefined;
  }
  const out: ZoneVehicles = {};
  for (const [key, value] of Object.entries(input)) {
    const path = `vehicles.${key}`;
    if (value === null) continue;
    if (key === 'types') {
      if (!Array.isArray(value) || value.length === 0) {
        issues.push({ path, message: `must be a non-empty array of Maplink vehicle types, got ${describe(value)}` });
        continue;
      }
      value.forEach((t, i) => {
        if (!(VEHICLE_TYPES as readonly unknown[]).includes(t)) issues.push({ path: `${path}[${i}]`, message: `must be one of ${VEHICLE_TYPES.join(', ')}, got ${describe(t)}` });
      });
      out.types = [...new Set(value as string[])];
    } else if (Object.hasOwn(ZONE_VEHICLE_MINIMUMS, key)) {
      const most = ZONE_VEHICLE_MINIMUMS[key as keyof typeof ZONE_VEHICLE_MINIMUMS];
      if (typeof value !== 'number' || !(value >= 0 && value <= most)) {
        issues.push({ path, message: `must be a number from 0 to ${most} (${key === 'minWeight' ? 'tonnes' : key === 'minAxles' ? 'axles' : 'metres'}), got ${describe(value)}` });
      } else {
        out[key as keyof typeof ZONE_VEHICLE_MINIMUMS] = value;
      }
    } else {
      issues.push({ path, message: `is not a known member (types, ${Object.keys(ZONE_VEHICLE_MINIMUMS).join(', ')})` });
    }
  }
  if (issues.length === before && Object.keys(out).length === 0) issues.push({ path: 'vehicles', message: 'must name types or a minimum (or be left out: the zone applies to every vehicle)' });
  return issues.length === before ? out : undefined;
}

/** How many distinct positions the ring has, counting no further than 3. */
function distinctUpTo3(ring: Ring): number {
  if (ring.length === 0) return 0;
  const [ax, ay] = ring[0];
  let second: readonly number[] | undefined;
  for (const p of ring) {
    if (p[0] === ax && p[1] === ay) continue;
    if (!second) second = p;
    else if (p[0] !== second[0] || p[1] !== second[1]) return 3;
  }
  return second ? 2 : 1;
}

function totalVertices(geometries: unknown[]): number {
  let n = 0;
  for (const g of geometries) if (isObject(g) && Array.isArray(g.vertices)) n += g.vertices.length;
  return n;
}

/** Validates one ring of API vertices; returns it as open [lon, lat] positions, or null. */
function* checkVertices(vertices: unknown, at: string, issues: ValidationIssue[]): Generator<void, Ring | null, void> {
  if (vertices === undefined || vertices === null) {
    issues.push({ path: at, message: 'is required' });
    return null;
  }
  if (!Array.isArray(vertices)) {
    issues.push({ path: at, message: `must be an array of {latitude, longitude}, got ${describe(vertices)}` });
    return null;
  }
  if (vertices.length > ZONE_LIMITS.verticesMax + 1) {
    issues.push({ path: at, message: `must have at most ${ZONE_LIMITS.verticesMax} vertices, got ${vertices.length}` });
    return null;
  }
  const before = issues.length;
  const ring: Array<[number, number]> = [];
  vertices.forEach((v, vi) => {
    const path = `${at}[${vi}]`;
    if (!isObject(v)) {
      issues.push({ path, message: `must be an object {latitude, longitude}, got ${describe(v)}` });
      return;
    }
    const lat = checkCoordinate(v.latitude, `${path}.latitude`, -90, 90, issues);
    const lon = checkCoordinate(v.longitude, `${path}.longitude`, -180, 180, issues);
    if (lat !== null && lon !== null) ring.push([lon, lat]);
  });
  if (issues.length > before) return null;
  return yield* checkRingSteps(ring, at, issues);
}

/**
 * Ring-level rules shared by the API and GeoJSON inputs: drops a closing vertex and repeats,
 * needs 3 distinct vertices and some area, rejects antimeridian crossings and self-intersections.
 */
export function checkRing(positions: ReadonlyArray<readonly number[]>, at: string, issues: ValidationIssue[]): Ring | null {
  return finish(checkRingSteps(positions, at, issues));
}

function* checkRingSteps(positions: ReadonlyArray<readonly number[]>, at: string, issues: ValidationIssue[]): Generator<void, Ring | null, void> {
  const ring: Array<[number, number]> = [];
  for (const p of positions) {
    const last = ring[ring.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) ring.push([p[0], p[1]]);
  }
  if (ring.length > 1 && ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]) ring.pop();
  const distinct = distinctUpTo3(ring);
  if (distinct < 3) {
    issues.push({ path: at, message: `needs at least 3 distinct vertices, got ${distinct}` });
    return null;
  }
  for (let i = 0; i < ring.length; i++) {
    const j = (i + 1) % ring.length;
    if (Math.abs(ring[j][0] - ring[i][0]) > 180) {
      issues.push({
        path: at,
        message: `crosses the antimeridian between vertices ${i} and ${j}; split the polygon at longitude 180 into two geometries`,
      });
      return null;
    }
  }
  if (allOnOneLine(ring)) {
    issues.push({ path: at, message: 'has no area (all vertices lie on one line)' });
    return null;
  }
  const crossing = yield* selfIntersectionSteps(ring);
  if (crossing) {
    const [a, b] = crossing;
    const n = ring.length;
    issues.push({
      path: at,
      message: `self-intersecting: segment ${a} (vertex ${a} to ${(a + 1) % n}) crosses segment ${b} (vertex ${b} to ${(b + 1) % n})`,
    });
    return null;
  }
  let area2 = 0;
  for (let i = 0; i < ring.length; i++) {
    const j = (i + 1) % ring.length;
    area2 += ring[i][0] * ring[j][1] - ring[j][0] * ring[i][1];
  }
  if (area2 === 0) {
    issues.push({ path: at, message: 'has no area (all vertices lie on one line)' });
    return null;
  }
  return ring;
}

/**
 * The Zone of a body that validateZone accepted when it was stored: the same ring normalisation
 * (closing and repeated vertices dropped) without the shape checks, so reading back many or
 * large stored zones costs O(vertices). Throws on a body that is not a zone at all (a damaged
 * row), which the zone cache reports as CALCULATION_ERROR.
 */
export function storedZone(body: ZoneInput): Zone {
  if (!isObject(body) || typeof body.name !== 'string' || !Array.isArray(body.geometries)) throw new Error('the stored zone body is not a zone');
  const polygons = body.geometries.map((g, gi): ZonePolygon => {
    if (!isObject(g) || !Array.isArray(g.vertices)) throw new Error(`stored geometries[${gi}] has no vertices`);
    const ring: Array<[number, number]> = [];
    for (const v of g.vertices) {
      const lon = v?.longitude, lat = v?.latitude;
      if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat)) {
        throw new Error(`stored geometries[${gi}] has a vertex that is not a position`);
      }
      const last = ring[ring.length - 1];
      if (!last || last[0] !== lon || last[1] !== lat) ring.push([lon, lat]);
    }
    if (ring.length > 1 && ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]) ring.pop();
    if (ring.length < 3) throw new Error(`stored geometries[${gi}] has fewer than 3 vertices`);
    return { name: typeof g.name === 'string' ? g.name : '', rings: [ring] };
  });
  const issues: ValidationIssue[] = [];
  const rules = checkZoneRules(body as unknown as Record<string, unknown>, issues);
  if (issues.length > 0) throw new Error(`the stored rules are not valid: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`);
  return { name: body.name, polygons, ...rules };
}

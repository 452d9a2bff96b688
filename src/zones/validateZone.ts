import { DetourError, ErrorCode } from '../errors.js';
import type { Ring } from '../geo/PreparedPolygon.js';
import { ZONE_LIMITS, type Zone, type ZonePolygon } from './Zone.js';

/** One problem with a zone: where (a JSON path such as `geometries[0].vertices[3].latitude`) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Thrown with every issue found, so a client can fix them all at once. */
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
 */
export function validateZone(input: unknown): Zone {
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
    geometries.forEach((g, gi) => {
      const at = `geometries[${gi}]`;
      if (!isObject(g)) {
        issues.push({ path: at, message: `must be an object with vertices, got ${describe(g)}` });
        return;
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
      const ring = checkVertices(g.vertices, `${at}.vertices`, issues);
      if (ring) polygons.push({ name: geometryName, rings: [ring] });
    });
  }
  if (issues.length > 0) throw new ZoneValidationError(issues);
  return { name: input.name as string, polygons };
}

function totalVertices(geometries: unknown[]): number {
  let n = 0;
  for (const g of geometries) if (isObject(g) && Array.isArray(g.vertices)) n += g.vertices.length;
  return n;
}

/** Validates one ring of API vertices; returns it as open [lon, lat] positions, or null. */
function checkVertices(vertices: unknown, at: string, issues: ValidationIssue[]): Ring | null {
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
  return checkRing(ring, at, issues);
}

/**
 * Ring-level rules shared by the API and GeoJSON inputs: drops a closing vertex and repeats,
 * needs 3 distinct vertices and some area, rejects antimeridian crossings and self-intersections.
 */
export function checkRing(positions: ReadonlyArray<readonly number[]>, at: string, issues: ValidationIssue[]): Ring | null {
  const ring: Array<[number, number]> = [];
  for (const p of positions) {
    const last = ring[ring.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) ring.push([p[0], p[1]]);
  }
  if (ring.length > 1 && ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]) ring.pop();
  const distinct = new Set(ring.map((p) => `${p[0]},${p[1]}`)).size;
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
  const crossing = findSelfIntersection(ring);
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

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
}

function onSeg(px: number, py: number, ax: number, ay: number, bx: number, by: number): boolean {
  return px >= Math.min(ax, bx) && px <= Math.max(ax, bx) && py >= Math.min(ay, by) && py <= Math.max(ay, by);
}

function segmentsMeet(r: Ring, i: number, j: number): boolean {
  const n = r.length;
  const [ax, ay] = r[i], [bx, by] = r[(i + 1) % n], [cx, cy] = r[j], [dx, dy] = r[(j + 1) % n];
  const o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && onSeg(cx, cy, ax, ay, bx, by)) || (o2 === 0 && onSeg(dx, dy, ax, ay, bx, by)) ||
    (o3 === 0 && onSeg(ax, ay, cx, cy, dx, dy)) || (o4 === 0 && onSeg(bx, by, cx, cy, dx, dy));
}

/**
 * The first pair of non-adjacent ring segments that meet (cross or touch), or null. Segments are
 * bucketed into horizontal rows so only segments sharing a row are compared.
 */
export function findSelfIntersection(ring: Ring): [number, number] | null {
  const n = ring.length;
  let minY = Infinity, maxY = -Infinity;
  for (const p of ring) { minY = Math.min(minY, p[1]); maxY = Math.max(maxY, p[1]); }
  const rows = Math.max(1, Math.min(4096, n >> 2));
  const inv = maxY > minY ? rows / (maxY - minY) : 0;
  const rowOf = (y: number) => Math.min(rows - 1, Math.floor((y - minY) * inv));
  const buckets: number[][] = Array.from({ length: rows }, () => []);
  for (let i = 0; i < n; i++) {
    const y0 = ring[i][1], y1 = ring[(i + 1) % n][1];
    for (let r = rowOf(Math.min(y0, y1)); r <= rowOf(Math.max(y0, y1)); r++) buckets[r].push(i);
  }
  let best: [number, number] | null = null;
  for (const bucket of buckets) {
    for (let x = 0; x < bucket.length; x++) {
      for (let y = x + 1; y < bucket.length; y++) {
        const i = Math.min(bucket[x], bucket[y]), j = Math.max(bucket[x], bucket[y]);
        if (j === i + 1 || (i === 0 && j === n - 1)) continue; // neighbours share a vertex
        if (best && (i > best[0] || (i === best[0] && j >= best[1]))) continue;
        if (segmentsMeet(ring, i, j)) best = [i, j];
      }
    }
  }
  return best;
}

import { DetourError, ErrorCode } from '../errors.js';

/** A position in decimal degrees (WGS 84). */
export interface LatLon {
  latitude: number;
  longitude: number;
}

/**
 * Graphs store coordinates as integers in units of 1e-7 degree (OSM's own precision, about 1 cm):
 * half the bytes of float64 degrees. fromE7 divides (not multiplies by 1e-7), so a stored value
 * reads back as the double nearest its decimal (57.70887, not 57.708870000000005).
 */
export function toE7(degrees: number): number {
  return Math.round(degrees * 1e7);
}

export function fromE7(e7: number): number {
  return e7 / 1e7;
}

/** LatLon objects from interleaved latitude, longitude pairs (a route leg's `coordinates`). */
export function latLonPoints(coordinates: Float64Array): LatLon[] {
  const n = coordinates.length >> 1;
  const out = new Array<LatLon>(n);
  for (let i = 0; i < n; i++) out[i] = { latitude: coordinates[2 * i], longitude: coordinates[2 * i + 1] };
  return out;
}

/**
 * Checks that a point is a finite latitude in [-90, 90] and longitude in [-180, 180].
 * `label` names the point in the error (e.g. "points[2]" or "--from").
 */
export function assertValidLatLon(point: LatLon, label: string): void {
  const { latitude, longitude } = point ?? ({} as LatLon);
  if (typeof latitude !== 'number' || !Number.isFinite(latitude) || latitude < -90 || latitude > 90) {
    throw new DetourError(
      ErrorCode.INVALID_COORDINATE,
      `${label}: latitude must be a finite number in [-90, 90], got ${shown(latitude)}`,
      { point: label },
    );
  }
  if (typeof longitude !== 'number' || !Number.isFinite(longitude) || longitude < -180 || longitude > 180) {
    throw new DetourError(
      ErrorCode.INVALID_COORDINATE,
      `${label}: longitude must be a finite number in [-180, 180], got ${shown(longitude)}`,
      { point: label },
    );
  }
}

/** Parses "lat,lon" (the CLI's form) into a LatLon; `label` names the argument in errors. */
export function parseLatLon(text: string, label: string): LatLon {
  const parts = String(text).split(',').map((s) => s.trim());
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    throw new DetourError(ErrorCode.INVALID_COORDINATE, `${label}: expected "latitude,longitude", got "${text}"`, {
      point: label,
    });
  }
  const point = { latitude: Number(parts[0]), longitude: Number(parts[1]) };
  assertValidLatLon(point, label);
  return point;
}

/** A value as an error shows it: numbers as numbers (NaN and Infinity too, which JSON shows as null), the rest as JSON. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value ?? null) ?? String(value);
}

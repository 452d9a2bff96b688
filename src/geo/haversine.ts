/** Mean Earth radius in metres (IUGG), the one radius every distance in detour uses. */
export const EARTH_RADIUS_M = 6371008.8;

const RAD = Math.PI / 180;

/** Great-circle distance in metres between two points given in decimal degrees. */
export function haversineMetres(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const s1 = Math.sin(dLat / 2);
  const s2 = Math.sin(dLon / 2);
  const a = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** cos(latitude) for a latitude in degrees. */
export function cosLatitude(lat: number): number {
  return Math.cos(lat * RAD);
}

/** Metres per degree of latitude (constant on the sphere). */
export const METRES_PER_DEGREE = EARTH_RADIUS_M * RAD;

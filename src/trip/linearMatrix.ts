import { haversineMetres } from '../geo/haversine.js';
import type { LatLon } from '../geo/coordinates.js';
import type { MatrixResult } from '../routing/matrix.js';

/**
 * The speed that turns a LINEAR matrix's straight-line distances into durations (km/h). Maplink
 * documents LINEAR as the straight-line distance, ignoring roads, and names no speed for its
 * durations: this is detour's choice, stated in the README.
 */
export const LINEAR_SPEED_KMH = 60;

/**
 * Maplink's `tripProfile: LINEAR` matrix: great-circle distances (m) between the points as sent,
 * ignoring roads, and durations at LINEAR_SPEED_KMH. Costs origins x destinations haversines.
 */
export function linearMatrix(origins: readonly LatLon[], destinations: readonly LatLon[]): MatrixResult {
  const D = destinations.length;
  const distance = new Float64Array(origins.length * D);
  const duration = new Float64Array(origins.length * D);
  const secondsPerMetre = 3.6 / LINEAR_SPEED_KMH;
  for (let o = 0; o < origins.length; o++) {
    for (let d = 0; d < D; d++) {
      const metres = haversineMetres(origins[o].latitude, origins[o].longitude, destinations[d].latitude, destinations[d].longitude);
      distance[o * D + d] = metres;
      duration[o * D + d] = metres * secondsPerMetre;
    }
  }
  return { originCount: origins.length, destinationCount: D, distance, duration, failures: new Map() };
}

import type { MatrixResult } from '../routing/matrix.js';
import type { CalculationMode } from '../routing/routeRequest.js';
import type { AvoidanceType } from '../routing/avoidance.js';
import { appliedVehicle, type Vehicle, type VehicleSpecification } from '../routing/vehicle.js';

/** An origin or destination as the Matrix API takes it. */
export interface MatrixSite {
  siteId: string;
  latitude: number;
  longitude: number;
}

/** The body of POST /matrix/v1/problems (and of the synchronous /matrix/v1/calculations). */
export interface MatrixProblem {
  calculationMode?: CalculationMode;
  origins: MatrixSite[];
  destinations: MatrixSite[];
  /** Names of the caller's stored restriction zones to avoid. */
  restrictionZones?: string[] | null;
  /** Road types no element may drive (FAIL only). */
  avoidanceTypes?: Array<AvoidanceType | 'FRONTIERS'> | null;
  avoidanceBehavior?: 'FAIL';
  /** Maplink's profile: LINEAR gives straight-line distances; any other routes on the graph's car profile. */
  tripProfile?: string;
  /** Departure (epoch milliseconds or ISO-8601; default now): every element leaves then; zones with a schedule apply at the times driven. */
  startDate?: number | string;
  /** The vehicle every element must be legal for (as the Trip API's; detour extension). */
  vehicleType?: string | null;
  vehicleSpecification?: VehicleSpecification | null;
  /** Speeds per Maplink road type (as the Trip API's; detour extension). */
  speedPreferences?: unknown[] | null;
  callback?: { url: string; user?: string; password?: string };
}

/** One element: metres, seconds and km/h of the optimal path, or nulls and why there is none. */
export interface MatrixSolutionElement {
  origin: string;
  destination: string;
  distance: number | null;
  nominalDuration: number | null;
  averageSpeed: number | null;
  error?: { code: string; message: string };
}

export interface MatrixSolution {
  id: string;
  clientId: string;
  calculationMode: CalculationMode;
  elements: MatrixSolutionElement[];
  /** The vehicle every element is legal for, when the problem named one. */
  vehicle?: Record<string, unknown>;
  /** Epoch milliseconds, as Maplink's matrix returns it. */
  createdAt: number;
}

/**
 * A matrix as Maplink's Matrix API writes it: one element per origin and destination, by siteId,
 * origin-major; distances rounded to the metre, durations to the second, speeds to 0.1 km/h.
 */
export function matrixSolution(result: MatrixResult, problem: MatrixProblem, id: string, clientId: string, createdAt: number, vehicle?: Vehicle): MatrixSolution {
  const elements: MatrixSolutionElement[] = [];
  const D = result.destinationCount;
  for (let o = 0; o < result.originCount; o++) {
    for (let d = 0; d < D; d++) {
      const i = o * D + d;
      const origin = problem.origins[o].siteId, destination = problem.destinations[d].siteId;
      const failure = result.failures.get(i);
      if (failure) {
        elements.push({ origin, destination, distance: null, nominalDuration: null, averageSpeed: null, error: { code: failure.code, message: failure.message } });
        continue;
      }
      const metres = result.distance[i], seconds = result.duration[i];
      elements.push({
        origin,
        destination,
        distance: Math.round(metres),
        nominalDuration: Math.round(seconds),
        averageSpeed: seconds > 0 ? Math.round((metres / seconds) * 36) / 10 : 0,
      });
    }
  }
  return { id, clientId, calculationMode: problem.calculationMode ?? 'THE_FASTEST', elements, ...(vehicle && { vehicle: appliedVehicle(vehicle) }), createdAt };
}

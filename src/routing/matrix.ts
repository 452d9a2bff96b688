import { DetourError, ErrorCode } from '../errors.js';
import type { LatLon } from '../geo/coordinates.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { CalculationMode, Router } from './Router.js';

/** What a distance matrix is asked: every origin to every destination. */
export interface MatrixRequest {
  origins: LatLon[];
  destinations: LatLon[];
  /** Default THE_FASTEST. */
  calculationMode?: CalculationMode;
  /** Restriction zones to avoid, as in Router.route (stops inside zones are served the same way). */
  zones?: CalculatedZone[];
  /** Per road, 1 when the road must never be used. */
  blockedRoads?: Uint8Array;
  /** Called now and then with the elements done so far and the total (progress bars). */
  onProgress?: (done: number, total: number) => void;
}

/** Why one element of a matrix has no value. */
export interface MatrixFailure {
  /** A DetourError code: POINT_NOT_ROUTABLE (its origin or destination) or ROUTE_NOT_FOUND. */
  code: string;
  message: string;
}

/** One element: metres and seconds, or nulls and the reason. */
export type MatrixElement =
  | { distance: number; duration: number; failure?: undefined }
  | { distance: null; duration: null; failure: MatrixFailure };

/**
 * Costs between every origin and every destination, row-major (origin * destinations.length +
 * destination). NaN in `distance` and `duration` marks an element without a route; `failures`
 * says why, by element index.
 */
export interface MatrixResult {
  originCount: number;
  destinationCount: number;
  /** Metres. */
  distance: Float64Array;
  /** Seconds. */
  duration: Float64Array;
  failures: Map<number, MatrixFailure>;
}

/** The element for an origin and a destination of a MatrixResult. */
export function matrixElement(result: MatrixResult, origin: number, destination: number): MatrixElement {
  const i = origin * result.destinationCount + destination;
  const failure = result.failures.get(i);
  if (failure) return { distance: null, duration: null, failure };
  return { distance: result.distance[i], duration: result.duration[i] };
}

/**
 * The reference matrix: one Router.route per element. Exact, and slow (|origins| x
 * |destinations| point-to-point queries); the oracle and the peer the fast matrix is measured
 * against. Bad input (coordinates, mode, zones not ready) throws as Router.route does; a point
 * far from every road or an unconnected pair fails only its elements.
 */
export function matrixByRoutes(router: Router, request: MatrixRequest): MatrixResult {
  const { origins, destinations } = request;
  const total = origins.length * destinations.length;
  const result: MatrixResult = {
    originCount: origins.length,
    destinationCount: destinations.length,
    distance: new Float64Array(total).fill(NaN),
    duration: new Float64Array(total).fill(NaN),
    failures: new Map(),
  };
  for (let o = 0; o < origins.length; o++) {
    for (let d = 0; d < destinations.length; d++) {
      const i = o * destinations.length + d;
      try {
        const route = router.route({
          points: [origins[o], destinations[d]],
          calculationMode: request.calculationMode,
          zones: request.zones,
          blockedRoads: request.blockedRoads,
          pointLabels: [`origins[${o}]`, `destinations[${d}]`],
        });
        result.distance[i] = route.distance;
        result.duration[i] = route.duration;
      } catch (err) {
        if (!(err instanceof DetourError) || (err.code !== ErrorCode.ROUTE_NOT_FOUND && err.code !== ErrorCode.POINT_NOT_ROUTABLE)) throw err;
        result.failures.set(i, { code: err.code, message: err.message });
      }
      request.onProgress?.(i + 1, total);
    }
  }
  return result;
}

/**
 * The one error type detour throws for bad input or impossible requests.
 * `code` is stable (tests, HTTP mapping and scripts match on it); `message` says what to fix.
 */
export class DetourError extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'DetourError';
    this.code = code;
    if (details) this.details = details;
  }
}

/** Error codes used across the library; kept in one place so they stay stable. */
export const ErrorCode = {
  FILE_NOT_FOUND: 'FILE_NOT_FOUND',
  FILE_NOT_WRITABLE: 'FILE_NOT_WRITABLE',
  UNKNOWN_FORMAT: 'UNKNOWN_FORMAT',
  INVALID_INPUT: 'INVALID_INPUT',
  GRAPH_CORRUPT: 'GRAPH_CORRUPT',
  GRAPH_VERSION: 'GRAPH_VERSION',
  GRAPH_EMPTY: 'GRAPH_EMPTY',
  INVALID_COORDINATE: 'INVALID_COORDINATE',
  POINT_NOT_ROUTABLE: 'POINT_NOT_ROUTABLE',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  TOO_FEW_POINTS: 'TOO_FEW_POINTS',
  INVALID_MODE: 'INVALID_MODE',
  WASM_UNAVAILABLE: 'WASM_UNAVAILABLE',
  INVALID_ZONE: 'INVALID_ZONE',
  ZONE_NOT_FOUND: 'ZONE_NOT_FOUND',
  ZONE_NOT_READY: 'ZONE_NOT_READY',
  ZONE_NOT_USABLE: 'ZONE_NOT_USABLE',
  INVALID_AVOIDANCE: 'INVALID_AVOIDANCE',
  AVOIDANCE_TYPE_UNSUPPORTED: 'AVOIDANCE_TYPE_UNSUPPORTED',
  AVOIDANCE_IMPOSSIBLE: 'AVOIDANCE_IMPOSSIBLE',
  /** A vehicleType / vehicleSpecification member that is not a known type or a number in range. */
  INVALID_VEHICLE: 'INVALID_VEHICLE',
  /** No route is legal for the vehicle: a stop lies on a road closed to it, or every way crosses one (the details name the limit). */
  VEHICLE_NOT_ALLOWED: 'VEHICLE_NOT_ALLOWED',
  /** A request member asks for a feature detour does not implement yet (the service's Maplink vocabulary). */
  UNSUPPORTED_FEATURE: 'UNSUPPORTED_FEATURE',
} as const;

/**
 * The library for browsers (package.json exports condition "browser", or `detour-routing/browser`):
 * everything that routes and calculates zones, with no node: import. A page loads a graph from
 * bytes (decodeGraph on a fetched ArrayBuffer) and installs the WASM kernels before calculating a
 * zone: GeometryKernels.install(await GeometryKernels.fromUrl(url of build/kernels.wasm)).
 * Not here: file import/export (importOsm, loadGraph, saveGraph), worker-thread calculators, the service.
 */
export { DetourError, ErrorCode } from './errors.js';
export { haversineMetres, EARTH_RADIUS_M } from './geo/haversine.js';
export { assertValidLatLon, fromE7, parseLatLon, toE7, type LatLon } from './geo/coordinates.js';
export { RoadGraph, type RoadGraphArrays, type GraphMeta, type Metric } from './graph/RoadGraph.js';
export { GraphBuilder } from './graph/GraphBuilder.js';
export {
  carRoadAttributes, carBarrierBlocks, ferryCarriesCars, parseMaxspeed, RoadFlag, UNPAVED_SURFACES, HIGHWAY_CLASSES, type OsmTags, type RoadAttributes,
} from './graph/carProfile.js';
export { importGeoJson } from './graph/importGeoJson.js';
export { GRAPH_FORMAT_VERSION } from './graph/graphCodec.js';
export { encodeGraph, decodeGraph } from './hierarchy/hierarchySections.js';
export { SnapIndex, DEFAULT_MAX_SNAP_DISTANCE_M, type Snap, type SnapOptions } from './graph/SnapIndex.js';
export {
  CALCULATION_MODES, metricOf, type CalculationMode, type Route, type RouteLeg, type RouteRequest, type ZoneEntered,
} from './routing/routeRequest.js';
export { Router, type RouterOptions } from './routing/Router.js';
export {
  matrixByRoutes, matrixElement, type MatrixRequest, type MatrixResult, type MatrixElement, type MatrixFailure,
} from './routing/matrix.js';
export {
  AVOIDANCE_TYPES, AVOIDANCE_BEHAVIORS, AVOIDANCE_FLAGS, RELAXED_EXTRA_PER_METRE, STRONG_COST_PER_METRE,
  type AvoidanceType, type AvoidanceBehavior, type AvoidedTypeDriven,
} from './routing/avoidance.js';
export { GeometryKernels, type BoundPolygon } from './geo/GeometryKernels.js';
export {
  zoneStatus, zoneToInput, ZONE_LIMITS,
  type Zone, type ZoneInput, type ZonePolygon, type ZoneStatus, type ZoneStatusName, type ZoneVertex,
} from './zones/Zone.js';
export { activeIntervals, type ZoneSchedule, type ScheduleWindow, type ScheduleException, type Weekday } from './zones/schedule.js';
export { SCHEDULE_HORIZON_SECONDS, type ZoneWait } from './routing/RoadSchedule.js';
export { validateZone, ZoneValidationError, type ValidationIssue } from './zones/validateZone.js';
export { zoneFromGeoJson } from './zones/zoneFromGeoJson.js';
export { calculateZone, type CalculatedZone } from './zones/calculateZone.js';
export { encodePoints, POINTS_MODES, type PointsMode, type EncodedPoints } from './geo/pointEncodings.js';

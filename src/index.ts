export { DetourError, ErrorCode } from './errors.js';
export { haversineMetres, EARTH_RADIUS_M } from './geo/haversine.js';
export { assertValidLatLon, fromE7, parseLatLon, toE7, type LatLon } from './geo/coordinates.js';
export { RoadGraph, ROAD_COST_UNIT, type RoadGraphArrays, type GraphIndexes, type GraphMeta, type Metric } from './graph/RoadGraph.js';
export { GraphBuilder } from './graph/GraphBuilder.js';
export {
  carRoadAttributes, carBarrierBlocks, ferryCarriesCars, parseMaxspeed, RoadFlag, UNPAVED_SURFACES, HIGHWAY_CLASSES, type OsmTags, type RoadAttributes,
} from './graph/carProfile.js';
export { importOsm, importOsmWithSummary, OSM_ATTRIBUTION, type ImportSummary, type OsmFormat, type OsmImportOptions } from './graph/importOsm.js';
export type { RoadLabel } from './graph/roadLabels.js';
export { importGeoJson } from './graph/importGeoJson.js';
export { toNgraph, fromNgraph, type FromNgraphOptions } from './graph/ngraphBridge.js';
export { GRAPH_FORMAT_VERSION } from './graph/graphFile.js';
export { saveGraph, loadGraph, openGraph } from './hierarchy/graphFiles.js';
export { encodeGraph, decodeGraph } from './hierarchy/hierarchySections.js';
export type { HierarchyGraph } from './hierarchy/ContractionHierarchy.js';
export { attachSearchIndexes } from './searchIndexes.js';
export { detectFormat, type InputFormat } from './graph/openGraph.js';
export { SnapIndex, DEFAULT_MAX_SNAP_DISTANCE_M, type Snap, type SnapOptions } from './graph/SnapIndex.js';
export { buildHierarchy, buildHierarchyInWorkers } from './hierarchy/buildHierarchy.js';
export type { PathSearch, PathQuery, PathResult, Penalty } from './routing/PathSearch.js';
export {
  CALCULATION_MODES, metricOf, type CalculationMode, type Route, type RouteLeg, type RouteRequest, type ZoneEntered,
} from './routing/routeRequest.js';
export { Router, type RouterOptions } from './routing/Router.js';
export { STEP_TYPES, TURN_THRESHOLD_DEGREES, type RouteStep, type StepType } from './routing/steps.js';
export { STEP_LANGUAGES, type StepLanguage } from './routing/stepTexts.js';
export {
  matrixByRoutes, matrixElement, MAX_MATRIX_ELEMENTS, type MatrixRequest, type MatrixResult, type MatrixElement, type MatrixFailure,
} from './routing/matrix.js';
export { DEFAULT_GRAPH_PATH } from './defaultCity.js';
export { GeometryKernels, type BoundPolygon } from './geo/GeometryKernels.js';
export {
  zoneStatus, zoneToInput, ZONE_LIMITS,
  type Zone, type ZoneInput, type ZonePolygon, type ZoneStatus, type ZoneStatusName, type ZoneVertex,
} from './zones/Zone.js';
export { activeIntervals, type ZoneSchedule, type ScheduleWindow, type ScheduleException, type Weekday } from './zones/schedule.js';
export { SCHEDULE_HORIZON_SECONDS, type ZoneWait } from './routing/RoadSchedule.js';
export { validateZone, ZoneValidationError, findSelfIntersection, type ValidationIssue } from './zones/validateZone.js';
export { zoneFromGeoJson } from './zones/zoneFromGeoJson.js';
export { calculateZone, type CalculatedZone } from './zones/calculateZone.js';
export { loadZoneFile } from './zones/loadZoneFile.js';
export {
  AVOIDANCE_TYPES, AVOIDANCE_BEHAVIORS, AVOIDANCE_FLAGS, RELAXED_EXTRA_PER_METRE, STRONG_COST_PER_METRE,
  type AvoidanceType, type AvoidanceBehavior, type AvoidedTypeDriven,
} from './routing/avoidance.js';
export { ZoneCalculator, type ZoneCalculatorOptions } from './zones/ZoneCalculator.js';
export { encodePoints, POINTS_MODES, type PointsMode, type EncodedPoints } from './geo/pointEncodings.js';
export { vehicleOf, vehicleRoads, limitReason, appliedVehicle, VEHICLE_TYPE_FIGURES, type Vehicle, type VehicleRoads, type VehicleSpecification } from './routing/vehicle.js';
export { parseLengthLimit, parseWeightLimit, readRoadLimits, type RoadLimits } from './graph/vehicleLimits.js';

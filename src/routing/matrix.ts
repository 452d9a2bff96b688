import { DetourError, ErrorCode } from '../errors.js';
import type { LatLon } from '../geo/coordinates.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import type { Snap } from '../graph/SnapIndex.js';
import { otherMetric, otherMetricArcCosts } from '../hierarchy/otherMetricArcCosts.js';
import { BucketManyToMany, type CostedEndpoint } from './BucketManyToMany.js';
import { directCost, partialCost, sourceEndpoints, targetEndpoints, type Endpoint } from './endpoints.js';
import { OneToManyPotentialSearch } from './OneToManyPotentialSearch.js';
import { CALCULATION_MODES, metricOf, type CalculationMode, type Router } from './Router.js';

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
  const result = emptyResult(request);
  const total = result.originCount * result.destinationCount;
  for (let i = 0; i < total; i++) {
    routeElement(router, request, result, i);
    request.onProgress?.(i + 1, total);
  }
  return result;
}

/**
 * The fast matrix (Router.matrix). Without blocked roads: bucket many-to-many on the contraction
 * hierarchy (|origins| + |destinations| small upward searches). With zones or blocked roads: per
 * origin one A* towards all destinations at once, its potential the hierarchy's unblocked cost to
 * the nearest destination, aimed once per matrix so every origin reuses the potentials computed
 * before it. Why not free buckets first and repair only the pairs whose path meets a zone: on
 * the default city with 10 zones most long pairs meet one, and the one-to-many search costs
 * little more than the repair would. Elements a route would serve specially (a stop on a zone's
 * road, a pair sharing a tiny component, a pair that must enter a zone) are routed one by one
 * with Router.route, so every element equals what Router.route answers for that pair. A graph
 * without a hierarchy gets the reference.
 */
export function computeMatrix(router: Router, request: MatrixRequest): MatrixResult {
  const graph = router.graph;
  if (!graph.hierarchy) return matrixByRoutes(router, request);
  const mode = request.calculationMode ?? 'THE_FASTEST';
  if (!CALCULATION_MODES.includes(mode)) {
    throw new DetourError(ErrorCode.INVALID_MODE, `calculationMode must be one of ${CALCULATION_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  }
  const metric = metricOf(mode);
  const result = emptyResult(request);
  const O = result.originCount, D = result.destinationCount, total = O * D;
  const zones = request.zones ?? [];
  const masks = router.masks(zones, request.blockedRoads);
  const separately: number[] = [];
  try {
    const origins = request.origins.map((p, i) => snapFor(router, p, `origins[${i}]`));
    const destinations = request.destinations.map((p, i) => snapFor(router, p, `destinations[${i}]`));
    const sources = origins.map((c) => (c.snap ? costed(graph, c.snap, sourceEndpoints(graph, c.snap, metric), metric, true) : []));
    const targets = destinations.map((c) => (c.snap ? costed(graph, c.snap, targetEndpoints(graph, c.snap, metric), metric, false) : []));
    const cost = new Float64Array(total), second = new Float64Array(total);
    const engines = matrixEngines(router);
    if (!masks.all) {
      engines.buckets.run(graph.hierarchy[metric], otherMetricArcCosts(graph, graph.hierarchy[metric]), sources, targets, cost, second);
      request.onProgress?.(total, total);
    } else {
      engines.oneToMany.aim(metric, targets);
      for (let o = 0; o < O; o++) {
        if (sources[o].length > 0) engines.oneToMany.run(sources[o], masks.all, cost, second, o * D);
        else cost.fill(Infinity, o * D, (o + 1) * D);
        request.onProgress?.((o + 1) * D, total);
      }
    }
    for (let o = 0; o < O; o++) {
      for (let d = 0; d < D; d++) {
        const i = o * D + d;
        const from = origins[o], to = destinations[d];
        if (!from.snap || !to.snap) {
          result.failures.set(i, (from.failure ?? to.failure)!);
          continue;
        }
        const stopInZone = masks.zone !== undefined && (masks.zone[from.snap.road] === 1 || masks.zone[to.snap.road] === 1);
        const sharedTiny = from.tiny >= 0 && from.tiny === to.tiny;
        if (stopInZone || sharedTiny) { separately.push(i); continue; }
        let c = cost[i], c2 = second[i];
        if (from.snap.road === to.snap.road && !masks.all?.[from.snap.road]) {
          const direct = directCost(graph, from.snap, to.snap, metric);
          if (direct.cost <= c) {
            c = direct.cost;
            c2 = partialCost(graph, from.snap.road, Math.abs(to.snap.offset - from.snap.offset), otherMetric(metric));
          }
        }
        if (c === Infinity) {
          // With zones, Router.route then drives the fewest metres inside them: route it.
          if (masks.zone) separately.push(i);
          else result.failures.set(i, noRoute(o, d));
          continue;
        }
        result.distance[i] = metric === 'distance' ? c : c2;
        result.duration[i] = metric === 'distance' ? c2 : c;
      }
    }
  } finally {
    router.releaseMasks(zones);
  }
  // After releasing: Router.route uses the same scratch masks.
  for (const i of separately) routeElement(router, request, result, i);
  return result;
}

/** Scratch searches per graph, made at a router's first matrix and reused by later ones. */
const enginesByRouter = new WeakMap<Router, { buckets: BucketManyToMany; oneToMany: OneToManyPotentialSearch }>();

function matrixEngines(router: Router): { buckets: BucketManyToMany; oneToMany: OneToManyPotentialSearch } {
  let engines = enginesByRouter.get(router);
  if (!engines) {
    engines = { buckets: new BucketManyToMany(router.graph), oneToMany: new OneToManyPotentialSearch(router.graph) };
    enginesByRouter.set(router, engines);
  }
  return engines;
}

interface PointSnap {
  snap?: Snap;
  failure?: MatrixFailure;
  /** The tiny component of the nearest road when the snap moved off it to a big one, else -1. */
  tiny: number;
}

/**
 * Snaps a matrix point as Router.route snaps a stop: the nearest road, or the nearest road of a
 * big component when the nearest lies in a tiny one. Which pairs share that tiny component (and
 * so would stay in it in a route) is left to the caller.
 */
function snapFor(router: Router, point: LatLon, label: string): PointSnap {
  try {
    const choice = router.snapIndex.snapChoice(point?.latitude, point?.longitude, { maxDistance: router.maxSnapDistance, label });
    if (!choice.big) return { snap: choice.nearest, tiny: router.snapIndex.inBigComponent(choice.nearest.road) ? -1 : choice.component };
    return { snap: choice.big, tiny: choice.component };
  } catch (err) {
    if (!(err instanceof DetourError) || err.code !== ErrorCode.POINT_NOT_ROUTABLE) throw err;
    return { failure: { code: err.code, message: err.message }, tiny: -1 };
  }
}

/** Endpoints with the other metric's cost of their partial road beside the searched one. */
function costed(graph: RoadGraph, snap: Snap, endpoints: Endpoint[], metric: Metric, leaving: boolean): CostedEndpoint[] {
  const other = otherMetric(metric);
  const length = graph.roadLength[snap.road];
  return endpoints.map((e) => {
    // A snap on a junction has cost 0; otherwise the part of the road between point and node.
    const metres = e.cost === 0 ? 0 : leaving === e.reversed ? snap.offset : length - snap.offset;
    return { node: e.node, cost: e.cost, second: partialCost(graph, snap.road, metres, other) };
  });
}

function noRoute(o: number, d: number): MatrixFailure {
  return {
    code: ErrorCode.ROUTE_NOT_FOUND,
    message: `no route for leg 0 (origins[${o}] to destinations[${d}]): no road connects them in the allowed directions`,
  };
}

function emptyResult(request: MatrixRequest): MatrixResult {
  const { origins, destinations } = request;
  if (!Array.isArray(origins) || !Array.isArray(destinations)) {
    throw new DetourError(ErrorCode.INVALID_INPUT, 'a matrix needs origins and destinations as arrays of {latitude, longitude}');
  }
  const total = origins.length * destinations.length;
  return {
    originCount: origins.length,
    destinationCount: destinations.length,
    distance: new Float64Array(total).fill(NaN),
    duration: new Float64Array(total).fill(NaN),
    failures: new Map(),
  };
}

/** Element i by one Router.route; unroutable points and unconnected pairs become failures. */
function routeElement(router: Router, request: MatrixRequest, result: MatrixResult, i: number): void {
  const o = Math.floor(i / result.destinationCount), d = i % result.destinationCount;
  try {
    const route = router.route({
      points: [request.origins[o], request.destinations[d]],
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
}

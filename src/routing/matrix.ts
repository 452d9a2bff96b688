import { DetourError, ErrorCode } from '../errors.js';
import { type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import type { LatLon } from '../geo/coordinates.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { softCostPerMetre } from '../zones/Zone.js';
import type { Snap, SnapIndex, StopRole } from '../graph/SnapIndex.js';
import type { CellOverlay } from '../hierarchy/CellOverlay.js';
import type { ContractionHierarchy, HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import { otherMetric, otherMetricArcCosts } from '../hierarchy/otherMetricArcCosts.js';
import { BucketIndex } from './BucketIndex.js';
import { BucketManyToMany, type CostedEndpoint } from './BucketManyToMany.js';
import { HierarchySearch } from './HierarchySearch.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import { OverlayManyToMany, type FixedCliques } from './OverlayManyToMany.js';
import { directCost, partialCost, sourceEndpoints, targetEndpoints } from './endpoints.js';
import { uniformPenalty, ZONE_COST_PER_METRE, type Endpoint, type PathSearch, type Penalty } from './PathSearch.js';
import { parseAvoidance, type Avoidance, type AvoidanceBehavior, type AvoidanceType } from './avoidance.js';
import { CALCULATION_MODES, metricOf, type CalculationMode } from './routeRequest.js';
import type { RouteRequest, Route, RoadMasks } from './routeRequest.js';
import { vehicleKey, zonesFor, type Vehicle, type VehicleRoads } from './vehicle.js';
import type { RoadTimes } from './roadTimes.js';
import { departureOf, scheduleStates, sharedTimeline } from './RoadSchedule.js';
import { costsThrough, entryNodes, exitNodes } from './zoneCrossings.js';
import { sortedIndexOf } from '../graph/csr.js';

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
  /** Road types no element may drive (avoidanceBehavior FAIL only: elements that cannot avoid them fail). */
  avoidanceTypes?: AvoidanceType[];
  /** Only FAIL (the default) is accepted for matrices. */
  avoidanceBehavior?: AvoidanceBehavior;
  /** The vehicle every element must be legal for, as in Router.route. */
  vehicle?: Vehicle;
  /** When every element leaves (as RouteRequest.departure; default now). */
  departure?: number | string | Date;
  /** Called now and then with the elements done so far and the total (progress bars). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * What a matrix needs of the Router that answers it (Router.matrix passes itself): its graph and
 * snapping, its per-request road masks, and route() for the elements left to one route each.
 */
export interface MatrixRouter {
  readonly graph: HierarchyGraph;
  readonly snapIndex: SnapIndex;
  readonly maxSnapDistance?: number;
  /** The route search, whose node state the matrix's searches borrow when it is the hierarchy engine's (they never run at once). */
  readonly search?: PathSearch;
  masks(zones: CalculatedZone[], hard?: Uint8Array, vehicle?: VehicleRoads): RoadMasks;
  releaseMasks(masks: RoadMasks): void;
  vehicleRoads(vehicle: Vehicle): VehicleRoads;
  legalFor(vehicle?: Vehicle): ((road: number) => boolean) | undefined;
  route(request: RouteRequest): Route;
  /** The error route() throws for a two-point request known to have no legal route (Router.unroutableLeg). */
  unroutableLeg(request: RouteRequest): DetourError;
  /** A vehicle's road times when the graph is a view with them (Router.timedRouter): its slower roads' cells are customized or walked. */
  readonly times?: RoadTimes;
  /** With times: the router with the car's times (whose free buckets tell which pairs connect at all). */
  readonly car?: MatrixRouter;
  /** A vehicle class's own hierarchies (Router.adoptVehicleHierarchies: without its closed and destination-only roads), undefined for a vehicle without. */
  ownHierarchies?(vehicle: Vehicle): Record<Metric, ContractionHierarchy> | undefined;
}

/** Why one element of a matrix has no value. */
export interface MatrixFailure {
  /** A DetourError code: POINT_NOT_ROUTABLE (its origin or destination), ROUTE_NOT_FOUND or AVOIDANCE_IMPOSSIBLE. */
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
export function matrixByRoutes(router: MatrixRouter, request: MatrixRequest): MatrixResult {
  readMatrixRequest(request);
  const result = emptyResult(request);
  const total = result.originCount * result.destinationCount;
  for (let i = 0; i < total; i++) {
    routeElement(router, request, result, i);
    request.onProgress?.(i + 1, total);
  }
  return result;
}

/**
 * The fast matrix (Router.matrix): bucket many-to-many on the contraction hierarchy
 * (|origins| + |destinations| small upward searches). With zones or blocked roads, the buckets run
 * on the cell overlay instead (OverlayManyToMany: the closed roads' small cells customized once for
 * the request, then one multi-level Dijkstra per origin and per destination), so every element is
 * exact around them in one pass, with the other metric's value of the same path. Elements a route
 * would have to drive into zones for (a stop on a zone's road, or no way around) follow
 * Router.route's rule (fewest metres on zone roads, then the metric) by the same search with the
 * zone penalty per metre instead of the closure, over their rows and columns; elements with no path
 * even through the zones fail without it (freeCostsWhereClosedFail); a vehicle's get the error
 * Router.route would give (Router.unroutableLeg: which limits close the way). Pairs sharing a tiny
 * component, or two stops on one road that must enter a zone, go to Router.route one by one. So
 * every element equals what Router.route answers for its pair. A graph without a hierarchy and a two-level overlay gets the reference.
 */
export function computeMatrix(router: MatrixRouter, given: MatrixRequest): MatrixResult {
  // The zones whose vehicles rule takes in the request's vehicle (each element is Router.route's, which keeps the same).
  const request = given.zones ? { ...given, zones: zonesFor(given.zones, given.vehicle) } : given;
  if (request.zones?.some((z) => softCostPerMetre(z.zone) !== undefined || z.zone.schedule !== undefined)) {
    // Every element leaves at the same instant: the request's, or now once.
    const timed = { ...request, departure: departureOf(request.departure) };
    const mode = request.calculationMode ?? 'THE_FASTEST';
    if (mode === 'THE_FASTEST' && !request.zones.some((z) => softCostPerMetre(z.zone) !== undefined)) return scheduledMatrix(router, timed);
    return softMatrix(router, timed);
  }
  const graph = router.graph;
  if (!graph.hierarchy?.overlay?.fine) return matrixByRoutes(router, request);
  const avoidance = readMatrixRequest(request);
  if (avoidance.types.length > 0) return matrixAvoiding(router, request, avoidance);
  const mode = request.calculationMode ?? 'THE_FASTEST';
  if (!CALCULATION_MODES.includes(mode)) {
    throw new DetourError(ErrorCode.INVALID_MODE, `calculationMode must be one of ${CALCULATION_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  }
  const metric = metricOf(mode);
  const result = emptyResult(request);
  const O = result.originCount, D = result.destinationCount, total = O * D;
  const zones = request.zones ?? [];
  const masks = router.masks(zones, request.blockedRoads, request.vehicle && router.vehicleRoads(request.vehicle));
  const separately: number[] = [];
  /** Elements with no legal route (as Router.route's rule finds): Router.route would say which of the vehicle's limits close the way. */
  const unroutable: number[] = [];
  try {
    const prefer = router.legalFor(request.vehicle);
    const origins = request.origins.map((p, i) => snapFor(router, p, `origins[${i}]`, 'first', prefer));
    const destinations = request.destinations.map((p, i) => snapFor(router, p, `destinations[${i}]`, 'last', prefer));
    const sources = origins.map((c) => (c.snap ? costed(graph, c.snap, metric, true) : []));
    const targets = destinations.map((c) => (c.snap ? costed(graph, c.snap, metric, false) : []));
    const onZoneRoad = (c: PointSnap) => masks.zone !== undefined && c.snap !== undefined && masks.zone[c.snap.road] === 1;
    const cost = new Float64Array(total), second = new Float64Array(total);
    const car = router.car ?? router;
    const engines = matrixEngines(car);
    const pass = matrixPass(router, request, masks, metric);
    // Stops on a zone's road (or the class's destination-only roads) are left to the zone-entering elements below.
    const free = (c: PointSnap, list: CostedEndpoint[]) => (onZoneRoad(c) ? [] : list);
    pass.run(sources.map((l, o) => free(origins[o], l)), targets.map((l, d) => free(destinations[d], l)), cost, second);
    if (masks.all || pass.retimed) request.onProgress?.(Math.round(total / 2), total);
    const { classed, classCliques, pricedCliques, retimed } = pass;
    const millis = router.times?.millis;
    // Which pairs connect at all does not depend on the times: the car's buckets tell.
    const freeCost = masks.zone ? freeCostsWhereClosedFail(engines, car.graph, car.graph.hierarchy![metric], sources, targets, cost, (o, d) => {
      const from = origins[o], to = destinations[d];
      return from.snap !== undefined && to.snap !== undefined && !(from.tiny >= 0 && from.tiny === to.tiny) && !onZoneRoad(from) && !onZoneRoad(to);
    }) : undefined;
    const entering: number[] = [];
    for (let o = 0; o < O; o++) {
      for (let d = 0; d < D; d++) {
        const i = o * D + d;
        const from = origins[o], to = destinations[d];
        if (!from.snap || !to.snap) {
          result.failures.set(i, (from.failure ?? to.failure)!);
          continue;
        }
        if (from.tiny >= 0 && from.tiny === to.tiny) { separately.push(i); continue; }
        if (onZoneRoad(from) || onZoneRoad(to)) { entering.push(i); continue; }
        let c = cost[i], c2 = second[i];
        if (from.snap.road === to.snap.road && !masks.all?.[from.snap.road]) {
          const direct = directCost(graph, from.snap, to.snap, metric);
          if (direct.cost <= c) {
            c = direct.cost;
            c2 = partialCost(graph, from.snap.road, Math.abs(to.snap.offset - from.snap.offset), otherMetric(metric));
          }
        }
        if (c < Infinity) setElement(result, i, metric, c, c2);
        // Router.route then drives the fewest metres inside zones, where the free graph joins them at all.
        else if (masks.zone && freeCost![i] < Infinity) entering.push(i);
        // Router.route says which of the vehicle's limits close the way.
        else if (request.vehicle) unroutable.push(i);
        else result.failures.set(i, noRoute(o, d));
      }
    }
    if (classed && !classCliques && entering.length <= MAX_ROUTED_ENTERING_ELEMENTS) {
      // A class not prepared for matrices, few elements that must enter zones or drive its
      // destination-only roads: one route each, on the class's own router (its cells' penalised
      // cliques), instead of customizing its cells here.
      separately.push(...entering);
    } else if (entering.length > 0) {
      // Router.route's rule for a leg that must enter zones: the fewest metres on zone roads, then
      // the metric. The overlay's many-to-many with the zone penalty per metre instead of the
      // closure (hard-blocked roads still closed), over the rows and columns concerned. A class's
      // cells are crossed by its cliques: with its priced ones (prepareMatrices), which charge its
      // destination-only roads, only the zones' cells are priced for the run; else those roads' too.
      const destinationOnly = pricedCliques ? masks.vehicle?.destinationOnly : undefined;
      const penalty = { ...uniformPenalty(masks.zone!, ZONE_COST_PER_METRE), roadLists: masks.softLists.filter((l) => l !== destinationOnly) };
      const rows = new Uint8Array(O), columns = new Uint8Array(D);
      for (const i of entering) { rows[Math.floor(i / D)] = 1; columns[i % D] = 1; }
      const penalised = new Float64Array(total), penalisedSecond = new Float64Array(total), plain = new Float64Array(total);
      const fixed = pricedCliques ?? classCliques;
      engines.overlay().run(
        metric,
        origins.map((c, o) => (rows[o] && c.snap ? costed(graph, c.snap, metric, true, penalty) : [])),
        destinations.map((c, d) => (columns[d] && c.snap ? costed(graph, c.snap, metric, false, penalty) : [])),
        masks.hard ?? engines.noRoads(), fixed ? [] : closedRoadList(graph, masks, false, retimed), penalised, penalisedSecond, penalty, plain, millis, fixed,
      );
      for (const i of entering) {
        const o = Math.floor(i / D), d = i % D;
        // Two stops on one road compare the straight drive with penalties: leave that to route().
        if (origins[o].snap!.road === destinations[d].snap!.road) separately.push(i);
        else if (penalised[i] < Infinity) setElement(result, i, metric, plain[i], penalisedSecond[i]);
        else if (request.vehicle) unroutable.push(i);
        else result.failures.set(i, noRoute(o, d));
      }
    }
  } finally {
    router.releaseMasks(masks);
  }
  // After releasing: Router.route uses the same scratch masks.
  for (const i of separately) routeElement(router, request, result, i);
  for (const i of unroutable) elementFailure(router, request, result, i);
  request.onProgress?.(total, total);
  return result;
}

/** One many-to-many over costed endpoints for a request's roads, by the engine they call for. */
interface MatrixPass {
  /** Fills cost[s * to.length + t] and second with the cheapest cost (and the other metric along it); Infinity where none connects. */
  run(from: CostedEndpoint[][], to: CostedEndpoint[][], cost: Float64Array, second: Float64Array): void;
  /** The request's vehicle class's own hierarchies, when prepared. */
  classed?: Record<Metric, ContractionHierarchy>;
  /** That class's cells' cliques for the metric (prepareMatrices), and the same with its destination-only roads charged. */
  classCliques?: FixedCliques;
  pricedCliques?: FixedCliques;
  /** Roads whose cells' cliques are not the vehicle's (its slower roads). */
  retimed?: ArrayLike<number>;
}

/**
 * The engine for a request's closed roads and vehicle: the CH buckets when none is closed and
 * the times are the car's; a prepared class's own hierarchies' buckets without zones (they lack
 * its closed and destination-only roads and carry its times, so they answer what the overlay would);
 * else the overlay's many-to-many (with zones, a prepared class's cells crossed by its cliques
 * made once; a vehicle's slower roads' cells customized or walked).
 */
function matrixPass(router: MatrixRouter, request: MatrixRequest, masks: RoadMasks, metric: Metric): MatrixPass {
  const graph = router.graph;
  const zones = request.zones ?? [];
  // A vehicle's router shares the car router's engines (the graph's arrays are the same), its times passed to each run.
  const engines = matrixEngines(router.car ?? router);
  const ch = graph.hierarchy![metric];
  const retimed = router.times?.retimed, millis = router.times?.millis;
  const classed = request.vehicle && !request.blockedRoads ? router.ownHierarchies?.(request.vehicle) : undefined;
  const own = classed && zones.length === 0 ? classed[metric] : undefined;
  const prepared = classed ? engines.classCliques.get(vehicleKey(request.vehicle!)) : undefined;
  const classCliques = prepared?.[metric], pricedCliques = prepared?.priced?.[metric];
  const fixed = zones.length > 0 ? classCliques : undefined;
  const run = (from: CostedEndpoint[][], to: CostedEndpoint[][], cost: Float64Array, second: Float64Array): void => {
    if (!masks.all && !retimed) {
      engines.buckets().run(ch, otherMetricArcCosts(graph, ch), from, to, cost, second);
    } else if (own) {
      engines.buckets().run(own, otherMetricArcCosts(graph, own), from, to, cost, second);
    } else {
      const closed = fixed ? closedRoadList(graph, { ...masks, softLists: masks.softLists.slice(0, zones.length), hardLists: [] }, true) : closedRoadList(graph, masks, true, retimed);
      engines.overlay().run(metric, from, to, masks.all ?? engines.noRoads(), closed, cost, second, undefined, undefined, millis, fixed);
    }
  };
  return { run, classed, classCliques, pricedCliques, retimed };
}

/**
 * The free costs (no road closed) of the elements `cost` leaves at Infinity around closed roads
 * (among those `counts` accepts), by the free buckets over just their rows and columns; Infinity
 * elsewhere. An element without a free path has no route through zones either, and need not go to
 * the zone-entering search, which would settle all the graph that its origin reaches to say so
 * (3 s for 100 origins and one unreachable destination on a 5M-node graph).
 */
function freeCostsWhereClosedFail(
  engines: MatrixEngines, graph: RoadGraph, ch: ContractionHierarchy, sources: CostedEndpoint[][], targets: CostedEndpoint[][], cost: Float64Array,
  counts: (o: number, d: number) => boolean,
): Float64Array {
  const O = sources.length, D = targets.length;
  const free = new Float64Array(O * D).fill(Infinity);
  const rows = new Uint8Array(O), columns = new Uint8Array(D);
  let any = false;
  for (let o = 0; o < O; o++) {
    for (let d = 0; d < D; d++) {
      if (cost[o * D + d] === Infinity && counts(o, d)) { rows[o] = 1; columns[d] = 1; any = true; }
    }
  }
  if (!any) return free;
  engines.buckets().run(ch, otherMetricArcCosts(graph, ch), sources.map((l, o) => (rows[o] ? l : [])), targets.map((l, d) => (columns[d] ? l : [])), free, new Float64Array(O * D));
  return free;
}

/**
 * Most elements that must enter zones or drive its destination-only roads routed one by one for a
 * class prepared for routes but not for matrices (a route each, tens of milliseconds on a
 * country); beyond, the overlay's zone-entering pass customizes the class's cells for the request
 * (seconds, whatever the count). Prepared for matrices, that pass crosses them by the class's
 * cliques made once (priced where it has destination-only roads).
 */
const MAX_ROUTED_ENTERING_ELEMENTS = 256;

/**
 * Most elements (origins x destinations) one matrix computes: its arrays take about 50 bytes an
 * element, and the command line writes it as one text of about 70 bytes an element.
 */
export const MAX_MATRIX_ELEMENTS = 4_000_000;

/** Most elements of a matrix around SOFT or scheduled zones (each is one route: softMatrix). */
export const MAX_SOFT_MATRIX_ELEMENTS = 2_500;

/**
 * A matrix around SOFT or scheduled zones: each element by Router.route, which weighs them (no
 * bucket search charges a cost per metre or waits yet), so its size is bounded (INVALID_INPUT past
 * MAX_SOFT_MATRIX_ELEMENTS).
 */
function softMatrix(router: MatrixRouter, request: MatrixRequest): MatrixResult {
  const elements = (request.origins?.length ?? 0) * (request.destinations?.length ?? 0);
  if (elements > MAX_SOFT_MATRIX_ELEMENTS) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `a matrix around SOFT or scheduled zones has at most ${MAX_SOFT_MATRIX_ELEMENTS} elements (each is a route), got ${request.origins.length} x ${request.destinations.length} = ${elements}`, { field: 'origins' });
  }
  return matrixByRoutes(router, request);
}

/**
 * A THE_FASTEST matrix around scheduled zones, every element leaving at the request's departure.
 * Where the scheduled zones keep one timeline (scheduledCrossing), many-to-many passes split at
 * the zones' border answer every element exactly that arrives before their second change (their
 * third when closed at the departure); the rest, and those whose stop is on a zone's road or in a
 * tiny component, by Router.route. Where their
 * timelines differ: the matrix with the zones active then closed (as HARD ones), exact for each
 * element arriving before any of them changes (no sooner arrival can drive an active zone's road or
 * need to wait); of the others, those the matrices without the scheduled zones and with all of them
 * closed agree on; the rest by Router.route. At most MAX_SOFT_MATRIX_ELEMENTS routes (INVALID_INPUT
 * naming `departure` beyond).
 */
function scheduledMatrix(router: MatrixRouter, request: MatrixRequest & { departure: number }): MatrixResult {
  if (request.avoidanceTypes && request.avoidanceTypes.length > 0) {
    throw new DetourError(ErrorCode.UNSUPPORTED_FEATURE, 'zones with a schedule together with avoidanceTypes are not supported yet', { members: ['avoidanceTypes'] });
  }
  readMatrixRequest(request);
  checkStops(request);
  const zones = request.zones!;
  const timed = zones.filter((z) => z.zone.schedule !== undefined);
  const untimed = zones.filter((z) => z.zone.schedule === undefined);
  const prefer = router.legalFor(request.vehicle);
  const destinationOnly = request.vehicle ? router.vehicleRoads(request.vehicle).destinationOnly : undefined;
  // Each stop as a route snaps it (a pair on one tiny component stays there: those pairs are
  // routes). A stop on a zone's road (or a road the vehicle may only end on) is a route too: a
  // route serves it by its own rules (its road open to it, or the fewest metres inside, every
  // zone counted).
  const snaps = (points: LatLon[], label: string, role: StopRole) => points.map((p, i) => {
    const s = snapFor(router, p, `${label}[${i}]`, role, prefer);
    const road = s.snap?.road;
    const inZone = road !== undefined && (zones.some((z) => sortedIndexOf(z.roads, road) >= 0) || (destinationOnly !== undefined && sortedIndexOf(destinationOnly, road) >= 0));
    return { ...s, inZone };
  });
  const rows = snaps(request.origins, 'origins', 'first'), columns = snaps(request.destinations, 'destinations', 'last');
  const timeline = router.graph.hierarchy?.overlay?.fine ? sharedTimeline(timed, request.departure) : undefined;
  let again: number[];
  let result: MatrixResult;
  const crossing = timeline && scheduledCrossing(router, request, timed, untimed, timeline, rows, columns);
  if (crossing) {
    ({ result, again } = crossing);
  } else {
    ({ result, again } = steadyThenAgreeing(router, request, timed, untimed, rows, columns));
  }
  if (again.length > MAX_SOFT_MATRIX_ELEMENTS) {
    const { until } = scheduleStates(timed, request.departure);
    throw new DetourError(ErrorCode.INVALID_INPUT, `${again.length} elements of this matrix arrive after a scheduled zone opens or closes (${Math.round(until)} s after the departure), and at most ${MAX_SOFT_MATRIX_ELEMENTS} such elements are computed (each is a route): leave at another time or split the matrix`, { field: 'departure' });
  }
  for (const i of again) {
    result.failures.delete(i);
    result.distance[i] = NaN;
    result.duration[i] = NaN;
    routeElement(router, request, result, i);
  }
  request.onProgress?.(result.distance.length, result.distance.length);
  return result;
}

type ScheduledStop = PointSnap & { inZone: boolean };

/**
 * A scheduled matrix by its steady passes (scheduledMatrix's second way): the elements it leaves
 * to routes, and the others' values.
 */
function steadyThenAgreeing(
  router: MatrixRouter, request: MatrixRequest & { departure: number }, timed: CalculatedZone[], untimed: CalculatedZone[],
  rows: ScheduledStop[], columns: ScheduledStop[],
): { result: MatrixResult; again: number[] } {
  const { active, until } = scheduleStates(timed, request.departure);
  const closed = timed.filter((_, i) => active[i]);
  const result = computeMatrix(router, { ...request, zones: [...untimed, ...closed.map(alwaysActive)] });
  const pair = (i: number) => ({ o: rows[Math.floor(i / result.destinationCount)], d: columns[i % result.destinationCount] });
  let again: number[] = [];
  for (let i = 0; i < result.distance.length; i++) {
    const { o, d } = pair(i);
    const failure = result.failures.get(i);
    if (failure?.code === ErrorCode.POINT_NOT_ROUTABLE) continue;
    if (o.inZone || d.inZone || (o.tiny >= 0 && o.tiny === d.tiny) || failure !== undefined || !(result.duration[i] <= until)) again.push(i);
  }
  if (again.length > 0) {
    // Of those, the elements whose best route meets no scheduled zone: there the matrix without
    // the scheduled zones (no route beats it: closures and waits only delay) and the one with all
    // of them closed (routes that never need them, so fit any time) agree.
    const allClosed = closed.length === timed.length ? result : computeMatrix(router, { ...request, zones: [...untimed, ...timed.map(alwaysActive)] });
    const open = computeMatrix(router, { ...request, zones: untimed });
    again = again.filter((i) => {
      const { o, d } = pair(i);
      if (o.inZone || d.inZone || (o.tiny >= 0 && o.tiny === d.tiny) || allClosed.failures.has(i)) return true;
      const low = open.duration[i], high = allClosed.duration[i];
      if (!(Math.abs(high - low) <= 1e-9 * Math.max(1, low))) return true;
      result.failures.delete(i);
      result.distance[i] = allClosed.distance[i];
      result.duration[i] = high;
      return false;
    });
  }
  return { result, again };
}

/**
 * Bounds on a scheduled matrix split at its zones' border (scheduledCrossing): border nodes, costs
 * between them and the stops (16 bytes each), sums over them (one per element and node); beyond,
 * the steady passes and routes.
 */
const MAX_CROSSING_NODES = 4096, MAX_CROSSING_COSTS = 8_000_000, MAX_CROSSING_SUMS = 500_000_000;

/**
 * A scheduled matrix where every scheduled zone has the same timeline: its paths split where
 * they cross into or out of the zones' roads. Closed at the departure until c1, then open until
 * c2: a path that drives none of those roads costs at least the matrix around them all (H); one
 * that does drives its first one at c1 or later, from an entry node b reached first around them,
 * so it arrives no sooner than max(H(o, b), c1) + F(b, d), F being the matrix without them; each
 * of those is a path, a valid one when it arrives by c2. Open at the departure until c1, then
 * closed until c2: a path that drives those roads only before c1 leaves the last at an exit node
 * b reached by c1, so costs at least F(o, b) + H(b, d) where F(o, b) <= c1, and is one; one that
 * drives them after c2 arrives after c2. So the least of those is every element's exact value where
 * it is at most c2 (or, closed at the departure, is H's; later ones: leftAfterOpenTime). Returns
 * the matrix and the elements left to routes (stops on zone roads or in a tiny component; the rest
 * past c2, or c3), or
 * undefined when the zones have too many border nodes.
 */
function scheduledCrossing(
  router: MatrixRouter, request: MatrixRequest & { departure: number }, timed: CalculatedZone[], untimed: CalculatedZone[],
  timeline: Float64Array, rows: ScheduledStop[], columns: ScheduledStop[],
): { result: MatrixResult; again: number[] } | undefined {
  const graph = router.graph, metric: Metric = 'duration';
  let k = 0;
  while (timeline[2 * k + 1] <= 0) k++;
  const closedNow = timeline[2 * k] <= 0;
  const c1 = closedNow ? timeline[2 * k + 1] : timeline[2 * k], c2 = closedNow ? timeline[2 * k + 2] : timeline[2 * k + 1];
  const marked = new Uint8Array(graph.roadCount);
  const lists = timed.map((z) => z.roads);
  for (const list of lists) for (let i = 0; i < list.length; i++) marked[list[i]] = 1;
  const nodes = closedNow ? entryNodes(graph, marked, lists) : exitNodes(graph, marked, lists);
  const O = request.origins.length, D = request.destinations.length, B = nodes.length;
  if (B > MAX_CROSSING_NODES || (O + D) * B > MAX_CROSSING_COSTS || O * B * D > MAX_CROSSING_SUMS) return undefined;
  const result = emptyResult(request);
  const again: number[] = [];
  const used = { rows: new Uint8Array(O), columns: new Uint8Array(D) };
  const legal = router.legalFor(request.vehicle);
  const simple = (o: ScheduledStop, d: ScheduledStop) => !o.inZone && !d.inZone && !(o.tiny >= 0 && o.tiny === d.tiny);
  for (let o = 0; o < O; o++) {
    for (let d = 0; d < D; d++) {
      const i = o * D + d, from = rows[o], to = columns[d];
      if (!from.snap || !to.snap) result.failures.set(i, (from.failure ?? to.failure)!);
      else if (!simple(from, to)) again.push(i);
      else { used.rows[o] = 1; used.columns[d] = 1; }
    }
  }
  const sources = rows.map((c, o) => (used.rows[o] ? costed(graph, c.snap!, metric, true) : []));
  const targets = columns.map((c, d) => (used.columns[d] ? costed(graph, c.snap!, metric, false) : []));
  const border = Array.from(nodes, (node): CostedEndpoint[] => [{ node, cost: 0, second: 0, plain: 0 }]);
  const around = [...untimed, ...timed.map(alwaysActive)];
  // Both passes join the stops to the border; the one around every zone also joins them to each other (H).
  const first = new Float64Array(O * B), firstSecond = new Float64Array(O * B);
  const then = new Float64Array(B * D), thenSecond = new Float64Array(B * D);
  const h = new Float64Array(O * D), hSecond = new Float64Array(O * D);
  if (closedNow) {
    const both = new Float64Array(O * (B + D)), bothSecond = new Float64Array(O * (B + D));
    passAround(router, request, around, metric, sources, [...border, ...targets], both, bothSecond);
    for (let o = 0; o < O; o++) {
      first.set(both.subarray(o * (B + D), o * (B + D) + B), o * B);
      firstSecond.set(bothSecond.subarray(o * (B + D), o * (B + D) + B), o * B);
      h.set(both.subarray(o * (B + D) + B, (o + 1) * (B + D)), o * D);
      hSecond.set(bothSecond.subarray(o * (B + D) + B, (o + 1) * (B + D)), o * D);
    }
    passAround(router, request, untimed, metric, border, targets, then, thenSecond);
  } else {
    passAround(router, request, untimed, metric, sources, border, first, firstSecond);
    const both = new Float64Array((B + O) * D), bothSecond = new Float64Array((B + O) * D);
    passAround(router, request, around, metric, [...border, ...sources], targets, both, bothSecond);
    then.set(both.subarray(0, B * D));
    thenSecond.set(bothSecond.subarray(0, B * D));
    h.set(both.subarray(B * D));
    hSecond.set(bothSecond.subarray(B * D));
  }
  const via = new Float64Array(O * D), viaSecond = new Float64Array(O * D);
  const late: number[] = [];
  const start = closedNow ? (cost: number) => Math.max(cost, c1) : (cost: number) => (cost <= c1 ? cost : Infinity);
  costsThrough(O, B, D, used.rows, first, firstSecond, then, thenSecond, start, via, viaSecond);
  for (let o = 0; o < O; o++) {
    for (let d = 0; d < D; d++) {
      const i = o * D + d;
      const from = rows[o].snap, to = columns[d].snap;
      if (!from || !to || !simple(rows[o], columns[d])) continue;
      if (from.road === to.road && !request.blockedRoads?.[from.road] && (legal?.(from.road) ?? true)) {
        // Driving along their own road (off every zone) is a path that meets none of them.
        const direct = directCost(graph, from, to, metric).cost;
        if (direct <= h[i]) { h[i] = direct; hSecond[i] = partialCost(graph, from.road, Math.abs(to.offset - from.offset), otherMetric(metric)); }
      }
      const best = Math.min(h[i], via[i]);
      // Closed at the departure, H's path fits any time; otherwise the least is exact by c2.
      if (closedNow && h[i] <= via[i] && h[i] < Infinity) setElement(result, i, metric, h[i], hSecond[i]);
      else if (best <= c2 && best < Infinity) setElement(result, i, metric, best, h[i] <= via[i] ? hSecond[i] : viaSecond[i]);
      else late.push(i);
    }
  }
  if (late.length > 0 && closedNow) {
    again.push(...leftAfterOpenTime(router, request, untimed, around, marked, lists, { c1, c2, c3: timeline[2 * k + 3] }, nodes, border, first, firstSecond, targets, h, hSecond, late, result));
  } else {
    again.push(...late);
  }
  again.sort((x, y) => x - y);
  return { result, again };
}

/**
 * scheduledCrossing's elements past c2 of zones closed at the departure, open from c1 until c2 and
 * closed again until c3: a path that drives none of their roads costs at least H; one that drives
 * them only between c1 and c2 enters them first at an entry node b and leaves them last at an exit
 * node x by c2, so reaches x no sooner than T(o, x) = min over b of max(H(o, b), c1) + F(b, x),
 * which must be at most c2, and costs at least T(o, x) + H(x, d); one that drives them later
 * arrives after c3. So the least of those is exact where it is at most c3, and each is a path.
 * Sets those elements in `result`; returns the others.
 */
function leftAfterOpenTime(
  router: MatrixRouter, request: MatrixRequest, untimed: CalculatedZone[], around: CalculatedZone[], marked: Uint8Array, lists: ArrayLike<number>[],
  times: { c1: number; c2: number; c3: number }, entries: Uint32Array, entryEnds: CostedEndpoint[][], first: Float64Array, firstSecond: Float64Array,
  targets: CostedEndpoint[][], h: Float64Array, hSecond: Float64Array, late: number[], result: MatrixResult,
): number[] {
  const graph = router.graph, metric: Metric = 'duration';
  const O = result.originCount, D = result.destinationCount, B = entries.length;
  const exits = exitNodes(graph, marked, lists), X = exits.length;
  if (X > MAX_CROSSING_NODES || B * X + (O + D) * X > MAX_CROSSING_COSTS || O * X * (B + D) > MAX_CROSSING_SUMS) return late;
  const rows = new Uint8Array(O), columns = new Uint8Array(D);
  for (const i of late) { rows[Math.floor(i / D)] = 1; columns[i % D] = 1; }
  const exitEnds = Array.from(exits, (node): CostedEndpoint[] => [{ node, cost: 0, second: 0, plain: 0 }]);
  const inside = new Float64Array(B * X), insideSecond = new Float64Array(B * X);
  passAround(router, request, untimed, metric, entryEnds, exitEnds, inside, insideSecond);
  const after = new Float64Array(X * D), afterSecond = new Float64Array(X * D);
  passAround(router, request, around, metric, exitEnds, targets.map((l, d) => (columns[d] ? l : [])), after, afterSecond);
  const reached = new Float64Array(O * X), reachedSecond = new Float64Array(O * X);
  costsThrough(O, B, X, rows, first, firstSecond, inside, insideSecond, (cost) => Math.max(cost, times.c1), reached, reachedSecond);
  const through = new Float64Array(O * D), throughSecond = new Float64Array(O * D);
  costsThrough(O, X, D, rows, reached, reachedSecond, after, afterSecond, (cost) => (cost <= times.c2 ? cost : Infinity), through, throughSecond);
  return late.filter((i) => {
    const best = Math.min(h[i], through[i]);
    if (!(best <= times.c3 && best < Infinity)) return true;
    setElement(result, i, metric, best, h[i] <= through[i] ? hSecond[i] : throughSecond[i]);
    return false;
  });
}

/** Raw costs between costed endpoints around `zones` (the request's vehicle and blocked roads kept): matrixPass's. */
function passAround(
  router: MatrixRouter, request: MatrixRequest, zones: CalculatedZone[], metric: Metric,
  from: CostedEndpoint[][], to: CostedEndpoint[][], cost: Float64Array, second: Float64Array,
): void {
  const masks = router.masks(zones, request.blockedRoads, request.vehicle && router.vehicleRoads(request.vehicle));
  try {
    matrixPass(router, { ...request, zones }, masks, metric).run(from, to, cost, second);
  } finally {
    router.releaseMasks(masks);
  }
}

/** A scheduled zone as a HARD one, closed at every hour. */
function alwaysActive(zone: CalculatedZone): CalculatedZone {
  return { ...zone, zone: { ...zone.zone, schedule: undefined } };
}

/** The request's avoidance, after checking its size (INVALID_INPUT past MAX_MATRIX_ELEMENTS) and behaviour. */
function readMatrixRequest(request: MatrixRequest): Avoidance {
  const elements = (request.origins?.length ?? 0) * (request.destinations?.length ?? 0);
  if (elements > MAX_MATRIX_ELEMENTS) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `a matrix of ${request.origins.length} x ${request.destinations.length} = ${elements} elements is more than the ${MAX_MATRIX_ELEMENTS} one matrix computes: split the origins into several matrices`, { field: 'origins' });
  }
  const avoidance = parseAvoidance(request.avoidanceTypes, request.avoidanceBehavior);
  if (avoidance.types.length > 0 && avoidance.behavior !== 'FAIL') {
    throw new DetourError(ErrorCode.INVALID_AVOIDANCE, `a matrix avoids road types with avoidanceBehavior FAIL only, got ${avoidance.behavior}`, { field: 'avoidanceBehavior' });
  }
  return avoidance;
}

/**
 * A matrix avoiding road types (FAIL), as Router.route answers each pair: the fast matrix with
 * those roads blocked; an element whose stop lies on such a road, or that has no route around
 * them while the free matrix has one, fails with AVOIDANCE_IMPOSSIBLE.
 */
function matrixAvoiding(router: MatrixRouter, request: MatrixRequest, avoidance: Avoidance): MatrixResult {
  const graph = router.graph;
  const blocked = new Uint8Array(graph.roadCount);
  if (request.blockedRoads) blocked.set(request.blockedRoads.subarray(0, blocked.length));
  for (let r = 0; r < graph.roadCount; r++) if (graph.roadFlags[r] & avoidance.flags) blocked[r] = 1;
  const plain = { ...request, avoidanceTypes: undefined, avoidanceBehavior: undefined };
  const result = computeMatrix(router, { ...plain, blockedRoads: blocked });
  const D = result.destinationCount;
  const prefer = router.legalFor(request.vehicle);
  const onAvoided = (p: LatLon, label: string, role: StopRole) => {
    const c = snapFor(router, p, label, role, prefer);
    return c.snap !== undefined && (graph.roadFlags[c.snap.road] & avoidance.flags) !== 0;
  };
  const originOn = request.origins.map((p, o) => onAvoided(p, `origins[${o}]`, 'first'));
  const destinationOn = request.destinations.map((p, d) => onAvoided(p, `destinations[${d}]`, 'last'));
  const types = avoidance.types.join(', ');
  let free: MatrixResult | undefined;
  for (let i = 0; i < result.distance.length; i++) {
    const o = Math.floor(i / D), d = i % D;
    const failure = result.failures.get(i);
    if (failure?.code === ErrorCode.POINT_NOT_ROUTABLE) continue;
    if (originOn[o] || destinationOn[d]) {
      const label = originOn[o] ? `origins[${o}]` : `destinations[${d}]`;
      result.failures.set(i, { code: ErrorCode.AVOIDANCE_IMPOSSIBLE, message: `${label} lies on a road of a type to avoid (${types})` });
    } else if (failure?.code === ErrorCode.ROUTE_NOT_FOUND) {
      free ??= computeMatrix(router, plain);
      if (!free.failures.has(i)) {
        result.failures.set(i, { code: ErrorCode.AVOIDANCE_IMPOSSIBLE, message: `no route from origins[${o}] to destinations[${d}] avoids ${types}` });
      }
    } else {
      continue;
    }
    result.distance[i] = NaN;
    result.duration[i] = NaN;
  }
  return result;
}

function setElement(result: MatrixResult, i: number, metric: Metric, cost: number, second: number): void {
  result.distance[i] = metric === 'distance' ? cost : second;
  result.duration[i] = metric === 'distance' ? second : cost;
}

/**
 * The roads a request closes, as a list (repeats allowed): the zones' road lists, and the roads
 * marked in a caller's full-size mask (the one scan over every road is the caller's own mask);
 * then `retimed`, roads not closed whose cells' cliques are not the vehicle's.
 */
function closedRoadList(graph: RoadGraph, masks: RoadMasks, withSoft: boolean, retimed?: ArrayLike<number>): ArrayLike<number> {
  const list: number[] = [];
  const add = (l: ArrayLike<number>) => { for (let i = 0; i < l.length; i++) list.push(l[i]); };
  if (withSoft) masks.softLists.forEach(add);
  const hard = masks.hard;
  if (masks.hardLists) masks.hardLists.forEach(add);
  else if (hard) for (let r = 0, n = Math.min(hard.length, graph.roadCount); r < n; r++) if (hard[r]) list.push(r);
  if (retimed) add(retimed);
  return list;
}

/**
 * Makes ahead what a router's matrices use (prepareMatrices: the searches' scratch and both
 * hierarchies' arc costs in the other metric), so the first matrix does not pay for it; with
 * `own`, a vehicle class's: its own hierarchies' arc costs and its cells' cliques for matrices
 * around zones (fixedCliques), `router` being the one with its times.
 */
export function prepareMatrices(router: MatrixRouter, own?: { vehicle: Vehicle; hierarchies: Record<Metric, ContractionHierarchy> }): void {
  if (own) {
    // A class's own hierarchies (`router` is the one with its times, as computeMatrix is given).
    for (const metric of ['duration', 'distance'] as const) otherMetricArcCosts(router.graph, own.hierarchies[metric]);
    const engines = matrixEngines(router.car ?? router);
    const key = vehicleKey(own.vehicle);
    if (engines.classCliques.has(key) || !router.graph.hierarchy?.overlay?.fine) return;
    // Its cells' cliques for the overlay's many-to-many (matrices around zones), in its times.
    const roads = router.vehicleRoads(own.vehicle);
    const blocked = new Uint8Array(router.graph.roadCount);
    for (const list of [roads.forbidden, roads.destinationOnly]) for (let i = 0; i < list.length; i++) blocked[list[i]] = 1;
    const closed = [...roads.forbidden, ...roads.destinationOnly, ...(router.times?.retimed ?? [])];
    const overlay = engines.overlay();
    const made: ClassCliques = {
      duration: overlay.fixedCliques('duration', blocked, closed, router.times?.millis),
      distance: overlay.fixedCliques('distance', blocked, closed, router.times?.millis),
    };
    if (roads.destinationOnly.length > 0) {
      // The same cells for the searches that must drive its destination-only roads (a stop behind
      // them): those roads open at the zone penalty per metre, as Router.route charges them.
      const forbidden = new Uint8Array(router.graph.roadCount), charged = new Uint8Array(router.graph.roadCount);
      for (let i = 0; i < roads.forbidden.length; i++) forbidden[roads.forbidden[i]] = 1;
      for (let i = 0; i < roads.destinationOnly.length; i++) charged[roads.destinationOnly[i]] = 1;
      const penalty = { ...uniformPenalty(charged, ZONE_COST_PER_METRE), roadLists: [roads.destinationOnly] };
      const hardClosed = [...roads.forbidden, ...(router.times?.retimed ?? [])];
      made.priced = {
        duration: overlay.fixedCliques('duration', forbidden, hardClosed, router.times?.millis, penalty),
        distance: overlay.fixedCliques('distance', forbidden, hardClosed, router.times?.millis, penalty),
      };
    }
    engines.classCliques.set(key, made);
    return;
  }
  const engines = matrixEngines(router);
  const h = router.graph.hierarchy;
  if (!h) return;
  for (const metric of ['duration', 'distance'] as const) otherMetricArcCosts(router.graph, h[metric]);
  engines.buckets();
  if (h.overlay?.fine) engines.overlay();
}

/** Bytes of a prepared class's cliques for matrices (prepareMatrices): around its closed roads, and priced; 0 where not made. */
export function classMatrixCliqueBytes(router: MatrixRouter, vehicle: Vehicle): { cliques: number; priced: number } {
  const made = matrixEngines(router.car ?? router).classCliques.get(vehicleKey(vehicle));
  const bytes = (f?: FixedCliques) => (f ? [f.small, f.big].reduce((n, l) => n + l.cells.byteLength + l.first.byteLength + l.cost.byteLength + l.second.byteLength + (l.plain?.byteLength ?? 0), 0) : 0);
  return { cliques: bytes(made?.duration) + bytes(made?.distance), priced: bytes(made?.priced?.duration) + bytes(made?.priced?.distance) };
}

/** Scratch searches per router, made by prepareMatrices or at its first matrix, and reused by later ones. */
interface MatrixEngines {
  /** The CH buckets for free matrices (made at the first one). */
  buckets(): BucketManyToMany;
  /** The overlay's many-to-many around closed roads (made at the first matrix with some). */
  overlay(): OverlayManyToMany;
  /** A mask closing no road (made once). */
  noRoads(): Uint8Array;
  /** Vehicle classes' cells' cliques for the overlay's many-to-many (OverlayManyToMany.fixedCliques), by vehicleKey: made by prepareMatrices. */
  classCliques: Map<string, ClassCliques>;
}

/**
 * A class's cells' cliques per metric around its closed and destination-only roads; `priced`,
 * where it has destination-only roads, the same cells with those roads charged the zone penalty.
 */
type ClassCliques = Record<Metric, FixedCliques> & { priced?: Record<Metric, FixedCliques> };

const enginesByRouter = new WeakMap<MatrixRouter, MatrixEngines>();

function matrixEngines(router: MatrixRouter): MatrixEngines {
  let engines = enginesByRouter.get(router);
  if (!engines) {
    const graph = router.graph;
    let overlay: OverlayManyToMany | undefined, none: Uint8Array | undefined, buckets: BucketManyToMany | undefined;
    // Both many-to-manys and the router's route search run one at a time: one node state and one bucket index for all.
    let records: NodeRecords | undefined, bucketIndex: BucketIndex | undefined;
    const shared = () => {
      records ??= router.search instanceof HierarchySearch ? router.search.sides[0] : new NodeRecords(graph.nodeCount);
      bucketIndex ??= new BucketIndex(graph.nodeCount);
      return [records, bucketIndex] as const;
    };
    engines = {
      noRoads: () => (none ??= new Uint8Array(graph.roadCount)),
      buckets: () => (buckets ??= new BucketManyToMany(graph, ...shared())),
      overlay: () => (overlay ??= new OverlayManyToMany(graph, graph.hierarchy!.overlay as CellOverlay & { fine: CellOverlay }, ...shared())),
      classCliques: new Map(),
    };
    enginesByRouter.set(router, engines);
  }
  return engines;
}

interface PointSnap {
  snap?: Snap;
  failure?: MatrixFailure;
  /** The tiny component of the nearest road (whether or not the snap moved off it), else -1. */
  tiny: number;
}

/**
 * Snaps a matrix point as Router.route snaps a stop of that role (origins first, destinations
 * last). Which pairs share a tiny component (and so would stay in it in a route) is left to the
 * caller (`tiny`).
 */
function snapFor(router: MatrixRouter, point: LatLon, label: string, role: StopRole, prefer?: (road: number) => boolean): PointSnap {
  try {
    const choice = router.snapIndex.snapChoice(point?.latitude, point?.longitude, { maxDistance: router.maxSnapDistance, label, role, prefer });
    const tiny = router.snapIndex.inBigComponent(choice.nearest.road) ? -1 : choice.component;
    return { snap: choice.big ?? choice.nearest, tiny };
  } catch (err) {
    if (!(err instanceof DetourError) || err.code !== ErrorCode.POINT_NOT_ROUTABLE) throw err;
    return { failure: { code: err.code, message: err.message }, tiny: -1 };
  }
}

/**
 * A snapped stop's endpoints (leaving it, or arriving at it) with the other metric's cost of
 * their partial road beside the searched one, and with a penalty the cost without it (plain).
 */
function costed(graph: RoadGraph, snap: Snap, metric: Metric, leaving: boolean, penalty?: Penalty): CostedEndpoint[] {
  const endpoints = leaving ? sourceEndpoints(graph, snap, metric, penalty) : targetEndpoints(graph, snap, metric, penalty);
  const other = otherMetric(metric);
  const length = graph.roadMetres(snap.road);
  return endpoints.map((e: Endpoint) => {
    // A snap on a junction costs nothing; otherwise the part of the road between point and node.
    const metres = e.cost === 0 ? 0 : leaving === e.reversed ? snap.offset : length - snap.offset;
    return { node: e.node, cost: e.cost, second: partialCost(graph, snap.road, metres, other), plain: partialCost(graph, snap.road, metres, metric) };
  });
}

/** Errors that fail one element of a matrix, not the whole request. */
const ELEMENT_FAILURES = new Set<string>([ErrorCode.ROUTE_NOT_FOUND, ErrorCode.POINT_NOT_ROUTABLE, ErrorCode.AVOIDANCE_IMPOSSIBLE, ErrorCode.VEHICLE_NOT_ALLOWED]);

function noRoute(o: number, d: number): MatrixFailure {
  return {
    code: ErrorCode.ROUTE_NOT_FOUND,
    message: `no route for leg 0 (origins[${o}] to destinations[${d}]): no road connects them in the allowed directions`,
  };
}

/** INVALID_INPUT unless the request's origins and destinations are arrays. */
function checkStops(request: MatrixRequest): void {
  if (!Array.isArray(request.origins) || !Array.isArray(request.destinations)) {
    throw new DetourError(ErrorCode.INVALID_INPUT, 'a matrix needs origins and destinations as arrays of {latitude, longitude}');
  }
}

function emptyResult(request: MatrixRequest): MatrixResult {
  checkStops(request);
  const { origins, destinations } = request;
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
function routeElement(router: MatrixRouter, request: MatrixRequest, result: MatrixResult, i: number): void {
  try {
    // The router the matrix was made from picks the vehicle's own (its class's, with what was prepared for it).
    const route = (router.car ?? router).route(elementRequest(request, result, i));
    result.distance[i] = route.distance;
    result.duration[i] = route.duration;
  } catch (err) {
    setFailure(result, i, err);
  }
}

/** An element with no legal route: the error Router.route would throw for it, without searching again. */
function elementFailure(router: MatrixRouter, request: MatrixRequest, result: MatrixResult, i: number): void {
  let err: unknown;
  try {
    err = (router.car ?? router).unroutableLeg(elementRequest(request, result, i));
  } catch (thrown) {
    err = thrown;
  }
  setFailure(result, i, err);
}

/** Element i as a route request. */
function elementRequest(request: MatrixRequest, result: MatrixResult, i: number): RouteRequest {
  const o = Math.floor(i / result.destinationCount), d = i % result.destinationCount;
  return {
    points: [request.origins[o], request.destinations[d]],
    calculationMode: request.calculationMode,
    zones: request.zones,
    blockedRoads: request.blockedRoads,
    pointLabels: [`origins[${o}]`, `destinations[${d}]`],
    avoidanceTypes: request.avoidanceTypes,
    avoidanceBehavior: request.avoidanceBehavior,
    vehicle: request.vehicle,
    departure: request.departure,
  };
}

/** Records an element's failure; an error no element may have (a bug, bad input) is thrown. */
function setFailure(result: MatrixResult, i: number, err: unknown): void {
  if (!(err instanceof DetourError) || !ELEMENT_FAILURES.has(err.code)) throw err;
  result.failures.set(i, { code: err.code, message: err.message });
}

import { DetourError, ErrorCode } from '../errors.js';
import type { LatLon } from '../geo/coordinates.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { hierarchyNodeCount, type ContractionHierarchy, type HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import { overlayWithCliques, replacedCliques, type PenalisedCellCliques } from '../hierarchy/CellOverlay.js';
import { withSharedArrays } from '../graph/sharedGraph.js';
import { contractInOrder } from '../hierarchy/contractInOrder.js';
import { SnapIndex, type Snap, type StopRole } from '../graph/SnapIndex.js';
import { AStarSearch } from './AStarSearch.js';
import { EnclosureSearch } from './EnclosureSearch.js';
import { outsideLargestComponent } from '../graph/components.js';
import { HierarchySearch } from './HierarchySearch.js';
import { directCost, partialCost, sourceEndpoints, targetEndpoints } from './endpoints.js';
import { LegLine } from './LegLine.js';
import { NgraphSearch } from './NgraphSearch.js';
import { joinCellCliques, uniformPenalty, ZONE_COST_PER_METRE, type BlockedCellCliques, type Endpoint, type Penalty, type PathSearch } from './PathSearch.js';
import { CALCULATION_MODES, metricOf, type RoadMasks, type Route, type RouteLeg, type RouteRequest, type ZoneEntered } from './routeRequest.js';
import {
  AVOIDANCE_FLAGS, FlaggedRoads, metresOnAvoided, parseAvoidance, RELAXED_EXTRA_PER_METRE, STRONG_COST_PER_METRE,
  type Avoidance, type AvoidanceBehavior, type AvoidanceType, type AvoidedTypeDriven,
} from './avoidance.js';
import { lengthInside } from '../geo/lengthInside.js';
import { sortedIndexOf } from '../graph/csr.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { ZoneIndex } from '../zones/ZoneIndex.js';
import { computeMatrix, prepareMatrices, type MatrixRequest, type MatrixResult } from './matrix.js';
import { DEFAULT_ZONE_CLIQUE_BYTES, NO_ZONE_SET, ZoneCliques, type ZoneSetCliques } from './ZoneCliques.js';
import { departureOf, SCHEDULE_HORIZON_SECONDS, ScheduledZones, type ZoneWait } from './RoadSchedule.js';
import { legSteps } from './steps.js';
import { roadBearings } from '../graph/roadBearings.js';
import { Leg, NO_EDGE_ENDS, speedKmh, waitInSteps } from './Leg.js';
import { checkUsable, preparedVehicleLists, SoftZones, splitZones } from './requestZones.js';
import { STEP_LANGUAGES, wordSteps, type StepLanguage } from './stepTexts.js';
import { limitReason, vehicleClassCosts, speedRules, vehicleKey, vehicleRoads, vehicleSpeedsKey, zonesFor, type Vehicle, type VehicleRoads } from './vehicle.js';
import { roadTimes, type RoadTimes } from './roadTimes.js';


/**
 * Most routers with a vehicle's road times kept besides prepared ones (Router.timedRouter: 8 B per
 * road each, 52 MB on the 5M country; a fleet sends few distinct speed rules).
 */
const MAX_TIMED_ROUTERS = 4;

export interface RouterOptions {
  /**
   * 'ch' (HierarchySearch: the contraction hierarchy query for free routes, the cell overlay's A*
   * with CH potentials around blocked roads; the default when the graph has a hierarchy), 'astar'
   * (ALT A* on the roads, the default without one) or 'ngraph' (ngraph.path), or any PathSearch
   * (which must honour PathQuery.roadMillis: a vehicle's own road times).
   */
  engine?: 'ch' | 'astar' | 'ngraph' | PathSearch;
  /** Largest snapping distance in metres (default 1,000). */
  maxSnapDistance?: number;
  /** Reuse a snap index built elsewhere. */
  snapIndex?: SnapIndex;
  /** ALT landmarks for the 'astar' engine (default 16; 0 = straight-line heuristic only). */
  landmarks?: number;
  /** Most bytes of zones' customized cliques kept (prepareZones; default 128 MiB: about 6,000 zones of 1-5 km on the 5M country, with their shared and big cells). */
  zoneCliqueBytes?: number;
}

/**
 * Routes through ordered points on a RoadGraph: snaps each point to the nearest road, searches
 * each leg, and returns distances, durations and the geometry along the roads.
 */
export class Router {
  readonly graph: HierarchyGraph;
  readonly snapIndex: SnapIndex;
  readonly search: PathSearch;
  /** Largest snapping distance in metres (undefined: the SnapIndex default). */
  readonly maxSnapDistance?: number;
  /**
   * Per-road scratch masks reused by every request (allocated on first use) and cleared in
   * O(blocked roads) after it, so a request costs what its zones block, not the road count.
   */
  private zoneMask?: Uint8Array;
  private allMask?: Uint8Array;
  /** A vehicle's forbidden roads (and a caller's hard mask with them), same reuse rule. */
  private hardMask?: Uint8Array;
  /** The roads of the vehicles routed lately (vehicleRoads: O(limited roads) each), by their figures. */
  private readonly vehicles = new Map<string, VehicleRoads>();
  /** Vehicles prepareVehicle customized the overlay for, by their figures. */
  private preparedVehicles = new Map<string, VehicleRoads>();
  /** Routers of vehicle classes with hierarchies of their own (makeClassRouter), by vehicleKey. */
  private readonly classRouters = new Map<string, Router>();
  /** Classes' own hierarchies adopted before their cells were prepared, by vehicleKey. */
  private readonly classHierarchies = new Map<string, { vehicle: Vehicle; hierarchies: Record<Metric, ContractionHierarchy> }>();
  /** Scratch masks of avoidance requests (see avoidanceMasks), same reuse rule. */
  private readonly scratch: Uint8Array[] = [];
  private flaggedRoads?: FlaggedRoads;
  /** The polyline of the leg being assembled. */
  private readonly line: LegLine;
  /** Zones' customized cells (prepareZones). */
  private readonly cliques: ZoneCliques;
  /** Routers over the graph with a vehicle's slower road times (timedRouter), by their speeds' key; the most recently used last. */
  private readonly timedRouters = new Map<string, Router>();
  /** Road times adoptRoadTimes was given, by key. */
  private readonly adoptedTimes = new Map<string, RoadTimes>();
  /** Set on such a router: its graph's road times, and where they differ from the car's (the matrix reads them). */
  readonly times?: RoadTimes;
  /** Set on such a router: the router with the car's times it was made from. */
  readonly car?: Router;
  private readonly options: RouterOptions;

  /** `times`, `car`: for timedRouter only (the graph is then a view with those times). */
  constructor(graph: HierarchyGraph, options: RouterOptions = {}, times?: RoadTimes, car?: Router) {
    this.graph = graph;
    this.options = options;
    this.times = times;
    this.car = car;
    this.snapIndex = options.snapIndex ?? SnapIndex.for(graph);
    const engine = options.engine ?? (graph.hierarchy ? 'ch' : 'astar');
    this.search =
      engine === 'ch' ? new HierarchySearch(graph)
        : engine === 'astar' ? new AStarSearch(graph, { landmarks: options.landmarks })
          : engine === 'ngraph' ? new NgraphSearch(graph) : engine;
    this.maxSnapDistance = options.maxSnapDistance;
    // SOFT zones' penalised cliques are made with the graph's times and roads: a car's router only.
    this.cliques = new ZoneCliques(graph, this.search, options.zoneCliqueBytes ?? DEFAULT_ZONE_CLIQUE_BYTES, (zones, make) => this.withZoneRoads(zones, make), car === undefined);
    this.line = new LegLine(graph);
    void graph.roadMillis; // derived per road once, here rather than inside the first route
    roadBearings(graph); // adopted from the graph's indexes, or measured here rather than inside the first route with steps
  }

  /** Snaps a point; `label` names it in errors. */
  snap(point: LatLon, label: string): Snap {
    return this.snapIndex.snap(point?.latitude, point?.longitude, { maxDistance: this.maxSnapDistance, label });
  }

  /**
   * Snaps one stop for its role in a route (SnapIndex.snapChoice): its nearest road, unless a stop
   * there cannot leave towards (first), be reached from (last) or both (via) the main network;
   * then the nearest road in range that can.
   */
  snapStop(point: LatLon, label: string, role: StopRole): Snap {
    const c = this.snapIndex.snapChoice(point?.latitude, point?.longitude, { maxDistance: this.maxSnapDistance, label, role });
    return c.big ?? c.nearest;
  }

  /**
   * Snaps every stop as snapStop does (the first as 'first', the last as 'last', the others as
   * 'via'), except that stops all on one tiny strongly connected component stay there (they can
   * route inside it).
   */
  snapStops(points: LatLon[], labels: string[] = points.map((_, i) => `points[${i}]`), vehicle?: Vehicle): Snap[] {
    return this.snapIndex.snapStops(points, labels, this.maxSnapDistance, legalRoads(vehicle && this.vehicleRoads(vehicle)));
  }

  /** For a vehicle that has closed roads: whether it may use a road (stops snap to such roads first). */
  legalFor(vehicle?: Vehicle): ((road: number) => boolean) | undefined {
    return legalRoads(vehicle && this.vehicleRoads(vehicle));
  }

  route(request: RouteRequest): Route {
    const vehicleRouter = this.vehicleRouter(request.vehicle);
    if (vehicleRouter) return vehicleRouter.route(request);
    const mode = request.calculationMode ?? 'THE_FASTEST';
    if (!CALCULATION_MODES.includes(mode)) {
      throw new DetourError(ErrorCode.INVALID_MODE, `calculationMode must be one of ${CALCULATION_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
    }
    const points = request.points;
    if (!Array.isArray(points) || points.length < 2) {
      throw new DetourError(ErrorCode.TOO_FEW_POINTS, `a route needs at least 2 points, got ${Array.isArray(points) ? points.length : 0}`);
    }
    const language = stepLanguage(request.steps);
    const labels = stopLabels(request);
    const { hard: zones, soft: softZones } = splitZones(zonesFor(request.zones ?? [], request.vehicle));
    const avoidance = parseAvoidance(request.avoidanceTypes, request.avoidanceBehavior);
    if (softZones.length > 0 && avoidance.types.length > 0) {
      throw new DetourError(ErrorCode.UNSUPPORTED_FEATURE, 'SOFT zones with avoidanceTypes are not supported yet: name HARD zones, or no avoidance types', { members: ['avoidanceTypes'] });
    }
    checkUsable(softZones, this.graph.roadCount);
    const departure = departureOf(request.departure);
    const timedZones = zones.filter((z) => z.zone.schedule !== undefined);
    if (timedZones.length > 0 && (softZones.length > 0 || avoidance.types.length > 0)) {
      throw new DetourError(ErrorCode.UNSUPPORTED_FEATURE, 'zones with a schedule together with SOFT zones or avoidanceTypes are not supported yet: name them in separate routes', { members: ['zones'] });
    }
    // Before any scratch mask is marked: masks() would throw it too, after ScheduledZones marked one.
    checkUsable(zones, this.graph.roadCount);
    // Cliques prepareZones made for these zones; cells of zones it did not prepare are walked.
    const shared = zones.length > 0 ? this.cliques.prepare(timedZones.length > 0 ? zones.filter((z) => !z.zone.schedule) : zones, 0) : NO_ZONE_SET;
    const vehicle = request.vehicle ? this.vehicleRoads(request.vehicle) : undefined;
    // Made before the masks: should it throw, no scratch mask is left marked.
    const soft = softZones.length > 0 ? new SoftZones(softZones, () => this.scratch.pop() ?? new Uint8Array(this.graph.roadCount)) : undefined;
    const timed = timedZones.length > 0 ? new ScheduledZones(timedZones, departure, this.scratch.pop() ?? new Uint8Array(this.graph.roadCount)) : undefined;
    const masks = this.masks(zones, request.blockedRoads, vehicle);
    const legs: RouteLeg[] = [];
    const avoiding = avoidance.types.length > 0 ? this.avoidanceMasks(masks, avoidance) : undefined;
    const timedBlocked = timed && this.timedMasks(masks, timed, zones, metricOf(mode));
    // Where each edge ends in a leg's points: what its steps read, recorded only for them.
    this.line.recordEnds = language !== undefined;
    try {
      const snaps = this.legalSnaps(points, labels, vehicle);
      for (let i = 0; i + 1 < snaps.length; i++) {
        // Each leg leaves when the one before arrives.
        if (timed) timed.offset = legs.reduce((sum, l) => sum + l.duration, 0);
        try {
          legs.push(avoiding
            ? this.avoidingLeg(snaps[i], snaps[i + 1], metricOf(mode), masks, avoiding, zones, i, labels)
            : this.leg(snaps[i], snaps[i + 1], metricOf(mode), masks, zones, i, labels, shared, soft, timed && { zones: timed, blocked: timedBlocked!.mask }));
        } catch (err) {
          throw vehicle && err instanceof DetourError && err.code === ErrorCode.ROUTE_NOT_FOUND ? this.vehicleBlocks(snaps[i], snaps[i + 1], metricOf(mode), vehicle, i, labels) ?? err : err;
        }
      }
    } finally {
      if (avoiding) this.releaseAvoidanceMasks(avoiding, masks);
      if (timedBlocked) this.releaseTimedMasks(timedBlocked, masks, timed!);
      this.releaseMasks(masks);
      if (soft) this.scratch.push(...soft.release(masks.softLists));
      if (timed) this.scratch.push(timed.release());
    }
    if (language) {
      legs.forEach((leg, i) => {
        const steps = legSteps(this.graph, leg as Leg, i === legs.length - 1);
        if (leg.waits) waitInSteps(steps, leg as Leg);
        wordSteps(steps, language, i, legs.length, this.graph.roadLabel);
        leg.steps = steps;
      });
    }
    const distance = legs.reduce((s, l) => s + l.distance, 0);
    const duration = legs.reduce((s, l) => s + l.duration, 0);
    return {
      distance, duration, averageSpeed: speedKmh(distance, duration), legs, ...(request.vehicle && { vehicle: request.vehicle }),
      ...((request.departure !== undefined || timed) && { departure: new Date(departure).toISOString() }),
    };
  }

  /**
   * The error route() throws for a two-point request whose leg has no legal route (a matrix's
   * search found none, with the rule route() follows), without searching for that route again:
   * which of the vehicle's limits a car's route would break (VEHICLE_NOT_ALLOWED), else
   * ROUTE_NOT_FOUND; a stop's own errors as route() throws them.
   */
  unroutableLeg(request: RouteRequest): DetourError {
    const vehicleRouter = this.vehicleRouter(request.vehicle);
    if (vehicleRouter) return vehicleRouter.unroutableLeg(request);
    const points = request.points;
    if (points.length !== 2) throw new DetourError(ErrorCode.INVALID_INPUT, `unroutableLeg takes one leg (2 points), got ${points.length}`);
    const labels = stopLabels(request);
    const vehicle = request.vehicle ? this.vehicleRoads(request.vehicle) : undefined;
    const snaps = this.legalSnaps(points, labels, vehicle);
    if (!vehicle) return noRoute(0, labels);
    return this.vehicleBlocks(snaps[0], snaps[1], metricOf(request.calculationMode ?? 'THE_FASTEST'), vehicle, 0, labels) ?? noRoute(0, labels);
  }

  /**
   * The mask a request with scheduled zones searches with first: the hard roads and the other
   * zones' (and a vehicle's destination-only roads); for THE_SHORTEST also the scheduled roads
   * that never open long enough to drive them within the horizon (others it drives, waiting as
   * needed). Undefined when it blocks nothing. Release with releaseTimedMasks.
   */
  private timedMasks(masks: RoadMasks, timed: ScheduledZones, zones: CalculatedZone[], metric: Metric): { mask?: Uint8Array; whole: boolean } {
    const untimed = masks.softLists.filter((_, i) => i >= zones.length || zones[i].zone.schedule === undefined);
    const never: number[] = [];
    if (metric === 'distance') {
      const millis = this.graph.roadMillis;
      for (const list of timed.roadLists) for (let i = 0; i < list.length; i++) if (!timed.passable(timed.roads[list[i]], millis[list[i]] * 0.001)) never.push(list[i]);
    }
    if (!masks.hard && untimed.length === 0 && never.length === 0) return { whole: false };
    const mask = this.scratch.pop() ?? new Uint8Array(this.graph.roadCount);
    if (masks.hard) mask.set(masks.hard.subarray(0, mask.length));
    for (const list of untimed) for (let i = 0; i < list.length; i++) mask[list[i]] = 1;
    for (const r of never) mask[r] = 1;
    return { mask, whole: masks.hard !== undefined };
  }

  private releaseTimedMasks(made: { mask?: Uint8Array; whole: boolean }, masks: RoadMasks, timed: ScheduledZones): void {
    const mask = made.mask;
    if (!mask) return;
    if (made.whole) mask.fill(0);
    else {
      for (const list of masks.softLists) for (let i = 0; i < list.length; i++) mask[list[i]] = 0;
      for (const list of timed.roadLists) for (let i = 0; i < list.length; i++) mask[list[i]] = 0;
    }
    this.scratch.push(mask);
  }

  /**
   * Distances (m) and durations (s) from every origin to every destination, avoiding the zones
   * as route() does. Elements without a route are NaN with the reason in `failures`.
   */
  matrix(request: MatrixRequest): MatrixResult {
    return computeMatrix(this.timedRouter(request.vehicle) ?? this, request);
  }

  /**
   * Makes what matrices use ahead (their searches' scratch, the hierarchies' arc costs in the other
   * metric: seconds on a country; for each vehicle class with hierarchies of its own, adopted now
   * or later, prepareClassMatrices'), so the first matrix does not wait for it; matrix() makes
   * what is missing otherwise, except a class's cliques (its matrices around zones customize its
   * cells for each request without them).
   */
  prepareMatrices(): void {
    prepareMatrices(this);
    this.matricesPrepared = true;
    for (const vehicle of this.ownHierarchyVehicles()) this.prepareClassMatrices(vehicle);
  }

  /** Set by prepareMatrices: vehicle classes adopted later get their matrices' arrays made at once. */
  private matricesPrepared = false;

  /** A vehicle class's own hierarchies (adoptVehicleHierarchies'), undefined for a vehicle without. */
  ownHierarchies(vehicle: Vehicle): Record<Metric, ContractionHierarchy> | undefined {
    if (this.car) return this.car.ownHierarchies(vehicle);
    const key = vehicleKey(vehicle);
    const router = this.classRouters.get(key);
    if (router) return { duration: router.graph.hierarchy!.duration, distance: router.graph.hierarchy!.distance };
    return this.classHierarchies.get(key)?.hierarchies;
  }

  /**
   * What a class's matrices use, in its times (on the router its matrices run on: Router.matrix):
   * its own hierarchies' arc costs in the other metric, and its cells' cliques for matrices around
   * zones (OverlayManyToMany.fixedCliques).
   */
  private prepareClassMatrices(vehicle: Vehicle): void {
    const hierarchies = this.ownHierarchies(vehicle);
    if (hierarchies) prepareMatrices(this.timedRouter(vehicle, true) ?? this, { vehicle, hierarchies });
  }

  private ownHierarchyVehicles(): Vehicle[] {
    return [...[...this.classRouters.values()].map((r) => r.classRoads!.vehicle), ...[...this.classHierarchies.values()].map((c) => c.vehicle)];
  }

  /**
   * Customizes the cells each zone touches (PathSearch.customize: cliques without the zone's
   * roads), once per zone object, so routes around it cross them instead of walking their roads.
   * A service calls it once a zone is calculated (on its trip threads: TripThreads); route() only uses what it
   * made, and walks the cells of zones it did not prepare (exact either way). Zones that cannot be used
   * (masks() says why), block no road, touch over MAX_CUSTOMIZED_CELLS cells or a cell with many
   * entries (a uniform grid's: OverlaySearch.MAX_CUSTOMIZED_ENTRIES) are left alone: routes walk
   * their cells' roads, as exact (and on such cells as fast). A cell two or more of the given zones
   * touch is customized once for exactly those zones together (PathQuery.sharedCellCliques), kept
   * in the same bounds: routes naming the same zones cross it too; a cell other zones also touch
   * is walked. Then each big cell holding customized cells of the given zones, for exactly the
   * zones whose cells it holds (PathQuery.bigCellCliques; one zone's alone when given one): routes
   * whose zones in that big cell are exactly those, and no stop, cross it by one clique.
   */
  prepareZones(zones: readonly CalculatedZone[], maxCells = Infinity): void {
    this.cliques.prepare(zones, maxCells);
    // Each class's router customizes them again, around its own roads and in its own times.
    for (const router of this.classRouters.values()) router.cliques.prepare(zones, maxCells);
  }

  /**
   * Whether prepareZones may customize cells for the zone: the engine customizes, cliques may be
   * kept, and the zone is calculated on this graph with roads to block.
   */
  canCustomize(zone: CalculatedZone): boolean {
    return this.cliques.canCustomize(zone);
  }

  /** Lets go of what prepareZones made for the zone (it was deleted or replaced). */
  forgetZone(zone: CalculatedZone): void {
    this.cliques.forget(zone);
    for (const router of this.classRouters.values()) router.cliques.forget(zone);
  }

  /** `make`'s result, given the router's zone mask with the zones' roads set (all zero again after). */
  private withZoneRoads<T>(zones: readonly CalculatedZone[], make: (mask: Uint8Array) => T): T {
    const closed = this.classMasks?.all;
    if (closed) {
      // A class's router customizes around its own closed and destination-only roads too.
      const mask = this.scratch.pop() ?? new Uint8Array(this.graph.roadCount);
      mask.set(closed);
      for (const z of zones) for (let i = 0; i < z.roads.length; i++) mask[z.roads[i]] = 1;
      try {
        return make(mask);
      } finally {
        mask.fill(0);
        this.scratch.push(mask);
      }
    }
    // The zone mask is all zero between requests (releaseMasks); used here before masks() fills it.
    const mask = (this.zoneMask ??= new Uint8Array(this.graph.roadCount));
    for (const z of zones) for (let i = 0; i < z.roads.length; i++) mask[z.roads[i]] = 1;
    try {
      return make(mask);
    } finally {
      for (const z of zones) for (let i = 0; i < z.roads.length; i++) mask[z.roads[i]] = 0;
    }
  }

  /** Zones, shared cells and big cells whose customized cliques prepareZones keeps, and their bytes. */
  get preparedZones(): { zones: number; sharedCells: number; bigCells: number; bytes: number } {
    return this.cliques.held;
  }

  /**
   * The roads a stop may make usable (`zone`: the zones' and the vehicle's destination-only
   * roads), those never used (`hard`: the caller's mask and the vehicle's closed roads), and their
   * union (`all`); each undefined when empty, with the lists they are made of. The masks are the
   * router's scratch masks with only those roads set (O(blocked roads)); only a caller's own
   * full-size hard mask costs a copy per road. Throws ZONE_NOT_READY / ZONE_NOT_USABLE for zones a
   * route cannot use. Call releaseMasks(masks) afterwards (the matrix uses these too).
   */
  masks(zones: CalculatedZone[], hard?: Uint8Array, vehicle?: VehicleRoads): RoadMasks {
    checkUsable(zones, this.graph.roadCount);
    const fixed = this.classMasks;
    if (fixed?.all && vehicle && !hard) {
      const softLists: ArrayLike<number>[] = zones.map((z) => z.roads);
      if (vehicle.destinationOnly.length > 0) softLists.push(vehicle.destinationOnly);
      const out: RoadMasks = { ...fixed, softLists, hardLists: vehicle.forbidden.length > 0 ? [vehicle.forbidden] : [], vehicle };
      if (zones.length === 0) return out;
      // The zones' roads join the class's fixed masks in place (O(zone roads), cleared in releaseMasks).
      const zone = (out.zone ??= (this.zoneMask ??= new Uint8Array(this.graph.roadCount)));
      const added: ClassMaskRoads = { zone: [], all: [] };
      for (const z of zones) {
        for (let i = 0; i < z.roads.length; i++) {
          const r = z.roads[i];
          if (zone[r] === 0) { zone[r] = 1; added.zone.push(r); }
          if (fixed.all[r] === 0) { fixed.all[r] = 1; added.all.push(r); }
        }
      }
      this.classMasksAdded.set(out, added);
      return out;
    }
    const softLists: ArrayLike<number>[] = zones.map((z) => z.roads);
    if (vehicle && vehicle.destinationOnly.length > 0) softLists.push(vehicle.destinationOnly);
    let hardLists: ArrayLike<number>[] | undefined = hard ? undefined : [];
    if (vehicle && vehicle.forbidden.length > 0) {
      // The vehicle's forbidden roads join the caller's mask in the router's scratch (cleared in releaseMasks).
      const mask = (this.hardMask ??= new Uint8Array(this.graph.roadCount));
      if (hard) mask.set(hard.subarray(0, mask.length));
      for (let i = 0; i < vehicle.forbidden.length; i++) mask[vehicle.forbidden[i]] = 1;
      hardLists?.push(vehicle.forbidden);
      hard = mask;
    }
    if (softLists.length === 0) return { hard, all: hard, softLists, hardLists, vehicle };
    const zone = (this.zoneMask ??= new Uint8Array(this.graph.roadCount));
    for (const list of softLists) for (let i = 0; i < list.length; i++) zone[list[i]] = 1;
    if (!hard) return { zone, all: zone, softLists, hardLists, vehicle };
    const all = (this.allMask ??= new Uint8Array(this.graph.roadCount));
    all.set(hard.subarray(0, all.length));
    if (hard.length < all.length) all.fill(0, hard.length);
    for (const list of softLists) for (let i = 0; i < list.length; i++) all[list[i]] = 1;
    return { zone, hard, all, softLists, hardLists, vehicle };
  }

  /** Clears what masks() set in the router's scratch masks (the union mask is overwritten on each use). */
  releaseMasks(masks: RoadMasks): void {
    if (masks.all !== undefined && masks.all === this.classMasks?.all) {
      const added = this.classMasksAdded.get(masks);
      if (!added) return;
      this.classMasksAdded.delete(masks);
      for (const r of added.zone) masks.zone![r] = 0;
      for (const r of added.all) masks.all[r] = 0;
      return;
    }
    const zone = this.zoneMask;
    if (zone) for (const list of masks.softLists) for (let i = 0; i < list.length; i++) zone[list[i]] = 0;
    if (masks.hard !== undefined && masks.hard === this.hardMask) {
      if (masks.hardLists) for (const list of masks.hardLists) for (let i = 0; i < list.length; i++) masks.hard[list[i]] = 0;
      else masks.hard.fill(0);
    }
  }

  /**
   * Prepares routes for a vehicle class (a service does it for Maplink's types when it starts):
   * the overlay's cells its closed, destination-only and slower roads touch get cliques around
   * them in its times (preparingVehicle), and it gets hierarchies of its own (vehicleHierarchies);
   * its routes then run on both (adoptVehicleHierarchies), with the zones this router prepared
   * customized for it too. Routes for vehicles not prepared walk those cells, as exact.
   */
  prepareVehicle(vehicle: Vehicle): void {
    for (const step of this.preparingVehicle(vehicle, Infinity)) void step;
    const key = vehicleKey(vehicle);
    if (!this.classRouters.has(key) && !this.classHierarchies.has(key)) {
      const hierarchies = this.vehicleHierarchies(vehicle);
      if (hierarchies) this.adoptVehicleHierarchies(vehicle, hierarchies);
    }
    const own = this.classRouters.get(key);
    if (own) for (const set of this.cliques.preparedSets) own.prepareZones(set);
  }

  /**
   * A vehicle class's own hierarchies: both metrics contracted in the order of the graph's own,
   * over the vehicle's road times without its closed and destination-only roads (vehicleClassCosts,
   * contractInOrder; about the size of the graph's). Undefined for an engine other than the
   * hierarchy's, or a vehicle that drives every road as a car does. A service makes them once on a
   * worker thread (vehicleHierarchiesInWorker) and hands them to its routing threads.
   */
  vehicleHierarchies(vehicle: Vehicle): Record<Metric, ContractionHierarchy> | undefined {
    if (this.car || !(this.search instanceof HierarchySearch)) return undefined;
    const costs = vehicleClassCosts(this.graph, vehicle, this.timedRouter(vehicle, true)?.times);
    return costs && contractInOrder(this.graph, costs);
  }

  /**
   * Takes a vehicle class's own hierarchies (vehicleHierarchies'): once the class's cells are
   * prepared too (preparingVehicle; at once if they are), its routes run on a router of its own
   * (makeClassRouter). Zones prepared before that are not customized for it (classZonesToPrepare
   * lists them).
   */
  adoptVehicleHierarchies(vehicle: Vehicle, hierarchies: Record<Metric, ContractionHierarchy>): void {
    if (this.car || !this.graph.hierarchy || !(this.search instanceof HierarchySearch)) return;
    for (const metric of ['duration', 'distance'] as const) {
      if (hierarchyNodeCount(hierarchies[metric]) !== this.graph.nodeCount) {
        throw new DetourError(ErrorCode.INVALID_INPUT, `a vehicle class's ${metric} hierarchy of ${hierarchyNodeCount(hierarchies[metric])} nodes for a graph of ${this.graph.nodeCount}`);
      }
    }
    this.classHierarchies.set(vehicleKey(vehicle), { vehicle, hierarchies });
    this.makeClassRouter(vehicle);
    if (this.matricesPrepared) this.prepareClassMatrices(vehicle);
  }

  /** Vehicle classes routed on routers of their own (hierarchies adopted and cells prepared). */
  get vehicleClasses(): number {
    return this.classRouters.size;
  }

  /** The zone sets this router prepared (prepareZones: ZoneCliques.preparedSets), for a class's router made after them to prepare too. */
  get classZonesToPrepare(): CalculatedZone[][] {
    return this.cliques.preparedSets;
  }

  /** Prepares a zone set for the vehicle class's own router only (one this router prepared before the class was ready). */
  prepareClassZones(vehicle: Vehicle, zones: readonly CalculatedZone[]): void {
    this.classRouters.get(vehicleKey(vehicle))?.prepareZones(zones);
  }

  /**
   * A class's own router, once its hierarchies are adopted and its cells prepared: over the graph
   * with its road times (timedRouter's view), its hierarchies and the overlay with its cells'
   * cliques (overlayWithCliques), so its routes cross every cell as a car's route crosses free
   * ones, and the zones' cells by cliques customized for it (its own ZoneCliques). It shares this
   * router's search state and snap index.
   */
  private makeClassRouter(vehicle: Vehicle): void {
    const key = vehicleKey(vehicle);
    const own = this.classHierarchies.get(key), h = this.graph.hierarchy;
    const base = this.timedRouter(vehicle, true) ?? this;
    const roads = base.preparedVehicles.get(key);
    // Without the class's cliques (an overlay of one level: nothing customized) the overlay's own would cross its closed roads.
    if (!own || !roads?.prepared?.overlay || !h?.overlay || this.classRouters.has(key)) return;
    const overlay = overlayWithCliques(h.overlay, roads.prepared.overlay);
    const view: HierarchyGraph = Object.create(base.graph);
    view.hierarchy = { ...own.hierarchies, overlay };
    const search = new HierarchySearch(view, overlay, undefined, this.search as HierarchySearch);
    const router = new Router(view, { ...this.options, engine: search, snapIndex: this.snapIndex }, base.times, this);
    router.preparedVehicles = base.preparedVehicles;
    router.classOf = base;
    router.classRoads = roads;
    router.classMasks = closedMasks(this.graph.roadCount, roads);
    const penalised = roads.prepared.penalised;
    if (penalised) {
      // Legs that must drive destination-only roads: the graph's hierarchies (a car's, a lower bound
      // of what those roads cost) as the potential, over the class's overlay with their cells
      // crossed by penalised cliques.
      const carView: HierarchyGraph = Object.create(this.graph);
      carView.hierarchy = { ...h, overlay };
      const fallback = new HierarchySearch(carView, overlay, undefined, this.search as HierarchySearch);
      router.penalisedFallback = { search: fallback, cliques: penalised };
      const enclosed = roads.prepared.enclosed;
      if (enclosed) {
        // Legs whose stops lie behind those roads: two small searches and one query of its
        // hierarchies (around zones, of its own search), the fallback where that is not proven cheapest.
        router.enclosure = new EnclosureSearch(view, enclosed, search.free, fallback.free, search.sides, fallback, roads.destinationOnly, ZONE_COST_PER_METRE);
      }
    }
    this.classRouters.set(key, router);
    this.classHierarchies.delete(key);
  }

  /** The router a vehicle's routes run on: its class's (makeClassRouter), else its speeds' (timedRouter); undefined: this one. */
  private vehicleRouter(vehicle: Vehicle | undefined): Router | undefined {
    if (!vehicle || this.car) return undefined;
    return this.classRouters.get(vehicleKey(vehicle)) ?? this.timedRouter(vehicle);
  }

  /**
   * prepareVehicle in steps of about `stepMillis` of work each, a cell at a time: a service's trip
   * thread takes one step per turn of its loop, so a trip waits for a step, not for a whole class
   * (25 s on the 5M country). Until the last step the vehicle's routes walk its cells, as exact.
   */
  *preparingVehicle(vehicle: Vehicle, stepMillis = 20): Generator<void, void, undefined> {
    const timedRouter = this.timedRouter(vehicle, true);
    if (timedRouter) {
      yield* timedRouter.preparingVehicle(vehicle, stepMillis);
      this.makeClassRouter(vehicle);
      return;
    }
    const key = vehicleKey(vehicle);
    if (this.preparedVehicles.has(key)) return;
    const roads = vehicleRoads(this.graph, vehicle);
    const closed = Uint32Array.from([...roads.forbidden, ...roads.destinationOnly]).sort();
    // With slower road times, the cells of the roads they slow get cliques in those times too.
    const touched = this.times ? mergeAscending(closed, this.times.retimed) : closed;
    const search = this.search, millis = this.times?.millis;
    const cells = touched.length > 0 && search.customizeCells ? search.cellsOf?.(touched) : undefined;
    if (cells && cells.length > 0) {
      // Masks of its own: routes between the steps use the router's scratch masks.
      const mask = new Uint8Array(this.graph.roadCount);
      for (let i = 0; i < closed.length; i++) mask[closed[i]] = 1;
      const forbidden = new Uint8Array(this.graph.roadCount), destination = new Uint8Array(this.graph.roadCount);
      for (let i = 0; i < roads.forbidden.length; i++) forbidden[roads.forbidden[i]] = 1;
      for (let i = 0; i < roads.destinationOnly.length; i++) destination[roads.destinationOnly[i]] = 1;
      const destinationCells = new Set(roads.destinationOnly.length > 0 ? search.cellsOf!(roads.destinationOnly) : []);
      let since = performance.now();
      const pause = () => { if (performance.now() - since < stepMillis) return false; since = performance.now(); return true; };
      const parts: BlockedCellCliques[] = [], penalised: PenalisedCellCliques[] = [];
      for (let j = 0; j < cells.length; j++) {
        const part = search.customizeCells!(Uint32Array.of(cells[j]), mask, millis);
        if (!part) return;
        parts.push(part);
        // A leg that must drive destination-only roads crosses their cells by cliques that drive them at the zone penalty.
        const charged = destinationCells.has(cells[j]) ? search.penaliseCells?.(Uint32Array.of(cells[j]), forbidden, destination, ZONE_COST_PER_METRE, millis) : undefined;
        if (charged) penalised.push(charged);
        if (pause()) yield;
      }
      const cliques = joinCellCliques(parts)!;
      const bigCliques: BlockedCellCliques[] = [];
      const bigCells = new Set<number>();
      for (const c of cliques.cells) { const b = search.bigCellOf?.(c); if (b !== undefined) bigCells.add(b); }
      for (const b of bigCells) {
        // Every one, however many entries (a class's router crosses its big cells by these alone).
        const big = search.customizeBigCells?.(Uint32Array.of(b), mask, [cliques], [], millis, Infinity);
        if (big) bigCliques.push(big);
        if (pause()) yield;
      }
      const overlay = this.graph.hierarchy?.overlay;
      // What its destination-only roads enclose, for legs with a stop behind them (EnclosureSearch).
      let enclosed: Uint8Array | undefined;
      if (roads.destinationOnly.length > 0) enclosed = yield* outsideLargestComponent(this.graph, mask, pause);
      roads.prepared = {
        closed: touched, cliques, bigCliques, penalised: penalised.length === destinationCells.size ? joinCellCliques(penalised) : undefined,
        overlay: overlay && replacedCliques(overlay, cliques, bigCliques), ...(enclosed && { enclosed }),
      };
    }
    // On shared memory, so a service's other trip threads adopt these (adoptVehicleRoads) instead of making their own.
    this.preparedVehicles.set(key, withSharedArrays(roads));
    if (!this.car) this.makeClassRouter(vehicle);
  }

  /** A vehicle class's prepared roads and cells (preparingVehicle's, on shared memory), for another router over the same graph to adopt; undefined until prepared. */
  preparedVehicleRoads(vehicle: Vehicle): VehicleRoads | undefined {
    return (this.timedRouter(vehicle, true) ?? this).preparedVehicles.get(vehicleKey(vehicle));
  }

  /**
   * Takes a vehicle class's prepared roads and cells from another router over the same graph
   * (preparedVehicleRoads'; a service's first trip thread prepares each class, the others adopt
   * it): as if this router had prepared it, without the work or a copy of the cliques.
   */
  adoptVehicleRoads(roads: VehicleRoads): void {
    if (this.car) return;
    const { vehicle, prepared } = roads;
    if (prepared && prepared.closed.some((r) => r >= this.graph.roadCount)) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `a vehicle class's roads for another graph (${this.graph.roadCount} roads here)`);
    }
    const base = this.timedRouter(vehicle, true) ?? this;
    const key = vehicleKey(vehicle);
    if (!base.preparedVehicles.has(key)) base.preparedVehicles.set(key, roads);
    this.makeClassRouter(vehicle);
  }

  /**
   * The router for a vehicle slower than a car somewhere (a heavy vehicle, speed preferences):
   * over a view of the graph with its road times (RoadGraph.withRoadTimes, roadTimes: O(roads)
   * once per distinct speeds), sharing this router's search and snap index; undefined for a car's
   * speeds. Its searches pass the times (PathQuery.roadMillis), so the graph's hierarchy and
   * overlay serve as lower bounds; zones' cliques are a car's, so its routes walk the zones'
   * cells. The last few are kept (a fleet sends few distinct speeds), prepared ones always.
   */
  timedRouter(vehicle: Vehicle | undefined, keep = false): Router | undefined {
    if (this.car) return undefined;
    const key = vehicleSpeedsKey(vehicle);
    if (key === undefined) return undefined;
    let router = this.timedRouters.get(key);
    if (router) { this.timedRouters.delete(key); this.timedRouters.set(key, router); return router; }
    const times = this.adoptedTimes.get(key) ?? roadTimes(this.graph, speedRules(vehicle!));
    if (!times) return undefined;
    const view = this.graph.withRoadTimes(times.speedKmh, times.millis);
    const name = this.search.name;
    const engine = name === 'astar' ? new AStarSearch(view, { landmarks: this.options.landmarks }) : name === 'ngraph' ? new NgraphSearch(view) : this.search;
    router = new Router(view, { ...this.options, engine, snapIndex: this.snapIndex, zoneCliqueBytes: 0 }, times, this);
    if (keep) router.kept = true;
    this.timedRouters.set(key, router);
    for (const [k, r] of this.timedRouters) {
      if (this.timedRouters.size <= MAX_TIMED_ROUTERS) break;
      if (!r.kept) this.timedRouters.delete(k);
    }
    return router;
  }

  /** A timed router prepareVehicle made: never let go. */
  private kept = false;
  /** Set on a class's router (adoptVehicleHierarchies): the router over the same times with the graph's hierarchies. */
  private classOf?: Router;
  /** With classOf: the roads the class's hierarchies lack. */
  private classRoads?: VehicleRoads;
  /** With classOf, when its destination-only roads' cells have penalised cliques: the search that crosses them (makeClassRouter). */
  private penalisedFallback?: { search: PathSearch; cliques: PenalisedCellCliques };
  /** With penalisedFallback, where the class has destination-only roads: its legs that must drive them, without SOFT or scheduled zones (EnclosureSearch). */
  private enclosure?: EnclosureSearch;
  /** With classOf: masks() of the class's routes without zones or a caller's mask, made once (a mask per road costs more than a free route to fill). */
  private classMasks?: Pick<RoadMasks, 'hard' | 'zone' | 'all'>;
  /** The roads masks() set in classMasks for a request's zones, by its masks (releaseMasks clears them). */
  private readonly classMasksAdded = new WeakMap<RoadMasks, ClassMaskRoads>();

  /** Road times made elsewhere for this graph (a service's main thread, on shared memory): timedRouter takes them instead of making its own. */
  adoptRoadTimes(times: RoadTimes): void {
    if (times.millis.length !== this.graph.roadCount) throw new DetourError(ErrorCode.INVALID_INPUT, `road times of ${times.millis.length} roads for a graph of ${this.graph.roadCount}`);
    this.adoptedTimes.set(times.key, times);
  }

  /** The roads closed to a vehicle: prepared (prepareVehicle), or kept for the last few vehicles routed (a fleet sends few distinct ones). */
  vehicleRoads(vehicle: Vehicle): VehicleRoads {
    // A vehicle with its own speeds is prepared by its timed router (the cliques are in its times).
    const key = vehicleKey(vehicle);
    const timed = this.car ? undefined : this.classRouters.get(key) ?? this.timedRouters.get(vehicleSpeedsKey(vehicle) ?? '');
    if (timed) return timed.vehicleRoads(vehicle);
    let roads = this.preparedVehicles.get(key) ?? this.vehicles.get(key);
    if (!roads) {
      roads = vehicleRoads(this.graph, vehicle);
      if (this.vehicles.size >= 32) this.vehicles.delete(this.vehicles.keys().next().value!);
      this.vehicles.set(key, roads);
    }
    return roads;
  }

  /** Why the vehicle may not use a road (limitReason), undefined when it may. */
  private closedBecause(road: number, vehicle: VehicleRoads): string | undefined {
    const limits = this.graph.roadLimits(road);
    return limits && limitReason(limits, vehicle.vehicle);
  }

  /** The stops snapped as route() snaps them: to the vehicle's legal roads first, VEHICLE_NOT_ALLOWED for one left on a closed road. */
  private legalSnaps(points: LatLon[], labels: string[], vehicle: VehicleRoads | undefined): Snap[] {
    const snaps = this.snapIndex.snapStops(points, labels, this.maxSnapDistance, legalRoads(vehicle));
    if (vehicle) snaps.forEach((s, i) => this.checkStopLegal(s, vehicle, i, labels[i]));
    return snaps;
  }

  /** VEHICLE_NOT_ALLOWED when a stop lies on a road closed to the vehicle (no route may start or end there). */
  private checkStopLegal(snap: Snap, vehicle: VehicleRoads, index: number, label: string): void {
    const reason = this.closedBecause(snap.road, vehicle);
    if (reason) {
      throw new DetourError(ErrorCode.VEHICLE_NOT_ALLOWED, `${label} lies on a road closed to the vehicle (${vehicle.vehicle.type}): ${reason}`, { point: label, leg: Math.max(0, index - 1), limits: [reason] });
    }
  }

  /**
   * VEHICLE_NOT_ALLOWED for a leg with no route legal for the vehicle that a car could drive,
   * naming the limits the car's route would break; undefined when the car has no route either
   * (the leg's own error stands).
   */
  private vehicleBlocks(from: Snap, to: Snap, metric: Metric, vehicle: VehicleRoads, index: number, labels: string[]): DetourError | undefined {
    const reasonOf = (road: number) => this.closedBecause(road, vehicle);
    const name = vehicle.vehicle.type;
    // A car's route in a car's times: the graph's own hierarchy has every road and answers at once.
    const car = (this.car ?? this).searchLeg(from, to, metric);
    if (!car) return undefined;
    const reasons = [...new Set(car.edges.map((e) => reasonOf(this.graph.edgeRoad[e])).filter((r): r is string => r !== undefined))];
    return new DetourError(
      ErrorCode.VEHICLE_NOT_ALLOWED,
      `no route for leg ${index} (${labels[index]} to ${labels[index + 1]}) is legal for the vehicle (${name}); a car's route crosses ${reasons.join('; ') || 'roads closed to it'}`,
      { leg: index, limits: reasons },
    );
  }

  /**
   * One leg: first around every blocked road; when a stop lies on a blocked road or can only be
   * reached through blocked roads, the route that drives the fewest metres on blocked roads (then
   * the cheapest), reporting the zones entered.
   */
  private leg(
    from: Snap, to: Snap, metric: Metric, masks: RoadMasks, zones: CalculatedZone[], index: number, labels: string[],
    shared: ZoneSetCliques, soft?: SoftZones, timed?: { zones: ScheduledZones; blocked?: Uint8Array },
  ): RouteLeg {
    const { zone, hard } = masks;
    // Scheduled zones' roads are driven when they are open (a stop's own road at any time): the
    // first search blocks only the other roads; should it fail, they count as zones to enter.
    const all = timed ? timed.blocked : masks.all;
    const inZone = (r: number) => zone !== undefined && zone[r] === 1 && (timed === undefined || timed.zones.roads[r] === 0 || timed.blocked?.[r] === 1);
    const stopInZone = inZone(from.road) || inZone(to.road);
    if (timed && metric === 'duration' && !stopInZone) {
      const steady = this.steadyLeg(from, to, masks, zones, timed);
      if (steady) return steady;
    }
    const { softLists, hardLists } = masks;
    // A scheduled zone's cliques close it: its cells are walked at their times instead.
    const ofZone = (z: CalculatedZone) => (timed && z.zone.schedule ? undefined : this.cliques.ofZone(z));
    // Without a caller's mask, the lists hold every blocked road (a search may start from them); zones' customized cliques come first.
    let lists = hardLists && [...softLists, ...hardLists];
    let cliques = hardLists && [...zones.map(ofZone), ...new Array<undefined>(softLists.length - zones.length + hardLists.length)];
    let cells = shared;
    const prepared = masks.vehicle?.prepared;
    if (hardLists && this.classOf) {
      // A class's own cliques cross the cells of its closed roads: the zones' lists alone.
      lists = zones.map((z) => z.roads);
      cliques = zones.map(ofZone);
    } else if (hardLists && prepared) ({ lists, cliques, cells } = preparedVehicleLists(zones, prepared));
    // SOFT zones' roads cost their penalty per metre, in both searches: their cells crossed by their
    // penalised cliques where prepareZones made them, else walked (as in the second search).
    const softCliques = soft?.zones.map((z) => this.cliques.ofSoftZone(z));
    const crossed = softCliques?.some((c) => c !== undefined) ? softCliques : undefined;
    const softPenalty = crossed ? { ...soft!.penalty, roadLists: soft!.zones.filter((_, i) => crossed[i] === undefined).map((z) => z.roads) } : soft?.penalty;
    let leg = stopInZone ? null : this.searchLeg(
      from, to, metric, all, softPenalty, undefined, lists, cliques, hardLists && cells, timed?.zones, index, crossed && { cliques: crossed },
    );
    if (leg && soft) withEntered(leg, this.zonesEntered(leg, soft.zones));
    if (!leg && zone) {
      const penalty = soft ? soft.withHard(softLists, !stopInZone) : { ...uniformPenalty(zone, ZONE_COST_PER_METRE), unavoidable: !stopInZone, roadLists: softLists };
      // A class's router crosses the cells of its destination-only roads by their penalised cliques
      // (the zones' roads alone open cells then), unless SOFT or scheduled zones or a caller's mask
      // charge or close other roads.
      const penalised = this.penalisedFallback;
      if (penalised && !soft && !timed && hardLists?.every((l) => l === this.classRoads!.forbidden)) {
        // A stop behind destination-only roads: its enclosure's exits and entries (EnclosureSearch),
        // joined around the zones by this router's own search as the first search was made. Not
        // for a stop on a zone's road: the leg must drive the zone, which that search closes.
        const enclosure = this.enclosure;
        const onZone = (s: Snap) => zones.some((z) => sortedIndexOf(z.roads, s.road) >= 0);
        const search = !enclosure || onZone(from) || onZone(to) ? penalised.search : zones.length === 0 ? enclosure : enclosure.around({
          search: this.search,
          members: { blockedRoads: all, blockedRoadLists: lists, blockedCellCliques: cliques, sharedCellCliques: cells.shared, bigCellCliques: cells.big },
        });
        leg = this.searchLeg(from, to, metric, hard, { ...penalty, roadLists: softLists.slice(0, zones.length) }, undefined, [], undefined, undefined, undefined, index, { search, cliques: [penalised.cliques] });
      } else {
        leg = this.searchLeg(from, to, metric, hard, penalty, undefined, hardLists);
      }
      // Listed even when no metre lies inside a polygon (a stop on a road that only touches one).
      if (leg) leg.zonesEntered = this.zonesEntered(leg, soft ? [...zones, ...soft.zones] : zones);
    }
    if (!leg) throw noRoute(index, labels);
    return leg;
  }

  /**
   * A THE_FASTEST leg with scheduled zones as a static search, when that is exact: with the zones
   * active as it leaves closed (by their cliques, as HARD ones) and the others open, if it arrives
   * before any of them changes, no route arriving sooner can drive an active one's road or need to
   * wait for an inactive one, so it is the earliest arrival. Undefined when it is not (a zone
   * changes first, a stop lies on an active zone's road: its own road is open to it, or no route).
   */
  private steadyLeg(from: Snap, to: Snap, masks: RoadMasks, zones: CalculatedZone[], timed: { zones: ScheduledZones; blocked?: Uint8Array }): Leg | undefined {
    const schedule = timed.zones;
    const { active, until } = schedule.statesAt(schedule.offset);
    const closed = new Set(schedule.zones.filter((_, i) => active[i]));
    for (const z of closed) if (sortedIndexOf(z.roads, from.road) >= 0 || sortedIndexOf(z.roads, to.road) >= 0) return undefined;
    const mask = timed.blocked ?? this.scratch.pop() ?? new Uint8Array(this.graph.roadCount);
    const added: number[] = [];
    for (const z of closed) for (let i = 0; i < z.roads.length; i++) if (mask[z.roads[i]] === 0) { mask[z.roads[i]] = 1; added.push(z.roads[i]); }
    try {
      const kept = (z: CalculatedZone) => !z.zone.schedule || closed.has(z);
      const { softLists, hardLists } = masks;
      const prepared = masks.vehicle?.prepared;
      const set = zones.filter(kept);
      let lists: ArrayLike<number>[] | undefined, cliques: (BlockedCellCliques | undefined)[] | undefined, cells: ZoneSetCliques | undefined;
      if (hardLists && this.classOf) {
        lists = set.map((z) => z.roads);
        cliques = set.map((z) => this.cliques.ofZone(z));
        cells = this.cliques.prepare(set, 0);
      } else if (hardLists && prepared) {
        ({ lists, cliques, cells } = preparedVehicleLists(set, prepared));
      } else if (hardLists) {
        const others = softLists.slice(zones.length);
        lists = [...set.map((z) => z.roads), ...others, ...hardLists];
        cliques = [...set.map((z) => this.cliques.ofZone(z)), ...new Array<undefined>(others.length + hardLists.length)];
        cells = this.cliques.prepare(set, 0);
      }
      const leg = this.searchLeg(from, to, 'duration', mask, undefined, undefined, lists, cliques, cells);
      return leg && schedule.offset + leg.duration <= until ? leg : undefined;
    } finally {
      for (const r of added) mask[r] = 0;
      if (mask !== timed.blocked) this.scratch.push(mask);
    }
  }

  /**
   * The masks a request with avoidance types needs, each filled in O(roads it marks) (plus a copy
   * of a caller's hard mask): `classes` (1 on zone roads, 2 on avoided roads, 3 on both: the
   * penalty classes), `blockedAll` (hard, zones and, unless RELAXED, the avoided roads) and, for
   * FAIL, `blockedHard` (hard and the avoided roads). Release with releaseAvoidanceMasks.
   */
  private avoidanceMasks(masks: RoadMasks, avoidance: Avoidance): AvoidanceMasks {
    const flagged = (this.flaggedRoads ??= new FlaggedRoads(this.graph));
    const take = (): Uint8Array => this.scratch.pop() ?? new Uint8Array(this.graph.roadCount);
    const classes = take();
    const soft = masks.softLists;
    for (const list of soft) for (let i = 0; i < list.length; i++) classes[list[i]] = 1;
    flagged.mark(classes, avoidance, 2);
    const out: AvoidanceMasks = { avoidance, classes, copied: [], lists: [] };
    const union = (withZones: boolean): Uint8Array => {
      const mask = take();
      if (masks.hard && !masks.hardLists) {
        mask.set(masks.hard.subarray(0, mask.length));
        out.copied.push(mask);
      } else {
        for (const list of masks.hardLists ?? []) for (let i = 0; i < list.length; i++) mask[list[i]] = 1;
        out.lists.push(mask);
      }
      if (withZones) for (const list of soft) for (let i = 0; i < list.length; i++) mask[list[i]] = 1;
      flagged.mark(mask, avoidance, 1);
      return mask;
    };
    out.lists.push(classes);
    out.blockedAll = avoidance.behavior === 'RELAXED' ? masks.all : union(true);
    // Without a caller's mask, the zones', the vehicle's and the avoided types' road lists hold every road blockedAll blocks.
    if (masks.hardLists) out.allLists = [...soft, ...masks.hardLists, ...(avoidance.behavior === 'RELAXED' ? [] : avoidance.types.map((t) => flagged.roads(AVOIDANCE_FLAGS[t])))];
    if (avoidance.behavior === 'FAIL') out.blockedHard = union(false);
    return out;
  }

  /** Returns the scratch masks, cleared: road by road where only zones and types were marked, else whole. */
  private releaseAvoidanceMasks(m: AvoidanceMasks, masks: RoadMasks): void {
    const flagged = this.flaggedRoads!;
    for (const mask of m.lists) {
      for (const list of masks.softLists) for (let i = 0; i < list.length; i++) mask[list[i]] = 0;
      for (const list of masks.hardLists ?? []) for (let i = 0; i < list.length; i++) mask[list[i]] = 0;
      for (const t of m.avoidance.types) {
        const list = flagged.roads(AVOIDANCE_FLAGS[t]);
        for (let i = 0; i < list.length; i++) mask[list[i]] = 0;
      }
    }
    for (const mask of m.copied) mask.fill(0);
    this.scratch.push(...m.lists, ...m.copied);
  }

  /**
   * One leg with avoidance types, in order of what matters most: no metre in a zone that can be
   * avoided, then (FAIL, STRONG) no metre of an avoided type that can be avoided, then the metric;
   * RELAXED adds RELAXED_EXTRA_PER_METRE per metre of avoided types instead.
   */
  private avoidingLeg(
    from: Snap, to: Snap, metric: Metric, masks: RoadMasks, m: AvoidanceMasks, zones: CalculatedZone[], index: number, labels: string[],
  ): RouteLeg {
    const { behavior } = m.avoidance;
    const { zone, hard } = masks;
    const stopInZone = zone !== undefined && (zone[from.road] === 1 || zone[to.road] === 1);
    const stopOnAvoided = (m.classes[from.road] & 2) !== 0 || (m.classes[to.road] & 2) !== 0;
    if (behavior === 'FAIL' && stopOnAvoided) {
      const at = (m.classes[from.road] & 2) !== 0 ? from : to;
      const types = m.avoidance.types.filter((t) => this.graph.roadFlags[at.road] & AVOIDANCE_FLAGS[t]);
      const label = labels[at === from ? index : index + 1];
      throw new DetourError(
        ErrorCode.AVOIDANCE_IMPOSSIBLE,
        `leg ${index}: ${label} lies on a road of type ${types.join(', ')}, which avoidanceBehavior FAIL never drives`,
        { leg: index, avoidanceTypes: types },
      );
    }
    const relaxed = RELAXED_EXTRA_PER_METRE[metric];
    // Every road of a penalty class: the zones' and the avoided types' lists.
    const flagged = this.flaggedRoads!;
    const typeLists = m.avoidance.types.map((t) => flagged.roads(AVOIDANCE_FLAGS[t]));
    const classLists = [...masks.softLists, ...typeLists];
    let leg: Leg | null = null;
    const firstRan = !stopInZone && !(behavior === 'STRONG' && stopOnAvoided);
    if (firstRan) {
      const penalty = behavior === 'RELAXED' ? { roads: m.classes, costPerMetre: Float64Array.of(0, 0, relaxed, relaxed), roadLists: typeLists } : undefined;
      leg = this.searchLeg(from, to, metric, m.blockedAll, penalty, m.avoidance, m.allLists);
    }
    if (!leg && (zone || behavior === 'STRONG')) {
      // Zones (and, STRONG, avoided types) cost per metre: a zone's metre outweighs every avoided one.
      const zoneCost = behavior === 'STRONG' ? ZONE_COST_PER_METRE * STRONG_COST_PER_METRE : ZONE_COST_PER_METRE;
      const avoidCost = behavior === 'STRONG' ? STRONG_COST_PER_METRE : behavior === 'RELAXED' ? relaxed : 0;
      // Unavoidable when the search around them ran and found nothing.
      const penalty = { roads: m.classes, costPerMetre: Float64Array.of(0, zoneCost, avoidCost, zoneCost + avoidCost), unavoidable: firstRan, roadLists: classLists };
      leg = this.searchLeg(from, to, metric, behavior === 'FAIL' ? m.blockedHard : hard, penalty, m.avoidance);
      // Only when it did enter one: STRONG comes here for the avoided types alone too.
      const entered = leg && zone ? this.zonesEntered(leg, zones) : [];
      if (leg && entered.length > 0) leg.zonesEntered = entered;
    }
    if (leg) return leg;
    if (behavior === 'FAIL') {
      // Would the leg exist without the avoidance? Then name the types that route drives.
      const free = this.searchLeg(from, to, metric, hard, zone && { ...uniformPenalty(zone, ZONE_COST_PER_METRE), roadLists: masks.softLists }, m.avoidance);
      if (free) {
        const driven = free.avoidedTypesDriven ?? [];
        const types = driven.length > 0 ? driven.map((d) => d.type) : m.avoidance.types;
        throw new DetourError(
          ErrorCode.AVOIDANCE_IMPOSSIBLE,
          `no route for leg ${index} (${labels[index]} to ${labels[index + 1]}) avoids ${types.join(', ')}; ` +
            'avoidanceBehavior STRONG returns the route with the fewest metres of them',
          { leg: index, avoidanceTypes: types },
        );
      }
    }
    throw noRoute(index, labels);
  }

  private zonesEntered(leg: Leg, zones: CalculatedZone[]): ZoneEntered[] {
    const latLon = leg.coordinates;
    const line = new Float64Array(latLon.length); // longitude first, as lengthInside reads it
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (let i = 0; i < latLon.length; i += 2) {
      const lat = latLon[i], lon = latLon[i + 1];
      line[i] = lon;
      line[i + 1] = lat;
      minX = Math.min(minX, lon); maxX = Math.max(maxX, lon);
      minY = Math.min(minY, lat); maxY = Math.max(maxY, lat);
    }
    // Only zones whose polygons' boxes meet the leg's box can have been entered.
    const near = new Set(new ZoneIndex(zones).zonesInBox(minX, minY, maxX, maxY));
    const out: ZoneEntered[] = [];
    // The whole roads the leg drives: their metres inside, calculated with the zone; only the start
    // and end roads' parts are measured here (a leg through a 100,000-vertex zone tests no polygon
    // per segment).
    const [edgesFirst, edgesLast] = leg.edgePoints;
    const points = latLon.length / 2;
    const edgeRoad = this.graph.edgeRoad;
    for (const z of zones.filter((zone) => near.has(zone))) {
      let metres = z.prepared.reduce((s, poly) => s + lengthInside(poly, line, 0, edgesFirst + 1) + lengthInside(poly, line, edgesLast, points), 0);
      for (const e of leg.edges) metres += roadMetresInside(z, edgeRoad[e]);
      if (metres > 0) out.push({ name: z.zone.name, metresInside: metres });
    }
    return out;
  }

  /**
   * The search for a leg: on a class's router its own (whose hierarchies lack the class's closed
   * and destination-only roads: exact and tight only where a leg may not drive them) when the
   * leg blocks its destination-only roads (masks() always blocks the closed ones), else the one
   * of the router it was made from.
   */
  private searchFor(blocked: Uint8Array | undefined): PathSearch {
    const base = this.classOf;
    if (!base) return this.search;
    if (blocked === undefined) return base.search;
    if (blocked === this.classMasks!.all) return this.search;
    const dest = this.classRoads!.destinationOnly;
    for (let i = 0; i < dest.length; i++) if (blocked[dest[i]] === 0) return base.search;
    return this.search;
  }

  /** The cheapest leg, or null; with `avoidance`, the metres it drove on avoided types. */
  private searchLeg(
    from: Snap, to: Snap, metric: Metric, blockedRoads?: Uint8Array, penalty?: Penalty, avoidance?: Avoidance,
    blockedRoadLists?: readonly ArrayLike<number>[], blockedCellCliques?: readonly (BlockedCellCliques | undefined)[],
    cellCliques?: ZoneSetCliques, timed?: ScheduledZones, index = 0,
    penalised?: { search?: PathSearch; cliques: readonly (PenalisedCellCliques | undefined)[] },
  ): Leg | null {
    const g = this.graph;
    const direct = blockedRoads?.[from.road] ? { cost: Infinity, reversed: false } : directCost(g, from, to, metric, penalty);
    const sources = sourceEndpoints(g, from, metric, penalty);
    const targets = targetEndpoints(g, to, metric, penalty);
    const search = penalised?.search ?? this.searchFor(blockedRoads);
    // A class's router leaving a leg to the router it was made from: the class's roads open their
    // cells there, and its cliques (in the class's cells, around its roads) are not that search's.
    const fallback = this.classOf !== undefined && search !== this.search && !penalised?.search;
    const classRoads = this.classRoads;
    const found = search.find({
      sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude, blockedRoads,
      blockedRoadLists: fallback && blockedRoadLists ? [...blockedRoadLists, classRoads!.forbidden, classRoads!.destinationOnly] : blockedRoadLists,
      ...(!fallback && { blockedCellCliques, sharedCellCliques: cellCliques?.shared, bigCellCliques: cellCliques?.big }),
      penalty,
      ...(penalised && { penalisedCellCliques: penalised.cliques }),
      // A class's own search knows its times everywhere (its view's, its hierarchies', its cliques');
      // the penalised search its times' only where its overlay's cliques are the class's.
      ...(this.times && (fallback || !this.classOf) && { roadMillis: this.times.millis, retimedRoads: this.times.retimed }),
      ...(this.times && penalised?.search && { roadMillis: this.times.millis }),
      ...(timed && metric === 'duration' && { schedule: timed }),
    });
    if (direct.cost < Infinity && (!found || direct.cost <= found.cost)) {
      const metres = Math.abs(to.offset - from.offset);
      const duration = partialCost(g, from.road, metres, 'duration');
      // The shape points strictly between the two snaps on their one road, in the direction of travel.
      const line = this.line.reset();
      line.push(from.latitude, from.longitude);
      if (!direct.reversed) line.pushForward(from.road, from.segment + 1, to.segment);
      else line.pushBackward(from.road, from.segment, to.segment + 1);
      line.push(to.latitude, to.longitude);
      // No edges: the whole line is the one road's part, measured as the start's.
      const leg = new Leg(metres, duration, line.coordinates(), [], NO_EDGE_ENDS, from, to, line.count - 1, line.count - 1, direct.reversed, direct.reversed, true);
      if (avoidance) withAvoided(leg, metresOnAvoided(g, avoidance, [], from, to, true, 0, 0));
      return leg;
    }
    if (!found) return null;
    const source = sources[found.source];
    const target = targets[found.target];
    const startMetres = source.reversed ? from.offset : g.roadMetres(from.road) - from.offset;
    const endMetres = target.reversed ? g.roadMetres(to.road) - to.offset : to.offset;
    let waited: { total: number; waits: ZoneWait[] } | undefined;
    if (timed) {
      waited = timed.waitsAlong(g, found.edges, partialCost(g, from.road, startMetres, 'duration'));
      if (waited.total === Infinity) {
        throw new DetourError(ErrorCode.ROUTE_NOT_FOUND, `no route for leg ${index}: its shortest path waits for a scheduled zone beyond ${SCHEDULE_HORIZON_SECONDS / 86_400} days after the departure`, { leg: index });
      }
    }
    const leg = this.assembleLeg(from, to, source, target, found.edges, startMetres, endMetres, waited?.total);
    if (waited && waited.waits.length > 0) leg.waits = waited.waits;
    if (avoidance) withAvoided(leg, metresOnAvoided(g, avoidance, found.edges, from, to, false, startMetres, endMetres));
    return leg;
  }

  /** The leg of a path; `waits` seconds of waiting for scheduled zones join its duration. */
  private assembleLeg(from: Snap, to: Snap, source: Endpoint, target: Endpoint, edges: number[], startMetres: number, endMetres: number, waits = 0): Leg {
    const g = this.graph;
    let distance = startMetres + endMetres;
    let duration = partialCost(g, from.road, startMetres, 'duration') + partialCost(g, to.road, endMetres, 'duration');
    const line = this.line.reset();
    line.push(from.latitude, from.longitude);
    // Start: from the snapped point to the end of its road in the direction of travel.
    if (source.reversed) line.pushBackward(from.road, from.segment, 0);
    else line.pushForward(from.road, from.segment + 1, g.roadPointCount(from.road) - 1);
    line.metres = distance;
    line.seconds = duration;
    const edgesFirst = line.count - 1; // the first edge's tail: the start road's end
    line.pushEdges(edges);
    const edgesLast = line.count - 1;
    distance = line.metres;
    duration = line.seconds;
    // End: from the road's end node to the snapped point.
    if (target.reversed) line.pushBackward(to.road, g.roadPointCount(to.road) - 1, to.segment + 1);
    else line.pushForward(to.road, 0, to.segment);
    line.push(to.latitude, to.longitude);
    return new Leg(distance, duration + waits, line.coordinates(), edges, line.edgeEnds(), from, to, edgesFirst, edgesLast, source.reversed, target.reversed, false);
  }

}

/** The scratch masks of one request with avoidance types (Router.avoidanceMasks). */
interface AvoidanceMasks {
  avoidance: Avoidance;
  classes: Uint8Array;
  blockedAll?: Uint8Array;
  /** Road lists whose union is what blockedAll blocks, when known (PathQuery.blockedRoadLists). */
  allLists?: ArrayLike<number>[];
  blockedHard?: Uint8Array;
  /** Masks cleared road by road (zones' and avoided types' roads) and masks cleared whole. */
  lists: Uint8Array[];
  copied: Uint8Array[];
}

/** The language of a request's steps, or undefined when it wants none; INVALID_INPUT names a language detour does not word. */
function stepLanguage(steps: RouteRequest['steps']): StepLanguage | undefined {
  if (steps === undefined || steps === false) return undefined;
  if (steps === true) return 'en';
  if (!STEP_LANGUAGES.includes(steps)) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `steps: language must be one of ${STEP_LANGUAGES.join(', ')}, got ${JSON.stringify(steps)}`, { field: 'steps' });
  }
  return steps;
}

/** A request's stops' names in errors: its pointLabels, else points[i]. */
function stopLabels(request: RouteRequest): string[] {
  return request.points.map((_, i) => request.pointLabels?.[i] ?? `points[${i}]`);
}

function noRoute(index: number, labels: string[]): DetourError {
  return new DetourError(
    ErrorCode.ROUTE_NOT_FOUND,
    `no route for leg ${index} (${labels[index]} to ${labels[index + 1]}): no road connects them in the allowed directions`,
    { leg: index },
  );
}

function withEntered(leg: RouteLeg, entered: ZoneEntered[]): void {
  if (entered.length > 0) leg.zonesEntered = entered;
}

function withAvoided(leg: RouteLeg, driven: AvoidedTypeDriven[]): void {
  if (driven.length > 0) leg.avoidedTypesDriven = driven;
}

/** Whether a vehicle may use a road, for its stops' snapping; undefined when it may use every road. */
function legalRoads(roads: VehicleRoads | undefined): ((road: number) => boolean) | undefined {
  const forbidden = roads?.forbidden;
  return forbidden && forbidden.length > 0 ? (road) => sortedIndexOf(forbidden, road) < 0 : undefined;
}

/** A road's metres inside a zone (0 for a road it does not block): binary search of its ascending roads. */
function roadMetresInside(zone: CalculatedZone, road: number): number {
  const k = sortedIndexOf(zone.roads, road);
  return k < 0 ? 0 : zone.roadMetresInside[k];
}

/** The union of two ascending lists, ascending, each value once. */
function mergeAscending(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0, j = 0, n = 0;
  while (i < a.length || j < b.length) {
    const v = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
    if (n === 0 || out[n - 1] !== v) out[n++] = v;
  }
  return out.subarray(0, n);
}

/** The masks of a vehicle's roads alone, as masks() makes them: its closed roads (`hard`), its destination-only ones (`zone`), both (`all`). */
/** Roads masks() set in a class's fixed zone and union masks for a request's zones. */
interface ClassMaskRoads {
  zone: number[];
  all: number[];
}

/** A class's fixed masks (masks()); the union its own array, as masks() adds a request's zone roads to it in place. */
function closedMasks(roadCount: number, roads: VehicleRoads): Pick<RoadMasks, 'hard' | 'zone' | 'all'> {
  const mark = (lists: readonly Uint32Array[]) => {
    if (lists.every((l) => l.length === 0)) return undefined;
    const mask = new Uint8Array(roadCount);
    for (const list of lists) for (let i = 0; i < list.length; i++) mask[list[i]] = 1;
    return mask;
  };
  const hard = mark([roads.forbidden]), zone = mark([roads.destinationOnly]);
  return { hard, zone, all: hard || zone ? mark([roads.forbidden, roads.destinationOnly]) : undefined };
}

import { DetourError } from '../errors.js';
import { PreparedPolygon, type PreparedPolygonFields } from '../geo/PreparedPolygon.js';
import { RoadGraph, type GraphIndexes, type GraphMeta, type RoadGraphArrays } from '../graph/RoadGraph.js';
import { SnapIndex } from '../graph/SnapIndex.js';
import { roadBearings } from '../graph/roadBearings.js';
import { sharedGraphArrays } from '../graph/sharedGraph.js';
import { startModuleWorker } from '../workerThread.js';
import type { Metric } from '../graph/RoadGraph.js';
import type { ContractionHierarchy, GraphHierarchy, HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import { withHierarchy } from '../hierarchy/hierarchySections.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { zoneRules } from '../zones/Zone.js';
import { Router, type RouterOptions } from './Router.js';
import { roadTimes, type RoadTimes } from './roadTimes.js';
import { speedRules, vehicleSpeedsKey, type Vehicle, type VehicleRoads } from './vehicle.js';

/**
 * What a worker thread needs for a Router over the caller's graph: its arrays, hierarchy, overlay
 * and snap index on SharedArrayBuffers (posted, they are shared, not copied).
 */
export interface SharedRouterData {
  arrays: RoadGraphArrays;
  meta: GraphMeta;
  hierarchy?: GraphHierarchy;
  indexes: GraphIndexes;
  /** Derived per road by the caller's graph once, shared rather than derived again per thread. */
  roadMillis: Uint32Array;
  /** The road times of the vehicles the threads prepare, made once (8 B per road each) rather than per thread. */
  roadTimes: RoadTimes[];
  /** The graph's reverse adjacency (RoadGraph.reverseAdjacency), made once rather than at a thread's first penalised or backward search. */
  reverse: { firstIn: Uint32Array; inEdge: Uint32Array };
  maxSnapDistance?: number;
}

/** The graph as a worker thread receives it; the snap index and road bearings are made here first (on shared memory) so the thread adopts them. */
export function sharedRouterData(graph: HierarchyGraph, maxSnapDistance?: number, vehicles: readonly Vehicle[] = []): SharedRouterData {
  SnapIndex.for(graph);
  roadBearings(graph);
  const times = new Map<string, RoadTimes>();
  for (const v of vehicles) {
    const key = vehicleSpeedsKey(v);
    if (key !== undefined && !times.has(key)) times.set(key, roadTimes(graph, speedRules(v))!);
  }
  return {
    arrays: sharedGraphArrays(graph), meta: graph.meta, hierarchy: graph.hierarchy, indexes: graph.indexes, roadMillis: graph.roadMillis,
    roadTimes: [...times.values()], reverse: graph.reverseAdjacency(), maxSnapDistance,
  };
}

/**
 * A vehicle class's own hierarchies (Router.vehicleHierarchies) made on a worker thread over the
 * graph sharedRouterData posted (classHierarchyWorker: the costs, the order and the reverse
 * adjacency made there too), on SharedArrayBuffers; undefined for a vehicle that drives every road
 * as a car does. `signal` stops the thread (the promise then rejects).
 */
export function vehicleHierarchiesInWorker(data: SharedRouterData, vehicle: Vehicle, signal?: AbortSignal): Promise<Record<Metric, ContractionHierarchy> | undefined> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('stopped before the vehicle class\'s hierarchies were made'));
    const worker = startModuleWorker(import.meta.url, 'classHierarchyWorker', { router: data, vehicle });
    signal?.addEventListener('abort', () => void worker.terminate(), { once: true });
    const made: Partial<Record<Metric, ContractionHierarchy>> = {};
    let settled = false;
    const settle = (value: Record<Metric, ContractionHierarchy> | undefined) => {
      settled = true;
      resolve(value);
      void worker.terminate();
    };
    worker.on('message', (m: { none?: true; metric?: Metric; hierarchy?: ContractionHierarchy }) => {
      if (m.none) return settle(undefined);
      made[m.metric!] = m.hierarchy!;
      if (made.duration && made.distance) settle({ duration: made.duration, distance: made.distance });
    });
    worker.on('error', (err) => { settled = true; reject(err); });
    worker.on('exit', (code) => { if (!settled) reject(new Error(`the vehicle class's hierarchies' worker stopped (exit code ${code})`)); });
  });
}

/** The graph sharedRouterData posted, on the same memory: nothing is copied or rebuilt. */
export function graphOnSharedData(data: SharedRouterData): HierarchyGraph {
  const graph = withHierarchy(new RoadGraph(data.arrays, data.meta, data.indexes), data.hierarchy);
  graph.adoptRoadMillis(data.roadMillis);
  graph.adoptReverseAdjacency(data.reverse);
  return graph;
}

/** A worker thread's Router over the graph sharedRouterData posted: nothing is copied or rebuilt. */
export function routerOnSharedData(data: SharedRouterData, options: Omit<RouterOptions, 'maxSnapDistance'> = {}): Router {
  const router = new Router(graphOnSharedData(data), { ...options, maxSnapDistance: data.maxSnapDistance });
  for (const t of data.roadTimes) router.adoptRoadTimes(t);
  return router;
}

/**
 * A part of a vehicle class made once, on shared memory, for every routing thread's Router to
 * adopt: its own hierarchies (Router.adoptVehicleHierarchies) or its prepared roads and cells
 * (Router.adoptVehicleRoads). The class routes on a router of its own once it has both.
 */
export type VehicleClassPart = { vehicle: Vehicle; hierarchies: Record<Metric, ContractionHierarchy> } | { roads: VehicleRoads };

export function adoptVehicleClassPart(router: Router, part: VehicleClassPart): void {
  if ('roads' in part) router.adoptVehicleRoads(part.roads);
  else router.adoptVehicleHierarchies(part.vehicle, part.hierarchies);
}

/**
 * A calculated zone as posted to a thread: its prepared polygons' fields (typed arrays, copied by
 * the structured clone) and its rules, without the polygons themselves, which routing never reads.
 */
export type ZoneFields = Omit<CalculatedZone, 'prepared'> & { prepared: PreparedPolygonFields[] };

export function zoneFields(zone: CalculatedZone): ZoneFields {
  return { ...zone, zone: { name: zone.zone.name, polygons: [], ...zoneRules(zone.zone) }, prepared: zone.prepared.map((p) => ({ ...p })) };
}

/** The zone a thread received: prepared polygons revived (a clone keeps no class), nothing rebuilt. */
export function reviveZone(fields: ZoneFields): CalculatedZone {
  return { ...fields, prepared: fields.prepared.map(PreparedPolygon.revive) };
}

/** A DetourError as posted back by a thread (any other failure: code INTERNAL). */
export interface ThreadError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** What a thread posts back for a failure: a DetourError's code, message and details; anything else as INTERNAL. */
export function threadError(err: unknown): ThreadError {
  return err instanceof DetourError ? { code: err.code, message: err.message, details: err.details } : { code: 'INTERNAL', message: (err as Error)?.message ?? String(err) };
}

/** The DetourError a thread's failure stands for, thrown again on the calling side. */
export function fromThreadError(e: ThreadError): DetourError {
  return new DetourError(e.code, e.message, e.details);
}

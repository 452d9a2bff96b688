import { availableParallelism } from 'node:os';
import type { PointsMode } from '../geo/pointEncodings.js';
import type { ContractionHierarchy, HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import type { Router } from '../routing/Router.js';
import {
  fromThreadError, sharedRouterData, vehicleHierarchiesInWorker, zoneFields, type SharedRouterData, type ThreadError, type VehicleClassPart, type ZoneFields,
} from '../routing/routerThread.js';
import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { TripRequest } from './calculateTrip.js';
import { vehicleKey, type Vehicle, type VehicleRoads } from '../routing/vehicle.js';
import type { Metric } from '../graph/RoadGraph.js';

/** What a trip thread is started with. */
export interface TripWorkerData {
  router: SharedRouterData;
  zoneCliqueBytes?: number;
}

/** A trip's context as posted: calculateTrip's, its clock as epoch milliseconds. */
export interface TripThreadContext {
  clientId: string;
  id: string;
  pointsMode?: PointsMode;
  now: number;
  expiresAt?: number;
}

/**
 * Messages to a trip thread: a zone to keep under a key (and customize the cells around), a key to
 * let go, a trip naming its zones by key (kept ones) or with their fields (zones not kept: not
 * calculated yet, or not registered).
 */
export type TripThreadMessage =
  | { op: 'zone'; id: number; key: number; fields: ZoneFields }
  | { op: 'forget'; id: number; key: number }
  | { op: 'vehicleHierarchies'; id: number; vehicle: Vehicle; hierarchies: Record<Metric, ContractionHierarchy> }
  | { op: 'prepareVehicle'; id: number; vehicle: Vehicle }
  | { op: 'vehicleRoads'; id: number; roads: VehicleRoads }
  | { op: 'trip'; id: number; request: TripRequest; context: TripThreadContext; zones: Array<{ key: number } | { fields: ZoneFields }> };

/** A trip's solution or failure; after a zone is kept or let go, the zones the thread's router keeps customized. */
export type TripThreadReply =
  | { id: number; json: string }
  | { id: number; error: ThreadError }
  | { id: number; prepared: Router['preparedZones']; error?: ThreadError }
  | { id: number; adopted: true; classes: number }
  | { id: number; vehicleRoads: VehicleRoads | undefined; classes: number };

type Reply = TripThreadReply;

export interface TripThreadsOptions {
  /** Threads at most (default the cores less one, at least 1); each starts when trips queue on the others. */
  threads?: number;
  maxSnapDistance?: number;
  /** Each thread's budget for zones' customized cells (Router's zoneCliqueBytes). */
  zoneCliqueBytes?: number;
  /** Trips on a thread at once (default TRIPS_PER_THREAD); the others wait, clients in turn. */
  tripsPerThread?: number;
  /** Told when a thread could not customize a zone's cells (its routes then walk them: still exact). */
  onZoneError?: (error: Error) => void;
  /**
   * Vehicle classes to prepare (default none): their cells by the first thread started
   * (Router.preparingVehicle), their own hierarchies (Router.vehicleHierarchies) here on worker
   * threads; both, once made, on shared memory and adopted by every thread.
   */
  vehicles?: Vehicle[];
  /** Told when a vehicle class's hierarchies could not be made (its routes stay exact, slower). */
  onVehicleError?: (error: Error) => void;
  /** Told each part of a vehicle class once made, on shared memory, for other threads to adopt (the matrix worker's: MatrixRunner.adoptVehicleClass). */
  onVehicleClass?: (part: VehicleClassPart) => void;
  /**
   * The vehicle classes are made elsewhere (another service thread of the process): these threads
   * prepare none of them and route each on its own router once given both its parts (adoptVehicleClass).
   */
  adoptVehicles?: boolean;
  /** The graph as the threads receive it, when the caller has it already (a service thread's graph came so): not made again. */
  shared?: SharedRouterData;
}

/**
 * Trips on a thread at once (default): enough that it never waits for the event loop between trips
 * (2 cost a quarter of the throughput on two cores, 8 nothing measurable); the rest wait in
 * TripThreads, where clients take turns.
 */
const TRIPS_PER_THREAD = 8;

interface WaitingTrip {
  request: TripRequest;
  zones: CalculatedZone[];
  context: TripThreadContext;
  resolve: (json: string) => void;
  reject: (err: Error) => void;
}

interface Thread {
  requests: WorkerRequests<Reply>;
  /** Keys of the zones this thread keeps. */
  known: Set<number>;
  /** Trips posted and not answered yet. */
  trips: number;
  /** Zones posted and not customized yet. */
  preparing: number;
  /** Zones whose cells the thread's router keeps customized, as it last said. */
  prepared: number;
  /** Vehicle classes the thread's router routes on routers of their own (hierarchies and cells adopted or prepared), as it last said. */
  classes: number;
}

/**
 * Trips on worker threads that share the graph (its, the hierarchy's, the overlay's and the snap
 * index's SharedArrayBuffers), so a trip never holds the event loop: it only reads requests,
 * queues trips and writes answers. Calculated zones are registered once (addZone): posted to
 * every thread, kept there under a numeric key and their cells customized there between trips
 * (one zone at a time, trips first: tripWorker.ts);
 * a trip then names them by key. forgetZone lets a zone go in every thread. Trips wait here per
 * client and go out clients in turn, to the thread with the fewest; threads start as trips queue,
 * up to `threads`.
 */
export class TripThreads {
  private readonly slots: Array<Thread | undefined>;
  private readonly keys = new WeakMap<CalculatedZone, number>();
  /** Registered zones by key: what a new (or restarted) thread is sent first. */
  private readonly registered = new Map<number, CalculatedZone>();
  private nextKey = 1;
  /** Trips not posted yet, per client, clients in their turn's order. */
  private readonly waiting = new Map<string, WaitingTrip[]>();
  private waitingCount = 0;
  private shared?: SharedRouterData;
  private closed = false;
  /** Vehicle classes' own hierarchies made so far: what every thread is sent (adoptVehicleHierarchies). */
  private readonly classes: Array<{ vehicle: Vehicle; hierarchies: Record<Metric, ContractionHierarchy> }> = [];
  /** Made once, when the first thread starts. */
  private classesMade?: Promise<void>;
  /** Stops the thread making a class's hierarchies when these threads close. */
  private readonly stopping = new AbortController();
  /** Vehicle classes' cells as the first thread prepared them (Router.preparedVehicleRoads, on shared memory), by vehicleKey: what every other thread adopts. */
  private readonly preparedRoads = new Map<string, VehicleRoads>();

  constructor(readonly graph: HierarchyGraph, private readonly options: TripThreadsOptions = {}) {
    this.slots = new Array(Math.max(1, Math.floor(options.threads ?? availableParallelism() - 1))).fill(undefined);
    this.shared = options.shared;
  }

  /**
   * A part of a vehicle class made elsewhere (on shared memory): every thread adopts it, now and
   * when started, and it is not made here.
   */
  adoptVehicleClass(part: VehicleClassPart): void {
    if (this.closed) return;
    if ('roads' in part) {
      if (this.preparedRoads.has(vehicleKey(part.roads.vehicle))) return;
      this.preparedRoads.set(vehicleKey(part.roads.vehicle), part.roads);
      for (const thread of this.slots) if (thread) this.sendVehicleRoads(thread, part.roads);
    } else {
      if (this.classes.some((c) => vehicleKey(c.vehicle) === vehicleKey(part.vehicle))) return;
      this.classes.push(part);
      for (const thread of this.slots) if (thread) this.sendClass(thread, part.vehicle, part.hierarchies);
    }
  }

  /** Starts every thread now (a service does at start, so no trip waits for one). */
  start(): void {
    for (let i = 0; i < this.slots.length; i++) this.thread(i);
  }

  /**
   * The solution of a trip (calculateTrip) as JSON text, calculated on a thread; DetourErrors
   * reject with their code. Trips wait here, per client (context.clientId), and go to the threads
   * clients in turn, at most tripsPerThread on a thread at once: a client's burst of long trips
   * delays another client's trip by about that many of them per thread, not by the whole burst.
   */
  calculate(request: TripRequest, zones: CalculatedZone[], context: TripThreadContext): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (this.closed) return reject(new Error('the trip threads were closed'));
      const queue = this.waiting.get(context.clientId);
      const trip: WaitingTrip = { request, zones, context, resolve, reject };
      if (queue) queue.push(trip);
      else this.waiting.set(context.clientId, [trip]);
      this.waitingCount++;
      this.dispatch();
    });
  }

  /** Trips not answered yet (waiting here or on a thread). */
  get trips(): number {
    return this.waitingCount + this.slots.reduce((n, t) => n + (t?.trips ?? 0), 0);
  }

  /** Posts waiting trips, clients in turn, while a thread has room. */
  private dispatch(): void {
    while (this.waitingCount > 0) {
      const thread = this.pick();
      if (!thread) return;
      // The client first in line gives one trip and goes to the back (Map order is the turn order).
      const [owner, queue] = this.waiting.entries().next().value!;
      const trip = queue.shift()!;
      this.waiting.delete(owner);
      if (queue.length > 0) this.waiting.set(owner, queue);
      this.waitingCount--;
      this.sendTrip(thread, trip);
    }
  }

  private sendTrip(thread: Thread, trip: WaitingTrip): void {
    const zones = trip.zones.map((zone) => {
      const key = this.keys.get(zone);
      return key !== undefined && thread.known.has(key) ? { key } : { fields: zoneFields(zone) };
    });
    thread.trips++;
    thread.requests.request({ op: 'trip', request: trip.request, context: trip.context, zones }).then(
      (reply) => {
        if ('error' in reply && reply.error) trip.reject(fromThreadError(reply.error));
        else trip.resolve((reply as { json: string }).json);
      },
      trip.reject,
    ).finally(() => {
      thread.trips--;
      this.dispatch();
    });
  }

  /** The most threads. */
  get threads(): number {
    return this.slots.length;
  }

  /** Threads started. */
  get started(): number {
    return this.slots.filter((t) => t !== undefined).length;
  }

  /** Registers a calculated zone: every thread keeps it and customizes the cells around it, between trips. */
  addZone(zone: CalculatedZone): void {
    if (this.closed || this.keys.has(zone)) return;
    const key = this.nextKey++;
    this.keys.set(zone, key);
    this.registered.set(key, zone);
    for (const thread of this.slots) if (thread) this.sendZone(thread, key, zone);
  }

  /** Lets a zone go in every thread (deleted, replaced, or let go by the zone cache). */
  forgetZone(zone: CalculatedZone): void {
    const key = this.keys.get(zone);
    if (key === undefined) return;
    this.keys.delete(zone);
    this.registered.delete(key);
    for (const thread of this.slots) {
      if (!thread?.known.delete(key)) continue;
      thread.requests.request({ op: 'forget', key }).then((reply) => this.heard(thread, reply), () => {});
    }
  }

  /** Zones whose cells every started thread keeps customized (0 before any thread starts). */
  get zonesPrepared(): number {
    const started = this.slots.filter((t) => t !== undefined);
    return started.length === 0 ? 0 : Math.min(...started.map((t) => t.prepared));
  }

  /** Zones a started thread has still to customize (the most of any). */
  get zonesToPrepare(): number {
    return Math.max(0, ...this.slots.map((t) => t?.preparing ?? 0));
  }

  /** Stops every thread and starts none again; trips still waiting, and any calculated after, reject. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    const threads = this.slots.filter((t) => t !== undefined);
    this.slots.fill(undefined);
    for (const queue of this.waiting.values()) for (const trip of queue) trip.reject(new Error('the trip threads were closed'));
    this.waiting.clear();
    this.waitingCount = 0;
    await Promise.all(threads.map((t) => t.requests.close()));
  }

  /**
   * The thread with the fewest trips, if it has room: one without any, else a new one while there
   * are slots, else the least busy under tripsPerThread; undefined when all are full.
   */
  private pick(): Thread | undefined {
    let best: Thread | undefined;
    let free = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const t = this.slots[i];
      if (!t) {
        if (free < 0) free = i;
      } else if (!best || t.trips < best.trips) best = t;
    }
    if (best && best.trips === 0) return best;
    if (free >= 0) return this.thread(free);
    return best && best.trips < (this.options.tripsPerThread ?? TRIPS_PER_THREAD) ? best : undefined;
  }

  private thread(i: number): Thread {
    const existing = this.slots[i];
    if (existing) return existing;
    this.shared ??= sharedRouterData(this.graph, this.options.maxSnapDistance, this.options.vehicles);
    const data: TripWorkerData = { router: this.shared, zoneCliqueBytes: this.options.zoneCliqueBytes };
    const requests: WorkerRequests<Reply> = new WorkerRequests(startModuleWorker(import.meta.url, 'tripWorker', data), () => {
      if (this.slots[i] === thread) this.slots[i] = undefined;
    });
    const thread: Thread = { requests, known: new Set(), trips: 0, preparing: 0, prepared: 0, classes: 0 };
    this.slots[i] = thread;
    for (const [key, zone] of this.registered) this.sendZone(thread, key, zone);
    for (const c of this.classes) this.sendClass(thread, c.vehicle, c.hierarchies);
    for (const roads of this.preparedRoads.values()) this.sendVehicleRoads(thread, roads);
    // The first slot's thread prepares the classes' cells (those not prepared yet: its predecessor may have stopped), the others adopt them.
    if (this.options.adoptVehicles) return thread;
    if (i === 0) for (const vehicle of this.options.vehicles ?? []) if (!this.preparedRoads.has(vehicleKey(vehicle))) this.sendPrepare(thread, vehicle);
    this.classesMade ??= this.makeClasses();
    return thread;
  }

  /**
   * Asks a thread to prepare a vehicle class's cells (Router.preparingVehicle, a step per turn of
   * its loop after trips and zones); what it prepared, on shared memory, goes to every other thread.
   */
  private sendPrepare(thread: Thread, vehicle: Vehicle): void {
    thread.requests.request({ op: 'prepareVehicle', vehicle }).then(
      (reply) => {
        if ('error' in reply && reply.error) return this.options.onVehicleError?.(fromThreadError(reply.error));
        if ('classes' in reply) thread.classes = reply.classes;
        const roads = 'vehicleRoads' in reply ? reply.vehicleRoads : undefined;
        if (!roads || this.closed) return;
        this.preparedRoads.set(vehicleKey(vehicle), roads);
        this.options.onVehicleClass?.({ roads });
        for (const other of this.slots) if (other && other !== thread) this.sendVehicleRoads(other, roads);
      },
      () => {}, // the thread stopped: the next one in its slot prepares what is missing
    );
  }

  private sendVehicleRoads(thread: Thread, roads: VehicleRoads): void {
    thread.requests.request({ op: 'vehicleRoads', roads }).then(
      (reply) => {
        if ('error' in reply && reply.error) this.options.onVehicleError?.(fromThreadError(reply.error));
        else if ('classes' in reply) thread.classes = reply.classes;
      },
      () => {},
    );
  }

  /**
   * The prepared vehicle classes' own hierarchies, one class after another on a worker thread
   * (vehicleHierarchiesInWorker: nothing of them is made on the event loop), each posted to every
   * thread once made (on SharedArrayBuffers: one copy for all). Until then their routes run on the
   * graph's hierarchies, exact and slower.
   */
  private async makeClasses(): Promise<void> {
    for (const vehicle of this.options.vehicles ?? []) {
      if (this.closed) return;
      // Adopted already (a service thread that replaced the one that made it).
      if (this.classes.some((c) => vehicleKey(c.vehicle) === vehicleKey(vehicle))) continue;
      try {
        const hierarchies = await vehicleHierarchiesInWorker(this.shared!, vehicle, this.stopping.signal);
        if (this.closed) return;
        if (!hierarchies) continue;
        this.classes.push({ vehicle, hierarchies });
        this.options.onVehicleClass?.({ vehicle, hierarchies });
        for (const thread of this.slots) if (thread) this.sendClass(thread, vehicle, hierarchies);
      } catch (err) {
        if (!this.closed) this.options.onVehicleError?.(err as Error);
      }
    }
  }

  /** Vehicle classes whose own hierarchies are made (and posted to the threads). */
  get vehicleClasses(): number {
    return this.classes.length;
  }

  /** Vehicle classes every started thread routes on routers of their own, hierarchies and cells adopted (0 before any thread starts). */
  get vehicleClassesAdopted(): number {
    const started = this.slots.filter((t) => t !== undefined);
    return started.length === 0 ? 0 : Math.min(...started.map((t) => t.classes));
  }

  private sendClass(thread: Thread, vehicle: Vehicle, hierarchies: Record<Metric, ContractionHierarchy>): void {
    thread.requests.request({ op: 'vehicleHierarchies', vehicle, hierarchies }).then(
      (reply) => {
        if ('error' in reply && reply.error) this.options.onVehicleError?.(fromThreadError(reply.error));
        else if ('classes' in reply) thread.classes = reply.classes;
      },
      () => {}, // the thread stopped: a new one is sent every class made
    );
  }

  /** Posts a registered zone to a thread, which keeps it and customizes its cells. */
  private sendZone(thread: Thread, key: number, zone: CalculatedZone): void {
    thread.known.add(key);
    thread.preparing++;
    thread.requests.request({ op: 'zone', key, fields: zoneFields(zone) }).then(
      (reply) => {
        thread.preparing--;
        this.heard(thread, reply);
        if ('error' in reply && reply.error) this.options.onZoneError?.(fromThreadError(reply.error));
      },
      () => {}, // the thread stopped: a new one is sent every registered zone
    );
  }

  private heard(thread: Thread, reply: Reply): void {
    if ('prepared' in reply) thread.prepared = reply.prepared.zones;
  }
}

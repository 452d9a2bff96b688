import { availableParallelism } from 'node:os';
import type { PointsMode } from '../geo/pointEncodings.js';
import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import type { Router } from '../routing/Router.js';
import { fromThreadError, sharedRouterData, zoneFields, type SharedRouterData, type ThreadError, type ZoneFields } from '../routing/routerThread.js';
import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { TripRequest } from './calculateTrip.js';

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
  | { op: 'trip'; id: number; request: TripRequest; context: TripThreadContext; zones: Array<{ key: number } | { fields: ZoneFields }> };

/** A trip's solution or failure; after a zone is kept or let go, the zones the thread's router keeps customized. */
export type TripThreadReply =
  | { id: number; json: string }
  | { id: number; error: ThreadError }
  | { id: number; prepared: Router['preparedZones']; error?: ThreadError };

type Reply = TripThreadReply;

export interface TripThreadsOptions {
  /** Threads at most (default the cores less one, from 1 to 4); each starts when trips queue on the others. */
  threads?: number;
  maxSnapDistance?: number;
  /** Each thread's budget for zones' customized cells (Router's zoneCliqueBytes). */
  zoneCliqueBytes?: number;
  /** Told when a thread could not customize a zone's cells (its routes then walk them: still exact). */
  onZoneError?: (error: Error) => void;
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
}

/**
 * Trips on worker threads that share the graph (its, the hierarchy's, the overlay's and the snap
 * index's SharedArrayBuffers), so a trip never holds the event loop: it only reads requests,
 * queues trips and writes answers. Calculated zones are registered once (addZone): posted to
 * every thread, kept there under a numeric key and their cells customized there between trips
 * (one zone at a time, trips first: tripWorker.ts);
 * a trip then names them by key. forgetZone lets a zone go in every thread. A trip goes to the
 * thread with the fewest trips waiting; threads start as trips queue, up to `threads`.
 */
export class TripThreads {
  private readonly slots: Array<Thread | undefined>;
  private readonly keys = new WeakMap<CalculatedZone, number>();
  /** Registered zones by key: what a new (or restarted) thread is sent first. */
  private readonly registered = new Map<number, CalculatedZone>();
  private nextKey = 1;
  private tripsUnderWay = 0;
  private shared?: SharedRouterData;

  constructor(readonly graph: HierarchyGraph, private readonly options: TripThreadsOptions = {}) {
    this.slots = new Array(Math.max(1, Math.floor(options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1))))).fill(undefined);
  }

  /** Starts every thread now (a service does at start, so no trip waits for one). */
  start(): void {
    for (let i = 0; i < this.slots.length; i++) this.thread(i);
  }

  /** The solution of a trip (calculateTrip) as JSON text, calculated on a thread; DetourErrors reject with their code. */
  async calculate(request: TripRequest, zones: CalculatedZone[], context: TripThreadContext): Promise<string> {
    const thread = this.pick();
    const refs = zones.map((zone) => {
      const key = this.keys.get(zone);
      return key !== undefined && thread.known.has(key) ? { key } : { fields: zoneFields(zone) };
    });
    this.tripsUnderWay++;
    thread.trips++;
    try {
      const reply = await thread.requests.request({ op: 'trip', request, context, zones: refs });
      if ('error' in reply && reply.error) throw fromThreadError(reply.error);
      return (reply as { json: string }).json;
    } finally {
      this.tripsUnderWay--;
      thread.trips--;
    }
  }

  /** Trips posted and not answered yet (queued or being calculated). */
  get trips(): number {
    return this.tripsUnderWay;
  }

  /** The most threads. */
  get threads(): number {
    return this.slots.length;
  }

  /** Registers a calculated zone: every thread keeps it and customizes the cells around it, between trips. */
  addZone(zone: CalculatedZone): void {
    if (this.keys.has(zone)) return;
    const key = this.nextKey++;
    this.keys.set(zone, key);
    this.registered.set(key, zone);
    for (const thread of this.slots) if (thread) this.post(thread, key, zone);
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

  /** Trips and zones posted and not answered yet. */
  get pending(): number {
    return this.slots.reduce((n, t) => n + (t?.requests.pending ?? 0), 0);
  }

  /** Stops every thread; trips still waiting reject. */
  async close(): Promise<void> {
    const threads = this.slots.filter((t) => t !== undefined);
    this.slots.fill(undefined);
    await Promise.all(threads.map((t) => t.requests.close()));
  }

  /** The thread with the fewest trips waiting; one without any, or a new one when every started thread has some. */
  private pick(): Thread {
    let best: Thread | undefined;
    let free = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const t = this.slots[i];
      if (!t) {
        if (free < 0) free = i;
      } else if (!best || t.trips < best.trips) best = t;
    }
    if (best && (best.trips === 0 || free < 0)) return best;
    return this.thread(free);
  }

  private thread(i: number): Thread {
    const existing = this.slots[i];
    if (existing) return existing;
    this.shared ??= sharedRouterData(this.graph, this.options.maxSnapDistance);
    const data: TripWorkerData = { router: this.shared, zoneCliqueBytes: this.options.zoneCliqueBytes };
    const requests: WorkerRequests<Reply> = new WorkerRequests(startModuleWorker(import.meta.url, 'tripWorker', data), () => {
      if (this.slots[i] === thread) this.slots[i] = undefined;
    });
    const thread: Thread = { requests, known: new Set(), trips: 0, preparing: 0, prepared: 0 };
    this.slots[i] = thread;
    for (const [key, zone] of this.registered) this.post(thread, key, zone);
    return thread;
  }

  /** Posts a registered zone to a thread, which keeps it and customizes its cells. */
  private post(thread: Thread, key: number, zone: CalculatedZone): void {
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

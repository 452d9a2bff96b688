import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import { PreparedPolygon, type PreparedPolygonFields } from '../geo/PreparedPolygon.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { sharedGraphArrays } from '../graph/sharedGraph.js';
import { jsonTextString, type JsonText } from '../structures/sharedBuffer.js';
import { calculateZone, type CalculatedZone } from './calculateZone.js';
import { RoadIndex } from './RoadIndex.js';
import { zoneStatus, type Zone, type ZoneRules, type ZoneStatus } from './Zone.js';
import { checkZoneJson, type CheckedZoneJson } from './zoneJson.js';
import type { ZoneWorkerData } from './zoneWorker.js';

/**
 * Zone JSON text longer than this (about 4,000 vertices) is checked and calculated on the worker
 * thread: parsing, validating and preparing 100,000 vertices holds a thread for hundreds of
 * milliseconds, mostly in allocation and garbage collection.
 */
export const LARGE_ZONE_JSON = 256 * 1024;

export interface ZoneCalculatorOptions {
  /**
   * Zones whose polygons' bounding boxes meet more roads than this are calculated on a worker
   * thread (default 10,000: about 40 ms of work on one core); smaller ones inline.
   */
  workerThreshold?: number;
  /**
   * Zones whose estimated edge tests (candidate roads x the edges a row of the polygon index
   * lists) pass this also go to the worker (default 1,000,000: about 50 ms at ~50 ns a test), so a
   * jagged polygon (a sawtooth, a star) meeting few roads never holds the calling thread.
   */
  edgeTestThreshold?: number;
  /**
   * Where the worker's work goes instead of a worker of this calculator's own: a service thread's
   * process-wide zone worker (zoneWorkOverPort), which takes each owner in turn across the threads
   * and calculates a zone revision asked for by several threads once.
   */
  remote?: ZoneWork;
}

/**
 * Hands a message to a zone worker in its owner's turn and resolves with the worker's reply; `key`
 * names a calculation (a zone's revision) that may be answered from one made or under way for it.
 */
export type ZoneWork = (owner: string, message: Record<string, unknown>, key?: string) => Promise<ZoneWorkerReply>;

export interface ZoneWorkerReply {
  id: number;
  status: ZoneStatus;
  roads: Uint32Array;
  roadMetresInside: Float32Array;
  edgeCount: number;
  metresInside: number;
  blockedLength: number;
  millis: number;
  /** For a zone sent as JSON text: its polygons' names and the polygons, prepared there. */
  polygonNames?: string[];
  /** The zone's rules, read from its JSON text there. */
  rules?: ZoneRules;
  prepared?: PreparedPolygonFields[];
  /**
   * The answer to a checkJson request; sameText: its json is the text sent (and left out); utf8:
   * its json as bytes (for a body sent as bytes), left out of `checked` too.
   */
  checked?: CheckedZoneJson;
  sameText?: boolean;
  utf8?: Uint8Array;
}

/** Work waiting for the worker thread. */
interface QueuedWork {
  message: Record<string, unknown>;
  resolve: (reply: ZoneWorkerReply) => void;
  reject: (err: Error) => void;
}

/**
 * Calculates zones for one graph, small ones synchronously and large ones on a worker thread, and
 * tells which are still in calculation (status IN_CALCULATION) meanwhile. The worker takes one
 * piece of work at a time, from each owner (a client) in turn: one client's queue of large zones
 * delays another's zone by at most the piece under way. Call close() when done.
 */
export class ZoneCalculator {
  private worker?: WorkerRequests<ZoneWorkerReply>;
  /** Per owner, its work in order; the Map's order is the turn order (an owner served goes to the back). */
  private readonly queued = new Map<string, QueuedWork[]>();
  private busy = false;
  private readonly running = new Map<string, Promise<CalculatedZone>>();
  private readonly workerThreshold: number;
  private readonly edgeTestThreshold: number;
  private readonly remote?: ZoneWork;

  constructor(readonly graph: RoadGraph, options: ZoneCalculatorOptions = {}) {
    this.workerThreshold = options.workerThreshold ?? 10_000;
    this.edgeTestThreshold = options.edgeTestThreshold ?? 1_000_000;
    this.remote = options.remote;
  }

  /**
   * The work a calculation will do: roads whose boxes meet the zone's polygons' boxes, and the
   * polygon edges their tests read (each road against about one row of the polygon's index).
   */
  estimatedWork(zone: Zone): { roads: number; edgeTests: number } {
    const index = RoadIndex.for(this.graph);
    let roads = 0, edgeTests = 0;
    for (const p of zone.polygons) {
      const poly = new PreparedPolygon(p.rings);
      const candidates = index.roadsInBox(poly.minX, poly.minY, poly.maxX, poly.maxY).length;
      roads += candidates;
      edgeTests += candidates * Math.ceil(poly.rowEdges.length / poly.rows);
    }
    return { roads, edgeTests };
  }

  /** Roads whose boxes meet the zone's polygons' boxes. */
  candidateRoads(zone: Zone): number {
    return this.estimatedWork(zone).roads;
  }

  /** True when calculate() would send this zone to the worker thread (it meets many roads, or is costly to test). */
  runsOnWorker(zone: Zone): boolean {
    const work = this.estimatedWork(zone);
    return work.roads > this.workerThreshold || work.edgeTests > this.edgeTestThreshold;
  }

  /**
   * Calculates a zone; resolves when done (never rejects: failures are CALCULATION_ERROR).
   * `onWorker` is runsOnWorker's answer, for a caller that already asked; `key` names this
   * revision's calculation for a shared zone worker (ZoneWork).
   */
  calculate(zone: Zone, onWorker = this.runsOnWorker(zone), owner = '', key?: string): Promise<CalculatedZone> {
    if (!onWorker) return Promise.resolve(calculateZone(this.graph, zone));
    const done = this.onWorker(owner, zone, undefined, key).finally(() => {
      if (this.running.get(zone.name) === done) this.running.delete(zone.name);
    });
    this.running.set(zone.name, done);
    return done;
  }

  /**
   * Checks a zone body sent as JSON text (checkZoneJson): on the worker thread when the text is
   * long (LARGE_ZONE_JSON), so the caller's event loop only passes it on. Text sent as bytes (on a
   * SharedArrayBuffer) comes back as bytes: the caller never decodes it.
   */
  async checkJson(text: JsonText, owner = ''): Promise<CheckedZoneJson<JsonText>> {
    if (text.length <= LARGE_ZONE_JSON) return checkZoneJson(jsonTextString(text));
    let reply: ZoneWorkerReply;
    try {
      reply = await this.inTurn(owner, { checkJson: text });
    } catch {
      return checkZoneJson(jsonTextString(text)); // no worker thread: the right answer, on this thread
    }
    const checked = reply.checked!;
    if (!checked.ok) return checked;
    return reply.sameText ? { ...checked, json: text } : reply.utf8 ? { ...checked, json: reply.utf8 } : checked;
  }

  /**
   * Calculates a stored zone body given as JSON text (validated when it was stored) on the worker
   * thread: the text is parsed there, and the polygons come back prepared. The result's
   * `zone.polygons` are rebuilt from them only if read.
   */
  calculateJson(name: string, json: JsonText, owner = '', key?: string): Promise<CalculatedZone> {
    const done = this.onWorker(owner, { name, polygons: [] }, json, key).finally(() => {
      if (this.running.get(name) === done) this.running.delete(name);
    });
    this.running.set(name, done);
    return done;
  }

  /** IN_CALCULATION while a zone of that name is being calculated on the worker, else undefined. */
  statusOf(name: string): ZoneStatus | undefined {
    return this.running.has(name) ? zoneStatus('IN_CALCULATION') : undefined;
  }

  /** Stops the worker thread (pending calculations resolve as CALCULATION_ERROR). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    for (const work of [...this.queued.values()].flat()) work.reject(new Error('the zone calculator was closed'));
    this.queued.clear();
    if (w) await w.close();
  }

  /** Work waiting for the worker thread, not counting the piece under way. */
  get waiting(): number {
    let n = 0;
    for (const list of this.queued.values()) n += list.length;
    return n;
  }

  /** Posts `message` to the worker when its owner's turn comes (to the remote worker, where there is one); resolves with the reply. */
  inTurn(owner: string, message: Record<string, unknown>, key?: string): Promise<ZoneWorkerReply> {
    if (this.remote) return this.remote(owner, message, key);
    return new Promise<ZoneWorkerReply>((resolve, reject) => {
      const list = this.queued.get(owner);
      if (list) list.push({ message, resolve, reject });
      else this.queued.set(owner, [{ message, resolve, reject }]);
      this.next();
    });
  }

  /** Sends the next owner's oldest work to the worker, once the piece under way is answered. */
  private next(): void {
    if (this.busy) return;
    const turn = this.queued.entries().next();
    if (turn.done) return;
    const [owner, list] = turn.value;
    const work = list.shift()!;
    this.queued.delete(owner);
    if (list.length > 0) this.queued.set(owner, list); // to the back of the turn order
    let request: Promise<ZoneWorkerReply>;
    try {
      request = this.startWorker().request(work.message);
    } catch (err) {
      work.reject(new Error(`cannot start a worker thread: ${(err as Error).message}`));
      this.next();
      return;
    }
    this.busy = true;
    request.then(work.resolve, work.reject).finally(() => {
      this.busy = false;
      this.next();
    });
  }

  /** Calculates `zone` on the worker, or, with `json`, the zone of that stored body text (`zone` then only names it). */
  private onWorker(owner: string, zone: Zone, json?: JsonText, key?: string): Promise<CalculatedZone> {
    const started = performance.now();
    const fail = (status: ZoneStatus): CalculatedZone => ({
      zone,
      status,
      roadCount: 0,
      roads: new Uint32Array(0),
      roadMetresInside: new Float32Array(0),
      edgeCount: 0,
      metresInside: 0,
      blockedLength: 0,
      prepared: zone.polygons.map((p) => new PreparedPolygon(p.rings)),
      millis: performance.now() - started,
    });
    return this.inTurn(owner, json === undefined ? { zone } : { zoneJson: json }, key).then(
      (reply) => {
        if (reply.status.name === 'CALCULATION_ERROR') return fail(reply.status);
        const prepared = reply.prepared ? reply.prepared.map(PreparedPolygon.revive) : zone.polygons.map((p) => new PreparedPolygon(p.rings));
        return {
          zone: reply.polygonNames ? zoneOfPrepared(zone.name, reply.polygonNames, prepared, reply.rules) : zone,
          status: reply.status,
          roadCount: this.graph.roadCount,
          roads: reply.roads,
          roadMetresInside: reply.roadMetresInside,
          edgeCount: reply.edgeCount,
          metresInside: reply.metresInside,
          blockedLength: reply.blockedLength,
          prepared,
          millis: performance.now() - started,
        };
      },
      (err: Error) => fail(zoneStatus('CALCULATION_ERROR', err.message)),
    );
  }

  private startWorker(): WorkerRequests<ZoneWorkerReply> {
    if (this.worker) return this.worker;
    // SharedArrayBuffers are shared with the worker, not cloned: the graph (copied onto SABs once
    // only when it is not there already) and its indexes, the road index made here first (attached
    // to graph.indexes), so the worker adopts it and builds nothing.
    RoadIndex.for(this.graph);
    const workerData: ZoneWorkerData = {
      arrays: sharedGraphArrays(this.graph),
      meta: this.graph.meta,
      indexes: this.graph.indexes,
    };
    const requests: WorkerRequests<ZoneWorkerReply> = new WorkerRequests(startModuleWorker(import.meta.url, 'zoneWorker', workerData), () => {
      if (this.worker === requests) this.worker = undefined;
    });
    this.worker = requests;
    return requests;
  }
}

/** A Zone whose polygons are rebuilt from the prepared ones when first read (routing reads only the prepared). */
function zoneOfPrepared(name: string, polygonNames: string[], prepared: PreparedPolygon[], rules: ZoneRules = {}): Zone {
  let polygons: Zone['polygons'] | undefined;
  const zone = { name, ...rules } as Zone;
  Object.defineProperty(zone, 'polygons', { enumerable: true, get: () => (polygons ??= prepared.map((p, i) => ({ name: polygonNames[i], rings: p.rings() }))) });
  return zone;
}

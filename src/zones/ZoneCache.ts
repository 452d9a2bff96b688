import type { RoadGraph } from '../graph/RoadGraph.js';
import type { JsonText } from '../structures/sharedBuffer.js';
import { calculateZone, type CalculatedZone } from './calculateZone.js';
import { zoneStatus, type Zone, type ZoneStatus } from './Zone.js';
import { LARGE_ZONE_JSON, ZoneCalculator, type ZoneCalculatorOptions } from './ZoneCalculator.js';

/** A zone to cache: where it is kept, which version it is, and how to get it (parsed lazily). */
export interface ZoneSource {
  /** Unique among the cached zones, e.g. client id and zone name. */
  key: string;
  /** Whose zone it is (a client id): large zones are calculated each owner in turn (ZoneCalculator). */
  owner?: string;
  /** Changes whenever the zone changes. */
  revision: string;
  name: string;
  /** The validated zone; a throw (a stored zone that no longer validates) becomes CALCULATION_ERROR. */
  zone: () => Zone;
  /**
   * The zone's stored body as JSON text, when at hand: a large one (LARGE_ZONE_JSON) is then
   * parsed and calculated on the worker thread, and `zone()` is not called.
   */
  json?: JsonText;
}

interface Entry {
  revision: string;
  name: string;
  owner?: string;
  /** When it was last asked for (the clock's milliseconds). */
  usedAt: number;
  /** Set once calculated. */
  result?: CalculatedZone;
  /** Resolves with the result; set while a worker calculates. */
  pending: Promise<CalculatedZone>;
}

/**
 * Calculated zones of one graph, kept by key (for example client and zone name) and revision: a
 * new revision of a key is calculated afresh, the same revision is reused. Small zones are
 * calculated inline, large ones on the ZoneCalculator's worker (IN_CALCULATION meanwhile).
 */
export interface ZoneCacheOptions extends ZoneCalculatorOptions {
  /**
   * Most zones kept (default 20,000); the least recently used go first and are recalculated
   * when asked for again. Also bounds zones deleted elsewhere that this cache never hears of.
   */
  maxZones?: number;
  /** The clock (default Date.now), for `idle`. */
  now?: () => number;
  /** Called with each calculation the cache lets go (forgotten, idle, or pushed out), so what was made for it can go too. */
  onDropped?: (zone: CalculatedZone) => void;
  /** Called with each calculation once done, inline or on the worker (the service sends it to its trip threads, which customize routing cells around it: TripThreads). */
  onCalculated?: (zone: CalculatedZone) => void;
}

export class ZoneCache {
  readonly calculator: ZoneCalculator;
  private readonly entries = new Map<string, Entry>();
  private readonly maxZones: number;
  private readonly onCalculated: (zone: CalculatedZone) => void;
  private readonly onDropped: (zone: CalculatedZone) => void;
  private readonly now: () => number;

  constructor(readonly graph: RoadGraph, options: ZoneCacheOptions = {}) {
    this.calculator = new ZoneCalculator(graph, options);
    this.maxZones = Math.max(1, options.maxZones ?? 20_000);
    this.onCalculated = options.onCalculated ?? (() => {});
    this.onDropped = options.onDropped ?? (() => {});
    this.now = options.now ?? Date.now;
  }

  /**
   * The zone's calculation if done, else a stand-in with status IN_CALCULATION; starts the
   * calculation when this revision has not been seen.
   */
  current(source: ZoneSource): CalculatedZone {
    const entry = this.entry(source);
    return entry.result ?? unfinished(source.name, zoneStatus('IN_CALCULATION'));
  }

  /** Resolves when this revision's calculation is done. */
  settled(source: ZoneSource): Promise<CalculatedZone> {
    return this.entry(source).pending;
  }

  /**
   * The calculation of this key's revision if the cache holds it (the most recently used now),
   * else undefined: a caller that knows a zone's revision needs its body only on a miss.
   */
  lookup(key: string, revision: string, name: string): ZoneHandle | undefined {
    const known = this.entries.get(key);
    if (!known || known.revision !== revision) return undefined;
    this.entries.delete(key);
    known.usedAt = this.now();
    this.entries.set(key, known);
    return handleOf(known, name);
  }

  /** The calculation of a zone (starting it when this revision is new), to wait for or read now. */
  track(source: ZoneSource): ZoneHandle {
    return handleOf(this.entry(source), source.name);
  }

  /**
   * The zones not asked for in the last `millis`, least recently used first: a zone deleted or
   * replaced through another instance is never asked for again here, so the service checks these
   * against the store and forgets the stale ones (sweepZoneCache).
   */
  idle(millis: number): Array<{ key: string; owner?: string; name: string; revision: string }> {
    const before = this.now() - millis;
    const out: Array<{ key: string; owner?: string; name: string; revision: string }> = [];
    for (const [key, entry] of this.entries) {
      if (entry.usedAt >= before) break;
      out.push({ key, owner: entry.owner, name: entry.name, revision: entry.revision });
    }
    return out;
  }

  /** Drops a key (its zone was deleted). */
  forget(key: string): void {
    const known = this.entries.get(key);
    if (known) this.drop(key, known);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The most zones kept. */
  get capacity(): number {
    return this.maxZones;
  }

  close(): Promise<void> {
    return this.calculator.close();
  }

  /** Drops an entry, telling onDropped of its calculation (now, or when a worker finishes it). */
  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    if (entry.result) this.onDropped(entry.result);
    else entry.pending.then((result) => this.onDropped(result), () => {});
  }

  private entry({ key, owner, revision, name, zone, json }: ZoneSource): Entry {
    const usedAt = this.now();
    const known = this.entries.get(key);
    this.entries.delete(key); // re-inserted below: Map order is the recency order
    if (known && known.revision === revision) {
      known.usedAt = usedAt;
      this.entries.set(key, known);
      return known;
    }
    if (known) this.drop(key, known);
    if (this.entries.size >= this.maxZones) {
      const [oldKey, oldEntry] = this.entries.entries().next().value!;
      this.drop(oldKey, oldEntry);
    }
    // What names this calculation for a zone worker shared by several caches (ZoneWork): the revision
    // last, after an @ (the service's revisions are UUIDs, so two keys cannot read alike).
    const work = `${key}@${revision}`;
    if (json !== undefined && json.length > LARGE_ZONE_JSON) {
      const entry: Entry = { revision, name, owner, usedAt, pending: this.calculator.calculateJson(name, json, owner, work) };
      entry.pending.then((result) => {
        entry.result = result;
        this.onCalculated(result);
      });
      this.entries.set(key, entry);
      return entry;
    }
    let z: Zone;
    try {
      z = zone();
    } catch (err) {
      const result = unfinished(name, zoneStatus('CALCULATION_ERROR', `the stored zone is not valid: ${(err as Error).message}`));
      const entry = { revision, name, owner, usedAt, result, pending: Promise.resolve(result) };
      this.entries.set(key, entry);
      return entry;
    }
    let entry: Entry;
    const onWorker = this.calculator.runsOnWorker(z);
    if (!onWorker) {
      const result = calculateZone(this.graph, z);
      entry = { revision, name, owner, usedAt, result, pending: Promise.resolve(result) };
      this.onCalculated(result);
    } else {
      entry = { revision, name, owner, usedAt, pending: this.calculator.calculate(z, true, owner, work) };
      entry.pending.then((result) => {
        entry.result = result;
        this.onCalculated(result);
      });
    }
    this.entries.set(key, entry);
    return entry;
  }
}

/** One revision's calculation, held even if the cache lets it go meanwhile. */
export interface ZoneHandle {
  /** Resolves when calculated. */
  settled: Promise<CalculatedZone>;
  /** The calculation if done, else IN_CALCULATION. */
  current(): CalculatedZone;
  /** The calculation if done, else undefined. */
  done(): CalculatedZone | undefined;
}

function handleOf(entry: Entry, name: string): ZoneHandle {
  return { settled: entry.pending, current: () => entry.result ?? unfinished(name, zoneStatus('IN_CALCULATION')), done: () => entry.result };
}

/** A zone without roads yet: still in calculation, or failed. */
function unfinished(name: string, status: ZoneStatus): CalculatedZone {
  return {
    zone: { name, polygons: [] },
    status,
    roadCount: 0,
    roads: new Uint32Array(0),
    roadMetresInside: new Float32Array(0),
    edgeCount: 0,
    metresInside: 0,
    blockedLength: 0,
    prepared: [],
    millis: 0,
  };
}

import { DetourError, ErrorCode } from '../errors.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { activeIntervals } from '../zones/schedule.js';

/** How far past a departure a route may wait for a zone to open; a road opening only later is closed to it. */
export const SCHEDULE_HORIZON_SECONDS = 14 * 86_400;

/**
 * Time-dependent closures for one search (PathQuery.schedule): roads of scheduled zones, each
 * with a class whose timeline says when it is closed. Times are seconds since the departure; a
 * road is driven only at times when none of its zones is active, and a vehicle may wait before it.
 */
export interface RoadSchedule {
  /** Per road, 0 (never closed) or its class. */
  roads: Uint8Array;
  /** Lists whose union holds every road with a class. */
  roadLists: readonly ArrayLike<number>[];
  /** The wait before driving a road of class `cls` for `seconds` when arriving at `at` (Infinity: not within the horizon). */
  wait(cls: number, at: number, seconds: number): number;
}

/** An ISO-8601 date, or date-time with an optional offset, as Maplink's dates are written. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Latest departure accepted (the year 9999): later instants are surely a unit mistake. */
const LATEST_DEPARTURE = Date.UTC(9999, 11, 31);

/**
 * A request's departure as epoch milliseconds: a number of them, an ISO-8601 date-time (a date
 * alone is its UTC midnight; without an offset, UTC) or a Date; now when absent.
 */
export function departureOf(value: number | string | Date | undefined, field = 'departure'): number {
  if (value === undefined || value === null) return Date.now();
  const t = value instanceof Date ? value.getTime()
    : typeof value === 'number' ? value
      : typeof value === 'string' && ISO_DATE_TIME.test(value) ? Date.parse(value.length > 10 && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value) : NaN;
  if (!Number.isFinite(t) || t < 0 || t > LATEST_DEPARTURE) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `${field}: must be epoch milliseconds or an ISO-8601 date-time from 1970 to 9999, got ${JSON.stringify(value)}`, { field });
  }
  return t;
}

/** A wait a leg makes before a scheduled zone's road. */
export interface ZoneWait {
  zone: string;
  latitude: number;
  longitude: number;
  /** ISO-8601 instants: arrival at the road, and when driving on. */
  from: string;
  until: string;
  seconds: number;
}

/**
 * The scheduled zones of a request at its departure: a class per distinct set of zones on a road
 * (its timeline the union of theirs, as [start, end) pairs in seconds since the departure, ending
 * with [horizon, Infinity)), filled in a scratch mask in O(their roads).
 */
export class ScheduledZones implements RoadSchedule {
  readonly roads: Uint8Array;
  readonly roadLists: readonly ArrayLike<number>[];
  private readonly timelines: Float64Array[] = [new Float64Array([SCHEDULE_HORIZON_SECONDS, Infinity])];
  private readonly zonesOf: number[][] = [[]];
  private readonly zoneTimelines: Float64Array[];
  /** Seconds after the departure at which the current leg leaves (its searches' time 0). */
  offset = 0;

  constructor(readonly zones: CalculatedZone[], readonly departure: number, roads: Uint8Array) {
    this.roads = roads;
    this.roadLists = zones.map((z) => z.roads);
    this.zoneTimelines = zones.map((z) => zoneTimeline(z, departure));
    try {
      this.mark(zones, roads);
    } catch (err) {
      this.release();
      throw err;
    }
  }

  /** Gives each zone's roads the class of their zones so far plus this one (per zone: the class each earlier class becomes). */
  private mark(zones: CalculatedZone[], roads: Uint8Array): void {
    const next = new Int16Array(256);
    zones.forEach((z, i) => {
      next.fill(-1);
      for (let k = 0; k < z.roads.length; k++) {
        const r = z.roads[k], before = roads[r];
        let c = next[before];
        if (c < 0) {
          if (this.timelines.length > 255) {
            throw new DetourError(ErrorCode.INVALID_INPUT, 'the scheduled zones overlap in more than 255 combinations; name fewer of them', { field: 'zones' });
          }
          c = next[before] = this.timelines.length;
          const members = [...this.zonesOf[before], i];
          this.zonesOf.push(members);
          this.timelines.push(union(members.map((m) => this.zoneTimelines[m])));
        }
        roads[r] = c;
      }
    });
  }

  wait(cls: number, at: number, seconds: number): number {
    return waitIn(this.timelines[cls], this.offset + at, seconds);
  }

  /**
   * Which zones are active at `at` (seconds since the departure), and until when (the earliest
   * time one of them changes: Infinity past the horizon's end is not reached, as its sentinel counts).
   */
  statesAt(at: number): { active: boolean[]; until: number } {
    return statesIn(this.zoneTimelines, at);
  }

  /** Whether a road of class `cls` can be driven for `seconds` at some time within the horizon. */
  passable(cls: number, seconds: number): boolean {
    return waitIn(this.timelines[cls], 0, seconds) < Infinity;
  }

  /**
   * The waits of a path of edges entered `start` seconds after the departure, their sum, and
   * Infinity when a road cannot be driven within the horizon.
   */
  waitsAlong(graph: RoadGraph, edges: readonly number[], start: number): { total: number; waits: ZoneWait[] } {
    const { edgeRoad } = graph, millis = graph.roadMillis;
    const waits: ZoneWait[] = [];
    let t = this.offset + start, total = 0;
    for (const e of edges) {
      const road = edgeRoad[e], seconds = millis[road] * 0.001, cls = this.roads[road];
      if (cls !== 0) {
        const w = waitIn(this.timelines[cls], t, seconds);
        if (w === Infinity) return { total: Infinity, waits };
        if (w > 0) {
          const node = graph.edgeTailOf(e);
          const zone = this.zonesOf[cls].find((m) => waitIn(this.zoneTimelines[m], t, seconds) > 0) ?? this.zonesOf[cls][0];
          waits.push({
            zone: this.zones[zone].zone.name, latitude: graph.nodeLatitude(node), longitude: graph.nodeLongitude(node),
            from: new Date(this.departure + t * 1000).toISOString(), until: new Date(this.departure + (t + w) * 1000).toISOString(), seconds: w,
          });
          total += w;
          t += w;
        }
      }
      t += seconds;
    }
    return { total, waits };
  }

  /** The scratch mask, cleared. */
  release(): Uint8Array {
    for (const list of this.roadLists) for (let i = 0; i < list.length; i++) this.roads[list[i]] = 0;
    return this.roads;
  }
}

/**
 * Which scheduled zones are active at `departure` (epoch milliseconds), and for how many seconds
 * after it all stay as they are (the horizon at most).
 */
export function scheduleStates(zones: readonly CalculatedZone[], departure: number): { active: boolean[]; until: number } {
  return statesIn(zones.map((z) => zoneTimeline(z, departure)), 0);
}

/**
 * The active intervals every one of `zones` has over the horizon from `departure` (as
 * zoneTimeline's), or undefined when two of them differ.
 */
export function sharedTimeline(zones: readonly CalculatedZone[], departure: number): Float64Array | undefined {
  const timelines = zones.map((z) => zoneTimeline(z, departure));
  const first = timelines[0];
  if (!first) return undefined;
  return timelines.every((t) => t.length === first.length && t.every((x, i) => x === first[i])) ? first : undefined;
}

/**
 * A scheduled zone's active intervals over the horizon as [start, end) pairs in seconds after
 * `departure` (epoch milliseconds), ending with the sentinel [horizon, Infinity).
 */
function zoneTimeline(zone: CalculatedZone, departure: number): Float64Array {
  const iv = activeIntervals(zone.zone.schedule!, departure, departure + SCHEDULE_HORIZON_SECONDS * 1000);
  return Float64Array.from([...iv.map((t) => (t - departure) / 1000), SCHEDULE_HORIZON_SECONDS, Infinity]);
}

/** Which timelines are active at `at`, and until when all of them stay as they are. */
function statesIn(timelines: readonly Float64Array[], at: number): { active: boolean[]; until: number } {
  let until = Infinity;
  const active = timelines.map((iv) => {
    let i = 0;
    while (iv[2 * i + 1] <= at) i++;
    const on = iv[2 * i] <= at;
    until = Math.min(until, on ? iv[2 * i + 1] : iv[2 * i]);
    return on;
  });
  return { active, until };
}

/** Whether a path of edges entered at `start` waits nowhere (the free path is then the cheapest). */
export function waitsNone(graph: RoadGraph, edges: readonly number[], start: number, schedule: RoadSchedule): boolean {
  const { edgeRoad } = graph, millis = graph.roadMillis;
  let t = start;
  for (let i = 0; i < edges.length; i++) {
    const road = edgeRoad[edges[i]], seconds = millis[road] * 0.001, cls = schedule.roads[road];
    if (cls !== 0 && schedule.wait(cls, t, seconds) !== 0) return false;
    t += seconds;
  }
  return true;
}

/** The earliest wait w >= 0 such that [at + w, at + w + seconds] meets no interval of `iv`. */
function waitIn(iv: Float64Array, at: number, seconds: number): number {
  let lo = 0, hi = iv.length >>> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (iv[2 * mid + 1] > at) hi = mid;
    else lo = mid + 1;
  }
  let t = at;
  for (let i = lo; ; i++) {
    if (iv[2 * i] >= t + seconds) return t - at;
    if (iv[2 * i + 1] > t) t = iv[2 * i + 1];
    if (t === Infinity) return Infinity;
  }
}

/** The union of sorted interval lists (each ending with the horizon's [H, Infinity)). */
function union(lists: Float64Array[]): Float64Array {
  const pairs: Array<[number, number]> = [];
  for (const l of lists) for (let i = 0; i < l.length; i += 2) pairs.push([l[i], l[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [s, e] of pairs) {
    if (out.length > 0 && s <= out[out.length - 1]) out[out.length - 1] = Math.max(out[out.length - 1], e);
    else out.push(s, e);
  }
  return Float64Array.from(out);
}

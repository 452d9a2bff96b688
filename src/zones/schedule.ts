/**
 * When a zone is active (a detour extension of Maplink's zone): weekly windows of local time in an
 * IANA time zone, and dated exceptions. A window {days, from, to} is active on each listed day from
 * `from` to `to`; a `to` at or before `from` ends on the next day (a window across midnight);
 * "24:00" is the end of the day. An exception makes its whole local day active (`active: true`) or
 * inactive (`active: false`, windows running into it from the day before stop at its midnight).
 * Local times are read as the zone's clocks show them: a time a DST change skips counts from the
 * change (as ECMAScript's Temporal resolves it, "compatible"), a repeated one at its first
 * occurrence. No schedule: always active.
 */
export interface ZoneSchedule {
  timeZone: string;
  windows: ScheduleWindow[];
  exceptions?: ScheduleException[];
}

export interface ScheduleWindow {
  days: Weekday[];
  from: string;
  to: string;
}

export interface ScheduleException {
  /** A local date, YYYY-MM-DD. */
  date: string;
  active: boolean;
}

export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Bounds on a schedule's size (each costs its intervals to every request naming the zone). */
export const SCHEDULE_LIMITS = { windows: 100, exceptions: 400 } as const;

interface Issue { path: string; message: string }

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}` : typeof v);

/** A zone's `schedule`, checked member by member (issues name each path); undefined when it has a problem. */
export function checkSchedule(input: unknown, issues: Issue[]): ZoneSchedule | undefined {
  const before = issues.length;
  if (!isObject(input)) {
    issues.push({ path: 'schedule', message: `must be an object {timeZone, windows, exceptions}, got ${describe(input)}` });
    return undefined;
  }
  for (const key of Object.keys(input)) {
    if (key !== 'timeZone' && key !== 'windows' && key !== 'exceptions') issues.push({ path: `schedule.${key}`, message: 'is not a known member (timeZone, windows, exceptions)' });
  }
  const { timeZone, windows, exceptions } = input;
  if (typeof timeZone !== 'string' || timeZone.length > 64 || !validTimeZone(timeZone)) {
    issues.push({ path: 'schedule.timeZone', message: `must be an IANA time zone such as America/Sao_Paulo, got ${describe(timeZone)}` });
  }
  const out: ScheduleWindow[] = [];
  if (!Array.isArray(windows) || windows.length > SCHEDULE_LIMITS.windows) {
    issues.push({ path: 'schedule.windows', message: `must be an array of at most ${SCHEDULE_LIMITS.windows} windows {days, from, to}, got ${describe(windows)}` });
  } else {
    windows.forEach((w, i) => {
      const at = `schedule.windows[${i}]`;
      if (!isObject(w)) { issues.push({ path: at, message: `must be an object {days, from, to}, got ${describe(w)}` }); return; }
      for (const key of Object.keys(w)) if (key !== 'days' && key !== 'from' && key !== 'to') issues.push({ path: `${at}.${key}`, message: 'is not a known member (days, from, to)' });
      const days = w.days;
      if (!Array.isArray(days) || days.length === 0 || days.length > 7) {
        issues.push({ path: `${at}.days`, message: `must be a non-empty array of ${WEEKDAYS.join(', ')}, got ${describe(days)}` });
      } else {
        days.forEach((d, j) => { if (!(WEEKDAYS as readonly unknown[]).includes(d)) issues.push({ path: `${at}.days[${j}]`, message: `must be one of ${WEEKDAYS.join(', ')}, got ${describe(d)}` }); });
      }
      for (const key of ['from', 'to'] as const) {
        const v = w[key];
        if (typeof v !== 'string' || !TIME.test(v) || (key === 'from' && v === '24:00')) {
          issues.push({ path: `${at}.${key}`, message: `must be a local time HH:MM (00:00 to ${key === 'to' ? '24:00' : '23:59'}), got ${describe(v)}` });
        }
      }
      if (typeof w.from === 'string' && w.from === w.to) issues.push({ path: `${at}.to`, message: 'must differ from from (a whole day is 00:00 to 24:00)' });
      if (Array.isArray(days)) out.push({ days: [...new Set(days as Weekday[])], from: w.from as string, to: w.to as string });
    });
  }
  const dated: ScheduleException[] = [];
  if (exceptions !== undefined && exceptions !== null) {
    if (!Array.isArray(exceptions) || exceptions.length > SCHEDULE_LIMITS.exceptions) {
      issues.push({ path: 'schedule.exceptions', message: `must be an array of at most ${SCHEDULE_LIMITS.exceptions} exceptions {date, active}, got ${describe(exceptions)}` });
    } else {
      const seen = new Map<string, number>();
      exceptions.forEach((x, i) => {
        const at = `schedule.exceptions[${i}]`;
        if (!isObject(x)) { issues.push({ path: at, message: `must be an object {date, active}, got ${describe(x)}` }); return; }
        for (const key of Object.keys(x)) if (key !== 'date' && key !== 'active') issues.push({ path: `${at}.${key}`, message: 'is not a known member (date, active)' });
        if (typeof x.date !== 'string' || civilDay(x.date) === undefined) {
          issues.push({ path: `${at}.date`, message: `must be a date YYYY-MM-DD, got ${describe(x.date)}` });
        } else if (seen.has(x.date)) {
          issues.push({ path: `${at}.date`, message: `repeats exceptions[${seen.get(x.date)}]'s date` });
        } else {
          seen.set(x.date, i);
        }
        if (typeof x.active !== 'boolean') issues.push({ path: `${at}.active`, message: `must be true or false, got ${describe(x.active)}` });
        dated.push({ date: x.date as string, active: x.active as boolean });
      });
    }
  }
  if (issues.length > before) return undefined;
  return { timeZone: timeZone as string, windows: out, ...(dated.length > 0 && { exceptions: dated }) };
}

/**
 * The schedule's active time between `from` and `to` (epoch milliseconds) as sorted, disjoint,
 * non-adjacent intervals [start0, end0, start1, end1, ...] clipped to [from, to].
 */
export function activeIntervals(schedule: ZoneSchedule, from: number, to: number): number[] {
  const tz = schedule.timeZone;
  const exceptions = new Map<number, boolean>();
  for (const x of schedule.exceptions ?? []) exceptions.set(civilDay(x.date)!, x.active);
  const byDay: Array<Array<[number, number]>> = WEEKDAYS.map(() => []);
  for (const w of schedule.windows) {
    const a = minutesOf(w.from), b = minutesOf(w.to);
    for (const d of w.days) byDay[WEEKDAYS.indexOf(d)].push([a, b <= a ? b + 1440 : b]);
  }
  const raw: Array<[number, number]> = [];
  // Local days from the one before `from` (its windows may run past midnight) to the one holding `to`.
  const first = localDay(tz, from) - 1, last = localDay(tz, to);
  for (let day = first; day <= last; day++) {
    const dayStart = toEpoch(tz, day, 0);
    const next = toEpoch(tz, day + 1, 0);
    const exception = exceptions.get(day);
    if (exception === true) { raw.push([dayStart, next]); continue; }
    if (exception === false) continue;
    const weekday = (((day + 3) % 7) + 7) % 7; // day 0 (1970-01-01) was a Thursday
    for (const [a, b] of byDay[weekday]) {
      let end = b <= 1440 ? toEpoch(tz, day, b) : toEpoch(tz, day + 1, b - 1440);
      // A window running into an inactive exception day stops at that day's midnight.
      if (b > 1440 && exceptions.get(day + 1) === false) end = next;
      const start = toEpoch(tz, day, a);
      if (end > start) raw.push([start, end]);
    }
  }
  raw.sort((p, q) => p[0] - q[0]);
  const out: number[] = [];
  for (const [s0, e0] of raw) {
    const s = Math.max(s0, from), e = Math.min(e0, to);
    if (e <= s) continue;
    if (out.length > 0 && s <= out[out.length - 1]) out[out.length - 1] = Math.max(out[out.length - 1], e);
    else out.push(s, e);
  }
  return out;
}

function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/** Days since 1970-01-01 of a valid YYYY-MM-DD, else undefined. */
function civilDay(date: string): number | undefined {
  const m = DATE.exec(date);
  if (!m) return undefined;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return t / 86_400_000;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    if (formats.size > 1000) formats.clear();
    formats.set(tz, f);
  }
  return f;
}

function validTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    format(tz);
    return true;
  } catch {
    return false;
  }
}

/** The local wall-clock reading of an instant as milliseconds on a UTC scale. */
function wallClock(tz: string, time: number): number {
  const p: Record<string, number> = {};
  for (const part of format(tz).formatToParts(time)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (((time % 1000) + 1000) % 1000);
}

/** The local day (days since 1970-01-01 on the zone's calendar) holding an instant. */
function localDay(tz: string, time: number): number {
  return Math.floor(wallClock(tz, time) / 86_400_000);
}

/**
 * Per time zone and local day, the day's one offset (ms; NaN on a day its offset changes), kept
 * across requests: Intl's formatting costs microseconds a call, and a schedule reads each day's
 * boundaries over and over. Bounded: cleared past DAY_OFFSETS_MAX days in all.
 */
const dayOffsets = new Map<string, Map<number, number>>();
let dayOffsetCount = 0;
const DAY_OFFSETS_MAX = 200_000;

function dayOffset(tz: string, day: number): number {
  let days = dayOffsets.get(tz);
  if (!days) dayOffsets.set(tz, (days = new Map()));
  let o = days.get(day);
  if (o === undefined) {
    if (dayOffsetCount >= DAY_OFFSETS_MAX) { dayOffsets.clear(); dayOffsetCount = 0; dayOffsets.set(tz, days); }
    const start = localToEpoch(tz, day, 0), end = localToEpoch(tz, day + 1, 0);
    o = end - start === 86_400_000 ? day * 86_400_000 - start : NaN;
    days.set(day, o);
    dayOffsetCount++;
  }
  return o;
}

/** localToEpoch by the day's offset when it has one all day (nearly every day). */
function toEpoch(tz: string, day: number, minutes: number): number {
  const o = dayOffset(tz, day);
  return Number.isNaN(o) ? localToEpoch(tz, day, minutes) : day * 86_400_000 + minutes * 60_000 - o;
}

/**
 * The instant at which the zone's clocks show `minutes` past midnight of local day `day`: the
 * offsets a day and a half either side give the candidates (no zone changes its offset twice
 * within three days); a repeated reading takes the earlier, a skipped one the offset before the change.
 */
function localToEpoch(tz: string, day: number, minutes: number): number {
  const wall = day * 86_400_000 + minutes * 60_000;
  const offset = (t: number) => wallClock(tz, t) - t;
  const before = offset(wall - 129_600_000), after = offset(wall + 129_600_000);
  const tBefore = wall - before, tAfter = wall - after;
  const okBefore = offset(tBefore) === before, okAfter = offset(tAfter) === after;
  if (okBefore && okAfter) return Math.min(tBefore, tAfter);
  if (okAfter) return tAfter;
  return tBefore;
}

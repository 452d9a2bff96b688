import type { OsmTags } from './carProfile.js';

/**
 * The legal limits OSM puts on roads for heavy vehicles, as the import reads them: dimensions and
 * weights (`maxheight`, `maxwidth`, `maxlength`, `maxweight`, `maxaxleload`, on ways and on barrier
 * nodes), heavy goods vehicles' speed limit (`maxspeed:hgv`), heavy-goods and goods access (`hgv`, `goods`, falling back to `motor_vehicle`, `vehicle`,
 * `access`) and `hazmat=no`. A graph stores them only for the roads that carry one (RoadLimitTable).
 */

/** Access of a class of vehicles to a road: allowed, never, or only to reach a place on it. */
export const LimitAccess = { YES: 0, NO: 1, DESTINATION: 2 } as const;
export type LimitAccessValue = (typeof LimitAccess)[keyof typeof LimitAccess];

/** Bits of a limited road's access byte. */
export const AccessBits = {
  /** Bits 0-1: heavy goods vehicles (LimitAccess). */
  HGV_SHIFT: 0,
  /** Bits 2-3: goods vehicles up to 3.5 t (LimitAccess). */
  GOODS_SHIFT: 2,
  /** `hazmat=no`: no dangerous goods. */
  NO_HAZMAT: 16,
} as const;

/** The limits on one road (undefined members: no limit). Metres, tonnes, km/h. */
export interface RoadLimits {
  heightM?: number;
  widthM?: number;
  lengthM?: number;
  weightT?: number;
  axleLoadT?: number;
  /** `maxspeed:hgv`: heavy goods vehicles' speed limit (it slows them; it closes nothing). */
  hgvSpeedKmh?: number;
  hgv: LimitAccessValue;
  goods: LimitAccessValue;
  noHazmat: boolean;
}

/** The dimension and weight members of RoadLimits: a vehicle above one may not use the road. */
export const LIMIT_FIELDS = ['heightM', 'widthM', 'lengthM', 'weightT', 'axleLoadT'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];
/** Every figure a graph stores per limited road, in this order (LIMIT_STRIDE uint16 per road). */
export const STORED_FIELDS = [...LIMIT_FIELDS, 'hgvSpeedKmh'] as const;
export type StoredField = (typeof STORED_FIELDS)[number];
export const LIMIT_STRIDE = STORED_FIELDS.length;
/**
 * Stored units per metre, tonne or km/h: centimetres for dimensions, 10 kg for weights, whole km/h
 * (uint16: up to 655 m, 655 t). A value is rounded down to its unit, so a stored limit never
 * exceeds the signed one.
 */
export const LIMIT_UNITS_PER: Readonly<Record<StoredField, number>> = { heightM: 100, widthM: 100, lengthM: 100, weightT: 100, axleLoadT: 100, hgvSpeedKmh: 1 };

/** The OSM key each field is read from. */
export const LIMIT_KEYS: Readonly<Record<StoredField, string>> = {
  heightM: 'maxheight', widthM: 'maxwidth', lengthM: 'maxlength', weightT: 'maxweight', axleLoadT: 'maxaxleload', hgvSpeedKmh: 'maxspeed:hgv',
};

/** What the import read: per key, values used, values meaning "no limit", values it could not read; and conditional keys left unread. */
export interface LimitCounts {
  read: Record<string, number>;
  noLimit: Record<string, number>;
  unreadable: Record<string, number>;
  conditional: number;
}

export function emptyLimitCounts(): LimitCounts {
  return { read: {}, noLimit: {}, unreadable: {}, conditional: 0 };
}

/** Values that sign no limit (`default`: the country's general limit, which the vehicle's legal figures already meet). */
const NO_LIMIT = new Set(['none', 'default', 'unsigned', 'no', 'unlimited']);

/**
 * A length in metres: `3.5`, `3,5`, `3.5 m`, `350 cm`, `12'6"`, `12 ft`, `12 ft 6 in`; 'none' for
 * a value that signs no limit; undefined when unreadable (`below_default`, garbage): never guessed.
 */
export function parseLengthLimit(value: string | undefined): number | 'none' | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (NO_LIMIT.has(v)) return 'none';
  const metric = /^(\d+(?:[.,]\d+)?)\s*(m|cm|metres?|meters?)?$/.exec(v);
  if (metric) {
    const n = Number(metric[1].replace(',', '.'));
    return positive(metric[2] === 'cm' ? n / 100 : n);
  }
  const feet = /^(\d+(?:\.\d+)?)\s*(?:'|ft|feet)\s*(?:(\d+(?:\.\d+)?)\s*(?:"|in|inch|inches))?$/.exec(v);
  if (feet) return positive(Number(feet[1]) * 0.3048 + Number(feet[2] ?? 0) * 0.0254);
  const inches = /^(\d+(?:\.\d+)?)\s*(?:"|in)$/.exec(v);
  if (inches) return positive(Number(inches[1]) * 0.0254);
  return undefined;
}

/**
 * A weight in tonnes: `7.5`, `7,5`, `7.5 t`, `7500 kg`, `10 st` (short tons), `20000 lbs`; 'none'
 * for a value that signs no limit; undefined when unreadable.
 */
export function parseWeightLimit(value: string | undefined): number | 'none' | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (NO_LIMIT.has(v)) return 'none';
  const m = /^(\d+(?:[.,]\d+)?)\s*(t|tonnes?|tons?|kg|st|lbs?)?$/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1].replace(',', '.'));
  const unit = m[2];
  if (unit === 'kg') return positive(n / 1000);
  if (unit === 'st') return positive(n * 0.90718474);
  if (unit === 'lb' || unit === 'lbs') return positive(n * 0.00045359237);
  return positive(n);
}

/** A speed in km/h: `60`, `60 km/h`, `40 mph`; 'none' for a value that signs no limit; undefined when unreadable. */
export function parseSpeedLimit(value: string | undefined): number | 'none' | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (NO_LIMIT.has(v)) return 'none';
  const m = /^(\d+(?:\.\d+)?)\s*(km\/h|kmh|kph|mph)?$/.exec(v);
  if (!m) return undefined;
  return positive(m[2] === 'mph' ? Number(m[1]) * 1.609344 : Number(m[1]));
}

const positive = (n: number): number | undefined => (n > 0 && Number.isFinite(n) ? n : undefined);

const DENIED = new Set(['no', 'private', 'agricultural', 'forestry', 'military', 'emergency', 'permit', 'agricultural;forestry']);
const DESTINATION = new Set(['destination', 'delivery', 'customers', 'local']);

/** The first present of `keys` decides (its first value in a `a;b` list). */
function accessOf(tags: OsmTags, keys: readonly string[]): LimitAccessValue {
  for (const key of keys) {
    const raw = tags[key];
    if (raw === undefined) continue;
    const v = raw.split(';')[0].trim().toLowerCase();
    if (DENIED.has(v)) return LimitAccess.NO;
    if (DESTINATION.has(v)) return LimitAccess.DESTINATION;
    return LimitAccess.YES;
  }
  return LimitAccess.YES;
}

const HGV_KEYS = ['hgv', 'motor_vehicle', 'vehicle', 'access'];
const GOODS_KEYS = ['goods', 'motor_vehicle', 'vehicle', 'access'];

/**
 * The limits a way's (or a barrier node's) tags put on heavy vehicles, undefined when none.
 * Counts what it read, what signs no limit and what it could not read; `*:conditional` keys
 * (limits at some hours or weights) are counted and not read.
 */
export function readRoadLimits(tags: OsmTags, counts?: LimitCounts): RoadLimits | undefined {
  const limits: RoadLimits = { hgv: accessOf(tags, HGV_KEYS), goods: accessOf(tags, GOODS_KEYS), noHazmat: tags.hazmat === 'no' };
  let any = limits.hgv !== LimitAccess.YES || limits.goods !== LimitAccess.YES || limits.noHazmat;
  for (const field of STORED_FIELDS) {
    const key = LIMIT_KEYS[field];
    const raw = tags[key];
    if (counts && tags[`${key}:conditional`] !== undefined) counts.conditional++;
    if (raw === undefined) continue;
    const value = field === 'hgvSpeedKmh' ? parseSpeedLimit(raw) : field === 'weightT' || field === 'axleLoadT' ? parseWeightLimit(raw) : parseLengthLimit(raw);
    if (counts) {
      const bucket = value === undefined ? counts.unreadable : value === 'none' ? counts.noLimit : counts.read;
      bucket[key] = (bucket[key] ?? 0) + 1;
    }
    if (typeof value === 'number') {
      limits[field] = value;
      any = true;
    }
  }
  if (counts && tags['hgv:conditional'] !== undefined) counts.conditional++;
  return any ? limits : undefined;
}

/** Both limits together: the lower figure of each, the stricter access. */
export function strictestLimits(a: RoadLimits | undefined, b: RoadLimits | undefined): RoadLimits | undefined {
  if (!a || !b) return a ?? b;
  const out: RoadLimits = { hgv: Math.max(a.hgv, b.hgv) as LimitAccessValue, goods: Math.max(a.goods, b.goods) as LimitAccessValue, noHazmat: a.noHazmat || b.noHazmat };
  for (const f of STORED_FIELDS) {
    const x = a[f], y = b[f];
    if (x !== undefined || y !== undefined) out[f] = Math.min(x ?? Infinity, y ?? Infinity);
  }
  return out;
}

/** Whether two roads' limits are the same once stored (so two pieces may be joined into one road). */
export function sameStoredLimits(a: RoadLimits | undefined, b: RoadLimits | undefined): boolean {
  if (!a || !b) return a === b;
  if (accessByte(a) !== accessByte(b)) return false;
  return STORED_FIELDS.every((f) => storedLimit(a[f], f) === storedLimit(b[f], f));
}

/** A limit in its stored unit (0: none; at most 65,535, which is far above any vehicle). */
export function storedLimit(value: number | undefined, field: StoredField): number {
  if (value === undefined) return 0;
  return Math.max(1, Math.min(0xffff, Math.floor(value * LIMIT_UNITS_PER[field] + 1e-6)));
}

export function accessByte(l: RoadLimits): number {
  return (l.hgv << AccessBits.HGV_SHIFT) | (l.goods << AccessBits.GOODS_SHIFT) | (l.noHazmat ? AccessBits.NO_HAZMAT : 0);
}

/**
 * A graph's limits, kept for the roads that carry one: `roads` ascending, `values` LIMIT_STRIDE
 * uint16 per road in STORED_FIELDS order (LIMIT_UNITS_PER; 0 is no limit), `access` one byte per road
 * (AccessBits). About 17 bytes per limited road; nothing for the others.
 */
export interface RoadLimitArrays {
  limitRoads: Uint32Array;
  limitValues: Uint16Array;
  limitAccess: Uint8Array;
}

/** The sparse arrays of per-road limits (undefined for roads without). */
export function limitArrays(perRoad: readonly (RoadLimits | undefined)[]): RoadLimitArrays {
  let n = 0;
  for (const l of perRoad) if (l) n++;
  const limitRoads = new Uint32Array(n);
  const limitValues = new Uint16Array(n * LIMIT_STRIDE);
  const limitAccess = new Uint8Array(n);
  let k = 0;
  perRoad.forEach((l, r) => {
    if (!l) return;
    limitRoads[k] = r;
    STORED_FIELDS.forEach((f, i) => { limitValues[k * LIMIT_STRIDE + i] = storedLimit(l[f], f); });
    limitAccess[k] = accessByte(l);
    k++;
  });
  return { limitRoads, limitValues, limitAccess };
}

/** The limits stored for entry k of a graph's limit arrays, in metres and tonnes. */
export function limitsAt(a: RoadLimitArrays, k: number): RoadLimits {
  const bits = a.limitAccess[k];
  const out: RoadLimits = {
    hgv: ((bits >> AccessBits.HGV_SHIFT) & 3) as LimitAccessValue,
    goods: ((bits >> AccessBits.GOODS_SHIFT) & 3) as LimitAccessValue,
    noHazmat: (bits & AccessBits.NO_HAZMAT) !== 0,
  };
  STORED_FIELDS.forEach((f, i) => {
    const v = a.limitValues[k * LIMIT_STRIDE + i];
    if (v > 0) out[f] = v / LIMIT_UNITS_PER[f];
  });
  return out;
}

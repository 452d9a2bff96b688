/**
 * The car profile: which OSM ways a car may use, in which directions, how fast.
 * Modelled on OSRM's car.lua, simplified: no turn costs, no conditional restrictions.
 * Turn restrictions are read in turnRestrictions.ts; barriers by carBarrierBlocks below.
 */

export type OsmTags = Record<string, string | undefined>;

/** Road flags kept per road (a Uint16 each): directions, and what avoidance options avoid. */
export const RoadFlag = {
  FORWARD: 1, // travel allowed from the road's first shape point to its last
  BACKWARD: 2, // travel allowed from last to first
  TUNNEL: 4,
  BRIDGE: 8,
  TOLL: 16, // a toll road (`toll=*` other than no)
  FERRY: 32,
  ROUNDABOUT: 64,
  UNPAVED: 128, // `surface=*` one of UNPAVED_SURFACES
  TOLL_GATE: 256, // the road passes a `barrier=toll_booth` node (set by the OSM import)
} as const;

/** `surface=*` values read as unpaved (OSRM's and Valhalla's unpaved lists, merged). */
export const UNPAVED_SURFACES: ReadonlySet<string> = new Set([
  'unpaved', 'gravel', 'fine_gravel', 'pebblestone', 'rock', 'dirt', 'earth', 'ground', 'grass', 'grass_paver',
  'sand', 'mud', 'compacted', 'woodchips', 'salt', 'snow', 'ice', 'clay',
]);

/** Routable road classes and their default speeds in km/h (used when `maxspeed` is absent). */
export const HIGHWAY_DEFAULT_SPEED_KMH: Readonly<Record<string, number>> = {
  motorway: 90,
  motorway_link: 45,
  trunk: 85,
  trunk_link: 40,
  primary: 65,
  primary_link: 30,
  secondary: 55,
  secondary_link: 25,
  tertiary: 40,
  tertiary_link: 20,
  unclassified: 25,
  residential: 25,
  living_street: 10,
  service: 15,
  road: 20,
  ferry: 5,
};

/** The road classes in a fixed order, so a class can be stored as a byte. */
export const HIGHWAY_CLASSES: readonly string[] = Object.keys(HIGHWAY_DEFAULT_SPEED_KMH);

/** Country-zone maxspeed values (`RU:urban`, `DE:rural`, ...) by their zone part, in km/h. */
const ZONE_SPEED_KMH: Readonly<Record<string, number>> = {
  urban: 50,
  rural: 90,
  trunk: 100,
  motorway: 120,
  living_street: 20,
  walk: 7,
  zone30: 30,
  zone20: 20,
  zone10: 10,
};

const DENIED_ACCESS = new Set(['no', 'private', 'agricultural', 'forestry', 'delivery', 'emergency', 'military']);
const MIN_SPEED_KMH = 3;
const MAX_SPEED_KMH = 140;

export interface RoadAttributes {
  /** Bit set of RoadFlag values; FORWARD and/or BACKWARD is always set. */
  flags: number;
  /** Travel speed in km/h. */
  speedKmh: number;
  /** Index into HIGHWAY_CLASSES. */
  highwayClass: number;
}

/**
 * Parses an OSM `maxspeed` value into km/h, or undefined when it carries no usable number
 * (`signals`, `variable`, `none`, garbage). Handles `50`, `50 km/h`, `30 mph`, `10 knots`,
 * `RU:urban`, `DE:zone30`, `DE:zone:30`, `walk`, and lists like `50;30` (the lowest wins).
 */
export function parseMaxspeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let lowest: number | undefined;
  for (const part of value.split(';')) {
    const kmh = parseOneMaxspeed(part.trim().toLowerCase());
    if (kmh !== undefined && (lowest === undefined || kmh < lowest)) lowest = kmh;
  }
  return lowest;
}

function parseOneMaxspeed(v: string): number | undefined {
  if (v === '') return undefined;
  const numeric = /^(\d+(?:\.\d+)?)\s*(km\/h|kmh|kph|mph|knots)?$/.exec(v);
  if (numeric) {
    const n = Number(numeric[1]);
    if (!(n > 0)) return undefined;
    const unit = numeric[2];
    if (unit === 'mph') return n * 1.609344;
    if (unit === 'knots') return n * 1.852;
    return n;
  }
  if (v === 'walk') return ZONE_SPEED_KMH.walk;
  const zone = /^[a-z]{2}(?:-[a-z0-9]+)?:(.+)$/.exec(v);
  if (zone) {
    const kind = zone[1].replace(/:/g, '');
    if (kind in ZONE_SPEED_KMH) return ZONE_SPEED_KMH[kind];
    const zoneNumber = /^zone(\d+)$/.exec(kind);
    if (zoneNumber) return Number(zoneNumber[1]);
  }
  return undefined;
}

/** The most specific access tag for cars decides: motorcar, then motor_vehicle, vehicle, access. */
function carAccessDenied(tags: OsmTags): boolean {
  for (const key of ['motorcar', 'motor_vehicle', 'vehicle', 'access']) {
    const v = tags[key];
    if (v !== undefined) return DENIED_ACCESS.has(v);
  }
  return false;
}

/** Values of motorcar / motor_vehicle / vehicle that put cars on a ferry. */
const FERRY_CAR_ACCESS = new Set(['yes', 'designated']);

/** `ferry=<road class>` says which road a ferry route carries: a road cars drive on. */
const CAR_FERRY_ROAD_CLASSES = new Set([
  'motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'unclassified', 'residential', 'road', 'service',
]);

/**
 * A ferry carries cars only when it says so: the most specific of motorcar, motor_vehicle and
 * vehicle present is yes/designated, or `ferry=<a road class>` names the road it carries.
 * A bare `route=ferry` is taken as a passenger boat (a water bus), as is `motorcar=no`.
 */
export function ferryCarriesCars(tags: OsmTags): boolean {
  for (const key of ['motorcar', 'motor_vehicle', 'vehicle']) {
    const v = tags[key];
    if (v !== undefined) return FERRY_CAR_ACCESS.has(v);
  }
  return tags.ferry !== undefined && CAR_FERRY_ROAD_CLASSES.has(tags.ferry);
}

/** Barrier values a car passes (OSRM's car.lua whitelist, plus gates, which OSRM passes with a delay). */
const PASSABLE_BARRIERS = new Set([
  'cattle_grid', 'border_control', 'toll_booth', 'sally_port', 'no', 'entrance', 'height_restrictor', 'arch',
  'gate', 'lift_gate',
]);

/** Height of a car in metres: a height restrictor lower than this blocks. */
const CAR_HEIGHT_M = 2.0;

/**
 * Whether a node with these tags stops a car (a route may reach it but not pass through).
 * As OSRM's car.lua: a car access tag on the node decides when present (motorcar, then
 * motor_vehicle, vehicle, access; a value that denies the way to cars blocks, any other passes);
 * else `barrier=*` blocks unless it is one cars pass (cattle grid, border control, toll booth,
 * sally port, entrance, arch, gate, lift gate, `no`), a rising bollard, a lowered or flush kerb,
 * a kerb on a crossing, an audible (virtual) fence, or a height restrictor at least 2 m high.
 */
export function carBarrierBlocks(tags: OsmTags): boolean {
  for (const key of ['motorcar', 'motor_vehicle', 'vehicle', 'access']) {
    const v = tags[key];
    if (v !== undefined) return DENIED_ACCESS.has(firstAccessValue(v));
  }
  const barrier = tags.barrier;
  if (barrier === undefined) return false;
  if (barrier === 'height_restrictor') {
    const height = parseMetres(tags.maxheight);
    return height !== undefined && height < CAR_HEIGHT_M;
  }
  if (PASSABLE_BARRIERS.has(barrier)) return false;
  if (barrier === 'bollard' && tags.bollard === 'rising') return false;
  if (barrier === 'kerb' && (tags.kerb === 'lowered' || tags.kerb === 'flush' || tags.highway === 'crossing')) return false;
  if (barrier === 'fence' && (tags.sensory === 'audible' || tags.sensory === 'audio')) return false;
  return true;
}

/** `no;yes`-style lists: the first value decides (the most common reading). */
function firstAccessValue(v: string): string {
  const i = v.indexOf(';');
  return (i < 0 ? v : v.slice(0, i)).trim();
}

/** Parses a height like `1.9`, `1.9 m` or `6'6"` into metres; undefined when unreadable. */
export function parseMetres(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  const metres = /^(\d+(?:\.\d+)?)\s*m?$/.exec(v);
  if (metres) return Number(metres[1]);
  const feet = /^(\d+)\s*'\s*(?:(\d+(?:\.\d+)?)\s*")?$/.exec(v);
  if (feet) return Number(feet[1]) * 0.3048 + Number(feet[2] ?? 0) * 0.0254;
  return undefined;
}

/**
 * Decides how a car may use a way with these tags; null when it may not at all.
 * Ferries need a tag that lets cars on (ferryCarriesCars).
 * `oneway=reversible` ways are excluded, as OSRM does: their direction depends on the time of day.
 */
export function carRoadAttributes(tags: OsmTags): RoadAttributes | null {
  const isFerry = tags.route === 'ferry';
  const highway = isFerry ? 'ferry' : tags.highway;
  if (highway === undefined || !(highway in HIGHWAY_DEFAULT_SPEED_KMH)) return null;
  if (tags.area === 'yes' && !isFerry) return null;
  if (carAccessDenied(tags)) return null;
  if (isFerry && !ferryCarriesCars(tags)) return null;
  if (tags.impassable === 'yes' || tags.status === 'impassable') return null;

  const junction = tags.junction;
  const isRoundabout = junction === 'roundabout' || junction === 'circular';
  const oneway = (tags['oneway:motor_vehicle'] ?? tags['oneway:motorcar'] ?? tags.oneway)?.toLowerCase();
  let flags = 0;
  if (oneway === 'reversible' || oneway === 'alternating') return null;
  if (oneway === '-1' || oneway === 'reverse') flags |= RoadFlag.BACKWARD;
  else if (oneway === 'yes' || oneway === '1' || oneway === 'true') flags |= RoadFlag.FORWARD;
  else if (oneway === 'no' || oneway === '0' || oneway === 'false') flags |= RoadFlag.FORWARD | RoadFlag.BACKWARD;
  else if (isRoundabout || highway === 'motorway' || highway === 'motorway_link') flags |= RoadFlag.FORWARD;
  else flags |= RoadFlag.FORWARD | RoadFlag.BACKWARD;

  if (isRoundabout) flags |= RoadFlag.ROUNDABOUT;
  if (isFerry) flags |= RoadFlag.FERRY;
  if (tags.tunnel !== undefined && tags.tunnel !== 'no') flags |= RoadFlag.TUNNEL;
  if (tags.bridge !== undefined && tags.bridge !== 'no') flags |= RoadFlag.BRIDGE;
  if (tags.toll !== undefined && tags.toll !== 'no') flags |= RoadFlag.TOLL;
  if (tags.surface !== undefined && UNPAVED_SURFACES.has(tags.surface)) flags |= RoadFlag.UNPAVED;

  const posted = parseMaxspeed(tags.maxspeed);
  const speed = posted ?? HIGHWAY_DEFAULT_SPEED_KMH[highway];
  return {
    flags,
    speedKmh: Math.min(MAX_SPEED_KMH, Math.max(MIN_SPEED_KMH, speed)),
    highwayClass: HIGHWAY_CLASSES.indexOf(highway),
  };
}

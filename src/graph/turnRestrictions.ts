/**
 * OSM turn restriction relations (type=restriction) for cars: parsing, and resolving their
 * members onto the segments of the imported ways. Malformed relations are counted by reason,
 * never thrown. The graph side (node copies) is in turnExpansion.ts.
 */
import type { OsmTags } from './carProfile.js';

/** The restriction values read: `no_*` forbid the from-to sequence, `only_*` allow nothing else. */
export const RESTRICTION_KINDS = [
  'no_left_turn', 'no_right_turn', 'no_straight_on', 'no_u_turn', 'no_entry', 'no_exit',
  'only_left_turn', 'only_right_turn', 'only_straight_on', 'only_u_turn',
] as const;

/** Why a restriction relation was not applied. */
export type SkipReason =
  | 'conditionalOnly' // only restriction:conditional, which detour ignores
  | 'otherVehicles' // only for other vehicles (restriction:hgv, ...)
  | 'exceptCars' // except=* exempts motor cars
  | 'unknownKind' // a restriction value none of RESTRICTION_KINDS
  | 'missingMembers' // no from, via or to, members of the wrong type, or several `to` for an only_*
  | 'outsideExtract' // a member (or the via point) is not in the extract
  | 'notCarRoad' // a member way is a highway cars may not use
  | 'viaNotJoined' // the via does not join from and to (a from/to not ending there, a broken via chain)
  | 'barrier'; // a barrier at the via stops cars anyway

export const SKIP_REASONS: readonly SkipReason[] = [
  'conditionalOnly', 'otherVehicles', 'exceptCars', 'unknownKind', 'missingMembers', 'outsideExtract',
  'notCarRoad', 'viaNotJoined', 'barrier',
];

export interface RestrictionSummary {
  /** Relations with type=restriction. */
  read: number;
  applied: number;
  skipped: Record<SkipReason, number>;
}

export function emptyRestrictionSummary(): RestrictionSummary {
  return { read: 0, applied: 0, skipped: Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number> };
}

export interface OsmMember {
  type: string;
  ref: number;
  role: string;
}

/** A car restriction as read from a relation, members still as OSM ids. */
export interface OsmRestriction {
  id: number;
  kind: 'no' | 'only';
  from: number[];
  /** One via node, or via ways in order. */
  viaNode?: number;
  viaWays: number[];
  to: number[];
}

const CAR_RESTRICTION_KEYS = ['restriction:motorcar', 'restriction:motor_vehicle', 'restriction:vehicle', 'restriction'];
const CAR_EXCEPTIONS = new Set(['motorcar', 'motor_vehicle', 'vehicle']);

/** Whether a relation is a turn restriction at all (counted as read). */
export function isRestrictionRelation(tags: OsmTags): boolean {
  return tags.type === 'restriction';
}

/**
 * Reads a type=restriction relation for cars: the most specific of restriction:motorcar,
 * restriction:motor_vehicle, restriction:vehicle and restriction decides; `except` naming
 * motorcar, motor_vehicle or vehicle exempts cars. Returns the restriction or why it is skipped.
 */
export function parseRestriction(id: number, tags: OsmTags, members: OsmMember[]): OsmRestriction | SkipReason {
  let value: string | undefined;
  for (const key of CAR_RESTRICTION_KEYS) {
    if (tags[key] !== undefined) {
      value = tags[key];
      break;
    }
  }
  if (value === undefined) {
    const keys = Object.keys(tags);
    if (keys.some((k) => k.startsWith('restriction') && k.endsWith(':conditional'))) return 'conditionalOnly';
    return keys.some((k) => k.startsWith('restriction:')) ? 'otherVehicles' : 'unknownKind';
  }
  if (tags.except !== undefined && tags.except.split(';').some((v) => CAR_EXCEPTIONS.has(v.trim()))) return 'exceptCars';
  const kind = value.trim();
  if (!(RESTRICTION_KINDS as readonly string[]).includes(kind)) return 'unknownKind';
  const from: number[] = [];
  const to: number[] = [];
  const viaNodes: number[] = [];
  const viaWays: number[] = [];
  for (const m of members) {
    if (m.role === 'from' || m.role === 'to') {
      if (m.type !== 'way') return 'missingMembers';
      (m.role === 'from' ? from : to).push(m.ref);
    } else if (m.role === 'via') {
      if (m.type === 'node') viaNodes.push(m.ref);
      else if (m.type === 'way') viaWays.push(m.ref);
      else return 'missingMembers';
    }
  }
  const only = kind.startsWith('only_');
  if (from.length === 0 || to.length === 0) return 'missingMembers';
  if (viaNodes.length + viaWays.length === 0 || (viaNodes.length > 0 && (viaNodes.length > 1 || viaWays.length > 0))) {
    return 'missingMembers';
  }
  if (only && to.length > 1) return 'missingMembers';
  return { id, kind: only ? 'only' : 'no', from, viaNode: viaNodes[0], viaWays, to };
}

/** One segment of an imported way, driven along (against = false) or against its point order. */
export interface WaySegment {
  way: number;
  /** Index of the segment's second point in the way's reference list. */
  k: number;
  against: boolean;
}

/** What resolve needs to know about the imported ways: read-only views kept by importOsm. */
export interface WayIndex {
  /** Index of a car way by OSM id, or undefined. */
  wayOf(osmId: number): number | undefined;
  /** Whether the extract has a highway with this id that cars may not use. */
  hasWay(osmId: number): boolean;
  /** Point indices of a car way (-1 for nodes outside the extract). */
  refs(way: number): ArrayLike<number>;
  /** Point index of an OSM node used by a car way, or -1. */
  pointOf(osmNode: number): number;
  /** Whether an OSM node is in the extract at all. */
  hasNode(osmNode: number): boolean;
  /** Whether the point is a barrier that stops cars. */
  blocks(point: number): boolean;
}

/** A restriction on imported way segments: from, via ways' segments in travel order, to. */
export interface ResolvedRestriction {
  kind: 'no' | 'only';
  /** Each a full sequence: the from segment, via segments, the to segment. */
  sequences: WaySegment[][];
  /** Points that must stay graph nodes (the via node, or the via ways' ends). */
  viaPoints: number[];
}

/** The segment of `way` that ends at its end `point` (its last or first), travelled into that point. */
function segmentInto(refs: ArrayLike<number>, way: number, point: number): WaySegment | null {
  const n = refs.length;
  const last = refs[n - 1] === point;
  const first = refs[0] === point;
  if (last === first) return null; // neither end, or a closed way: which side is meant is unclear
  if (last) {
    let k = n - 1;
    while (k > 0 && refs[k - 1] === point) k--;
    return k > 0 ? { way, k, against: false } : null;
  }
  let k = 1;
  while (k < n && refs[k] === point) k++;
  return k < n ? { way, k, against: true } : null;
}

function segmentOutOf(refs: ArrayLike<number>, way: number, point: number): WaySegment | null {
  const s = segmentInto(refs, way, point);
  return s && { ...s, against: !s.against };
}

/** The segments of a via way from its end `start` to its other end, in travel order. */
function segmentsAlong(refs: ArrayLike<number>, way: number, start: number): { segments: WaySegment[]; end: number } | null {
  const n = refs.length;
  if (refs[0] === refs[n - 1]) return null;
  const segments: WaySegment[] = [];
  if (refs[0] === start) {
    for (let k = 1; k < n; k++) if (refs[k] !== refs[k - 1]) segments.push({ way, k, against: false });
    return { segments, end: refs[n - 1] };
  }
  if (refs[n - 1] === start) {
    for (let k = n - 1; k >= 1; k--) if (refs[k] !== refs[k - 1]) segments.push({ way, k, against: true });
    return { segments, end: refs[0] };
  }
  return null;
}

/**
 * Resolves a restriction's members onto way segments, or says why it cannot be applied.
 * From and to ways must end at the via node (or at the ends of the via chain), as OSM requires;
 * via ways must join end to end, in member order.
 */
export function resolveRestriction(r: OsmRestriction, index: WayIndex): ResolvedRestriction | SkipReason {
  const member = (osmId: number): number | SkipReason => {
    const w = index.wayOf(osmId);
    if (w !== undefined) return w;
    return index.hasWay(osmId) ? 'notCarRoad' : 'outsideExtract';
  };
  const ways: number[][] = [];
  for (const list of [r.from, r.viaWays, r.to]) {
    const out: number[] = [];
    for (const id of list) {
      const w = member(id);
      if (typeof w === 'string') return w;
      out.push(w);
    }
    ways.push(out);
  }
  const [from, via, to] = ways;
  const missing = (w: number) => Array.prototype.some.call(index.refs(w), (p: number) => p < 0);

  // The via chain: its entry point (where from ways end), the via segments, and its exit point.
  let entry: number;
  let exit: number;
  let viaSegments: WaySegment[] = [];
  const viaPoints: number[] = [];
  if (r.viaNode !== undefined) {
    const p = index.pointOf(r.viaNode);
    if (p < 0) return index.hasNode(r.viaNode) ? 'viaNotJoined' : 'outsideExtract';
    entry = exit = p;
    viaPoints.push(p);
  } else {
    // The chain's start is the end of the first via way that the (first) from way ends at.
    const fromRefs = index.refs(from[0]);
    const firstVia = index.refs(via[0]);
    const ends = [firstVia[0], firstVia[firstVia.length - 1]];
    const candidates = ends.filter((p) => p >= 0 && (fromRefs[0] === p || fromRefs[fromRefs.length - 1] === p));
    if (candidates.length !== 1) return via.some(missing) ? 'outsideExtract' : 'viaNotJoined';
    entry = candidates[0];
    let at = entry;
    viaPoints.push(at);
    for (const w of via) {
      if (missing(w)) return 'outsideExtract';
      const along = segmentsAlong(index.refs(w), w, at);
      if (!along) return 'viaNotJoined';
      viaSegments = viaSegments.concat(along.segments);
      for (const s of along.segments) if (index.blocks(index.refs(w)[s.k])) return 'barrier';
      at = along.end;
      viaPoints.push(at);
    }
    exit = at;
  }
  if (index.blocks(entry) || index.blocks(exit)) return 'barrier';

  const sequences: WaySegment[][] = [];
  for (const f of from) {
    const into = segmentInto(index.refs(f), f, entry);
    if (!into) return 'viaNotJoined';
    for (const t of to) {
      const out = segmentOutOf(index.refs(t), t, exit);
      if (!out) return 'viaNotJoined';
      sequences.push([into, ...viaSegments, out]);
    }
  }
  for (const seq of sequences) {
    for (const s of seq) {
      const refs = index.refs(s.way);
      if (refs[s.k] < 0 || refs[s.k - 1] < 0) return 'outsideExtract';
    }
  }
  return { kind: r.kind, sequences, viaPoints };
}

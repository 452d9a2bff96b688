import { RoadFlag } from '../graph/carProfile.js';
import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';
import type { Snap } from '../graph/SnapIndex.js';
import { roadExitNode } from '../graph/junctionNodes.js';
import { BEARING_METRES, bearingOf, degrees, roadBearings } from '../graph/roadBearings.js';
import { labelKeyAt, labelOfKey } from '../graph/roadLabels.js';
import { partialCost } from './endpoints.js';

/** Maplink's instruction types (trip-schema `Instructions`). */
export const STEP_TYPES = [
  'U_TURN', 'LEFT_U_TURN', 'RIGHT_U_TURN', 'KEEP_LEFT', 'KEEP_RIGHT', 'ROUNDABOUT', 'LEAVE_ROUNDABOUT',
  'TURN_SHARP_LEFT', 'TURN_LEFT', 'TURN_SLIGHT_LEFT', 'CONTINUE_ON_STREET', 'TURN_SLIGHT_RIGHT', 'TURN_RIGHT',
  'TURN_SHARP_RIGHT', 'VIA_POINT', 'LAST_POINT', 'UNKNOWN',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

/**
 * A turn angle (degrees from the direction of arrival to that of departure, positive to the
 * right) beyond which a junction where another road could be taken is a maneuver. Within it the
 * route goes straight on, and a run of such junctions on one road stays one step.
 */
export const TURN_THRESHOLD_DEGREES = 30;
/**
 * Where the route stays on its road as it bends beyond the threshold, the bend is still no step
 * when every other road there turns at least this much further: a driver follows the road.
 */
export const OBVIOUS_MARGIN_DEGREES = 30;
/** Beyond this a turn is a turn, not a slight one; beyond SHARP_DEGREES sharp; beyond U_TURN_DEGREES a U-turn. */
export const SLIGHT_DEGREES = 60;
export const SHARP_DEGREES = 140;
export const U_TURN_DEGREES = 170;

/** One maneuver of a leg and the stretch of road driven after it, up to the next. */
export interface RouteStep {
  type: StepType;
  /** Metres and seconds from this maneuver to the next (the leg's sum to its own). */
  distance: number;
  duration: number;
  /** The step's stretch of the leg's points: first..last inclusive; a step's last is the next step's first. */
  first: number;
  last: number;
  /** ROUNDABOUT: the exit taken, counting the roundabout's exits from where the route entered. */
  exitNumber?: number | undefined;
  /** The graph's road the maneuver leads onto (a roundabout's: the road it leaves by; -1 at the stops), and its name, ref and destination as signed. */
  road: number;
  name?: string | undefined;
  ref?: string | undefined;
  destination?: string | undefined;
  /** Degrees from the direction of arrival to that of departure, positive to the right (none at the start, after a roundabout and at the stops). */
  turnAngle?: number | undefined;
  /** Compass bearing of departure, degrees clockwise from north. */
  bearing: number;
  /** The instruction in the requested language (stepTexts.ts). */
  text: string;
}

/** What steps read of a leg: its ends, the directed edges between them and its polyline. */
export interface StepLeg {
  from: Snap;
  to: Snap;
  edges: readonly number[];
  /** Whether the leg stays on one road from stop to stop (else it leaves the start road at its end). */
  direct: boolean;
  /** Whether the start road is driven against its shape, and the end road. */
  startReversed: boolean;
  endReversed: boolean;
  /** The first edge's tail and the last edge's head in `coordinates` (latitude, longitude interleaved). */
  edgesFirst: number;
  edgesLast: number;
  /** Per edge, the point of `coordinates` its head is. */
  edgeEnds: Int32Array;
  coordinates: Float64Array;
  distance: number;
}

/**
 * The roads a leg drives, as flat arrays (k-th road driven: its road, direction, the metres and
 * seconds the leg counts for it, the point of the leg's polyline where it ends).
 * Entries firstWhole..lastWhole are the leg's edges, whole roads; the others parts of its stop roads.
 */
interface Driven {
  count: number;
  firstWhole: number;
  lastWhole: number;
  road: Int32Array;
  reversed: Uint8Array;
  metres: Float64Array;
  seconds: Float64Array;
  end: Int32Array;
  /** The junction the start road's part leads to, when the leg drives one (the edges' heads are read where needed). */
  startJunction: number;
  /**
   * Read per road driven in one pass, where the cache misses of a path's roads overlap: its label,
   * whether it is a roundabout, its stored bearings (roadBearings) at the junction it arrives at and
   * at the one it leaves from.
   */
  label: Uint32Array;
  roundabout: Uint8Array;
  arriveUnits: Uint16Array;
  leaveUnits: Uint16Array;
}

/**
 * The maneuvers of a leg (texts left empty: stepTexts fills them), derived from its roads after the
 * search at a cost proportional to its path: a step where the road changes (sameLabel), where
 * the route turns by more than TURN_THRESHOLD_DEGREES at a junction offering another road (unless
 * it follows its own road's bend and every other road turns OBVIOUS_MARGIN_DEGREES further; a name
 * change where another road within the threshold could be taken is a fork: KEEP_LEFT or
 * KEEP_RIGHT by the side the route keeps to), on entering a roundabout (with the exit it takes)
 * and on leaving it, at a U-turn; the leg ends with VIA_POINT or, for the last leg, LAST_POINT.
 */
export function legSteps(graph: RoadGraph, leg: StepLeg, last: boolean): RouteStep[] {
  const d = drivenRoads(graph, leg);
  const count = leg.coordinates.length >> 1;
  const steps: RouteStep[] = [];
  const arrival = (): RouteStep => ({
    type: last ? 'LAST_POINT' : 'VIA_POINT', distance: 0, duration: 0, first: Math.max(0, count - 1), last: Math.max(0, count - 1),
    exitNumber: undefined, road: -1, name: undefined, ref: undefined, destination: undefined, turnAngle: undefined, bearing: 0, text: '',
  });
  if (d.count === 0) return [arrival()];
  const bearings = roadBearings(graph);
  const labels = stepLabels(graph);
  const { road, reversed, metres, seconds, end, label, roundabout, arriveUnits, leaveUnits, firstWhole, lastWhole } = d;
  const { edgeHead } = graph, edges = leg.edges;
  const xy = leg.coordinates;
  // The route's directions at the junction ending its k-th road, over BEARING_METRES of each road:
  // a whole road's from the graph's bearings, a stop road's part from the leg's polyline.
  const arriveAt = (k: number) =>
    opposite(k >= firstWhole && k <= lastWhole ? degrees(arriveUnits[k]) : polylineBearing(xy, end[k], k > 0 ? end[k - 1] : 0));
  const leaveAt = (k: number) =>
    k + 1 >= firstWhole && k + 1 <= lastWhole ? degrees(leaveUnits[k + 1]) : polylineBearing(xy, end[k], end[k + 1]);
  // The junction ending the k-th road (read only where its other roads matter).
  const junctionAt = (k: number) => (k < firstWhole ? d.startJunction : edgeHead[edges[k - firstWhole]]);
  let step = startStep(labels, graph, road[0], 'CONTINUE_ON_STREET', 0, polylineBearing(xy, 0, end[0]));
  let exits = -1; // exits passed in the roundabout being driven (-1: not in one since a roundabout step began)
  for (let k = 0; ; k++) {
    step.distance += metres[k];
    step.duration += seconds[k];
    if (k + 1 === d.count) break;
    const r = road[k], next = road[k + 1];
    const inRoundabout = roundabout[k] === 1, toRoundabout = roundabout[k + 1] === 1;
    let type: StepType | undefined;
    let angle: number | undefined, leave: number | undefined;
    if (toRoundabout && !inRoundabout) {
      type = 'ROUNDABOUT';
    } else if (toRoundabout) {
      if (exits >= 0 && leavesRoundabout(graph, junctionAt(k))) exits++;
    } else if (inRoundabout) {
      if (exits >= 0) {
        step.exitNumber = exits + 1;
        setLabel(step, labels, graph, next);
      }
      type = 'LEAVE_ROUNDABOUT';
    } else if (next === r) {
      type = 'U_TURN'; // back along the same road (a dead end)
    } else {
      const renamed = label[k] !== label[k + 1] && !sameLabel(labels, graph, label[k], label[k + 1]);
      const arrive = arriveAt(k);
      leave = leaveAt(k);
      angle = turnAngle(arrive, leave);
      // Going on along the road within the threshold is never a maneuver, nor bending with it where
      // no other road leaves the junction: decided before reading the junction's roads.
      if (!renamed && Math.abs(angle) <= TURN_THRESHOLD_DEGREES) continue;
      const rev = reversed[k] === 1, nextRev = reversed[k + 1] === 1, v = junctionAt(k);
      if (!renamed && !hasOtherRoad(graph, v, r, rev, next, nextRev)) continue;
      type = maneuver(graph, bearings, v, r, rev, next, nextRev, arrive, angle, renamed);
    }
    if (type === undefined) continue;
    step.last = end[k];
    steps.push(step);
    leave ??= leaveAt(k);
    if (angle === undefined && type !== 'LEAVE_ROUNDABOUT') angle = turnAngle(arriveAt(k), leave);
    step = startStep(labels, graph, next, type, end[k], leave, angle);
    exits = type === 'ROUNDABOUT' ? 0 : -1;
  }
  step.last = count - 1;
  steps.push(step);
  steps.push(arrival());
  return steps;
}

function startStep(labels: StepLabel[], graph: RoadGraph, road: number, type: StepType, first: number, bearing: number, turnAngle?: number): RouteStep {
  const { name, ref, destination } = stepLabel(labels, graph, graph.roadLabel[road]);
  // Every member set here, in one order, so steps share one shape (undefined members are left out of JSON).
  return {
    type, distance: 0, duration: 0, first, last: first, exitNumber: undefined, road, name, ref, destination,
    turnAngle: turnAngle === undefined ? undefined : Math.round(turnAngle), bearing: Math.round(bearing), text: '',
  };
}

/** The step's road and its label: the road's name, ref and destination (those it has). */
function setLabel(step: RouteStep, labels: StepLabel[], graph: RoadGraph, road: number): void {
  const { name, ref, destination } = stepLabel(labels, graph, graph.roadLabel[road]);
  step.road = road;
  step.name = name;
  step.ref = ref;
  step.destination = destination;
}

/** A road label as steps read it: one shape for every label (RoadGraph.labelOf leaves out what is untagged). */
interface StepLabel {
  name: string | undefined;
  ref: string | undefined;
  destination: string | undefined;
}

/** The labels steps have read, by label id, per graph label table (views and threads share it). */
const stepLabelTables = new WeakMap<Uint32Array, StepLabel[]>();

function stepLabels(graph: RoadGraph): StepLabel[] {
  let labels = stepLabelTables.get(graph.labelStart);
  if (!labels) stepLabelTables.set(graph.labelStart, (labels = []));
  return labels;
}

function stepLabel(labels: StepLabel[], graph: RoadGraph, id: number): StepLabel {
  let label = labels[id];
  if (label === undefined) {
    const { name, ref, destination } = labelOfKey(labelKeyAt(graph, id));
    labels[id] = label = { name, ref, destination };
  }
  return label;
}

/** Whether a road other than the route's next one and the way back leaves node v. */
function hasOtherRoad(graph: RoadGraph, v: number, r: number, rev: boolean, next: number, nextRev: boolean): boolean {
  const { firstOut, edgeRoad, edgeReversed } = graph;
  for (let e = firstOut[v]; e < firstOut[v + 1]; e++) {
    const o = edgeRoad[e], oRev = edgeReversed[e] === 1;
    if (!(o === next && oRev === nextRev) && !(o === r && oRev !== rev)) return true;
  }
  return false;
}

/** Whether a road off the roundabout leaves node v (an exit the route passes or takes). */
function leavesRoundabout(graph: RoadGraph, v: number): boolean {
  const { firstOut, edgeRoad, roadFlags } = graph;
  for (let e = firstOut[v]; e < firstOut[v + 1]; e++) if ((roadFlags[edgeRoad[e]] & RoadFlag.ROUNDABOUT) === 0) return true;
  return false;
}

/**
 * The maneuver from road r onto road next at node v (off roundabouts), or undefined where the route
 * simply goes on; `angle` is the route's turn there, `arrive` its bearing of arrival.
 */
function maneuver(
  graph: RoadGraph, bearings: Uint16Array, v: number, r: number, rev: boolean, next: number, nextRev: boolean, arrive: number, angle: number, renamed: boolean,
): StepType | undefined {
  const a = Math.abs(angle);
  if (a <= TURN_THRESHOLD_DEGREES && !renamed) return undefined; // going on, whatever branches off beside
  if (a > TURN_THRESHOLD_DEGREES && renamed) return turnType(angle);
  // Beyond the threshold on the same road: no step where it bends and every other road turns
  // OBVIOUS_MARGIN_DEGREES further. Within it onto another road: a fork when another road within
  // the threshold could be taken too (the other nearest the route's direction says the side).
  const { firstOut, edgeRoad, edgeReversed } = graph;
  let obvious = true, fork = NaN;
  for (let e = firstOut[v]; e < firstOut[v + 1]; e++) {
    const o = edgeRoad[e], oRev = edgeReversed[e] === 1;
    if ((o === next && oRev === nextRev) || (o === r && oRev !== rev)) continue; // the route's own road, the way back
    const other = turnAngle(arrive, bearingOf(bearings, o, !oRev));
    if (Math.abs(other) < a + OBVIOUS_MARGIN_DEGREES) obvious = false;
    if (Math.abs(other) <= TURN_THRESHOLD_DEGREES && !(Math.abs(other - angle) >= Math.abs(fork - angle))) fork = other;
  }
  if (a > TURN_THRESHOLD_DEGREES) return obvious ? undefined : turnType(angle);
  return Number.isNaN(fork) ? 'CONTINUE_ON_STREET' : angle < fork ? 'KEEP_LEFT' : 'KEEP_RIGHT';
}

/** The step type of a turn angle beyond the threshold. */
export function turnType(angle: number): StepType {
  const a = Math.abs(angle);
  const right = angle > 0;
  if (a > U_TURN_DEGREES) return right ? 'RIGHT_U_TURN' : 'LEFT_U_TURN';
  if (a > SHARP_DEGREES) return right ? 'TURN_SHARP_RIGHT' : 'TURN_SHARP_LEFT';
  if (a > SLIGHT_DEGREES) return right ? 'TURN_RIGHT' : 'TURN_LEFT';
  if (a > TURN_THRESHOLD_DEGREES) return right ? 'TURN_SLIGHT_RIGHT' : 'TURN_SLIGHT_LEFT';
  return 'CONTINUE_ON_STREET';
}

/**
 * Whether a driver stays on the same road going from a road labelled `a` to one labelled `b` (label
 * ids): the same ref (route number) where a has one, whatever the names of its stretches; else the
 * same name and no ref on b either (destinations aside: signs change along a road).
 */
function sameLabel(labels: StepLabel[], graph: RoadGraph, a: number, b: number): boolean {
  const la = stepLabel(labels, graph, a), lb = stepLabel(labels, graph, b);
  // One road number through stretches of other names (E 6 through Tingstadstunneln): the driver follows the number.
  return la.ref !== undefined ? la.ref === lb.ref : la.name === lb.name && lb.ref === undefined;
}

/** The bearing opposite one of [0, 360]. */
const opposite = (bearing: number) => (bearing < 180 ? bearing + 180 : bearing - 180);

/** Degrees from bearing `from` to bearing `to`, in (-180, 180], positive clockwise (to the right). */
export function turnAngle(from: number, to: number): number {
  // Bearings of [0, 360) need one correction at most; no float modulo (a runtime call, once per junction).
  let d = to - from;
  while (d > 180) d -= 360;
  while (d <= -180) d += 360;
  return d;
}

/**
 * The bearing along a leg's polyline (latitude, longitude interleaved) from point `at` towards
 * point `limit`: to the first point BEARING_METRES away, or `limit` itself when none is.
 */
export function polylineBearing(xy: Float64Array, at: number, limit: number): number {
  const dir = limit > at ? 1 : -1;
  const lat0 = xy[2 * at], lon0 = xy[2 * at + 1];
  const kx = Math.cos(lat0 * (Math.PI / 180));
  const far = (BEARING_METRES / METRES_PER_DEGREE) ** 2;
  let dLat = 0, dLon = 0;
  for (let k = at + dir; dir > 0 ? k <= limit : k >= limit; k += dir) {
    dLat = xy[2 * k] - lat0;
    dLon = xy[2 * k + 1] - lon0;
    if (dLat * dLat + dLon * kx * dLon * kx >= far) break;
  }
  const b = Math.atan2(dLon * kx, dLat) * (180 / Math.PI);
  return b < 0 ? b + 360 : b;
}

const METRES_PER_DEGREE = 111_195;

/**
 * The roads the leg drives in order: the start road's part, each edge's road, the end road's part
 * (a part of no length, a stop on a junction, left out), with the metres and seconds the leg
 * counts for each and where each ends in its polyline.
 */
function drivenRoads(graph: RoadGraph, leg: StepLeg): Driven {
  const { from, to, edges } = leg;
  const count = leg.coordinates.length >> 1;
  const n = edges.length + 2;
  if (driven.road.length < n) driven = newDriven(Math.max(n, 2 * driven.road.length));
  const d = driven;
  d.count = 0;
  d.firstWhole = 0;
  d.lastWhole = -1;
  if (leg.direct) {
    if (leg.distance > 0) put(d, from.road, leg.startReversed, leg.distance, partialCost(graph, from.road, leg.distance, 'duration'), count - 1);
    return d;
  }
  const startMetres = leg.startReversed ? from.offset : graph.roadMetres(from.road) - from.offset;
  const endMetres = leg.endReversed ? graph.roadMetres(to.road) - to.offset : to.offset;
  // The junction the start road leads to (a copy of it, where turn restrictions split it, is the edges' own).
  d.startJunction = edges.length > 0 ? graph.edgeTailOf(edges[0]) : roadExitNode(graph, from.road, leg.startReversed);
  if (startMetres > 0) put(d, from.road, leg.startReversed, startMetres, partialCost(graph, from.road, startMetres, 'duration'), leg.edgesFirst);
  const { edgeRoad, edgeReversed, roadLengthCm } = graph;
  const millis = graph.roadMillis, ends = leg.edgeEnds;
  d.firstWhole = d.count;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i], r = edgeRoad[e];
    put(d, r, edgeReversed[e] === 1, roadLengthCm[r] * COST_STEP.distance, millis[r] * COST_STEP.duration, ends[i]);
  }
  d.lastWhole = d.count - 1;
  if (endMetres > 0) put(d, to.road, leg.endReversed, endMetres, partialCost(graph, to.road, endMetres, 'duration'), count - 1);
  if (d.count === 0) return d;
  d.end[d.count - 1] = count - 1;
  const { roadLabel, roadFlags } = graph;
  const bearings = roadBearings(graph);
  const { road, reversed, label, roundabout, arriveUnits, leaveUnits } = d;
  for (let k = 0; k < d.count; k++) {
    const r = road[k], side = reversed[k];
    label[k] = roadLabel[r];
    roundabout[k] = (roadFlags[r] & RoadFlag.ROUNDABOUT) === 0 ? 0 : 1;
    arriveUnits[k] = bearings[2 * r + 1 - side];
    leaveUnits[k] = bearings[2 * r + side];
  }
  return d;
}

function put(d: Driven, road: number, reversed: boolean, metres: number, seconds: number, end: number): void {
  const k = d.count++;
  d.road[k] = road; d.reversed[k] = reversed ? 1 : 0; d.metres[k] = metres; d.seconds[k] = seconds; d.end[k] = end;
}

function newDriven(n: number): Driven {
  return {
    count: 0, firstWhole: 0, lastWhole: -1, road: new Int32Array(n), reversed: new Uint8Array(n), metres: new Float64Array(n),
    seconds: new Float64Array(n), end: new Int32Array(n), startJunction: -1, label: new Uint32Array(n), roundabout: new Uint8Array(n),
    arriveUnits: new Uint16Array(n), leaveUnits: new Uint16Array(n),
  };
}

/** drivenRoads' arrays, kept from leg to leg (grown as needed): legSteps reads them before it returns. */
let driven = newDriven(256);

import { RoadFlag } from '../graph/carProfile.js';
import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';
import type { Snap } from '../graph/SnapIndex.js';
import { roadExitNode } from '../graph/junctionNodes.js';
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
/**
 * Metres of road a bearing is measured over from a junction: the direction a driver sees, not the
 * last few centimetres of a road drawn with a kink at its end.
 */
export const BEARING_METRES = 20;

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
 * seconds the leg counts for it, the point of the leg's polyline where it ends, the node it ends at).
 */
interface Driven {
  count: number;
  road: Int32Array;
  reversed: Uint8Array;
  metres: Float64Array;
  seconds: Float64Array;
  end: Int32Array;
  node: Int32Array;
}

/**
 * The maneuvers of a leg (texts left empty: stepTexts fills them), derived from its roads after the
 * search at a cost proportional to its path: a step where the road changes (sameName), where
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
  const { roadFlags, roadLabel } = graph;
  const { road, reversed, metres, seconds, end, node } = d;
  const xy = leg.coordinates;
  let step = startStep(graph, road[0], 'CONTINUE_ON_STREET', 0, polylineBearing(xy, 0, end[0]));
  let exits = -1; // exits passed in the roundabout being driven (-1: not in one since a roundabout step began)
  for (let k = 0; ; k++) {
    step.distance += metres[k];
    step.duration += seconds[k];
    if (k + 1 === d.count) break;
    const r = road[k], next = road[k + 1], rev = reversed[k] === 1, nextRev = reversed[k + 1] === 1, v = node[k];
    const inRoundabout = (roadFlags[r] & RoadFlag.ROUNDABOUT) !== 0;
    const toRoundabout = (roadFlags[next] & RoadFlag.ROUNDABOUT) !== 0;
    let type: StepType | undefined;
    let angle: number | undefined, leave: number | undefined;
    if (toRoundabout && !inRoundabout) {
      type = 'ROUNDABOUT';
    } else if (toRoundabout) {
      if (exits >= 0 && leavesRoundabout(graph, v)) exits++;
    } else if (inRoundabout) {
      if (exits >= 0) {
        step.exitNumber = exits + 1;
        setLabel(step, graph, next);
      }
      type = 'LEAVE_ROUNDABOUT';
    } else if (next === r) {
      type = 'U_TURN'; // back along the same road (a dead end)
    } else {
      const renamed = roadLabel[r] !== roadLabel[next] && !sameName(graph, r, next);
      // Staying on the road where no other road leaves the junction is never a maneuver: no bearing needed.
      if (!renamed && !hasOtherRoad(graph, v, r, rev, next, nextRev)) continue;
      // The route's own directions from its polyline (read in order), over BEARING_METRES of each road.
      const arrive = (polylineBearing(xy, end[k], k > 0 ? end[k - 1] : 0) + 180) % 360;
      leave = polylineBearing(xy, end[k], end[k + 1]);
      angle = turnAngle(arrive, leave);
      type = maneuver(graph, v, r, rev, next, nextRev, arrive, angle, renamed);
    }
    if (type === undefined) continue;
    step.last = end[k];
    steps.push(step);
    leave ??= polylineBearing(xy, end[k], end[k + 1]);
    if (angle === undefined && type !== 'LEAVE_ROUNDABOUT') angle = turnAngle((polylineBearing(xy, end[k], k > 0 ? end[k - 1] : 0) + 180) % 360, leave);
    step = startStep(graph, next, type, end[k], leave, angle);
    exits = type === 'ROUNDABOUT' ? 0 : -1;
  }
  step.last = count - 1;
  steps.push(step);
  steps.push(arrival());
  return steps;
}

function startStep(graph: RoadGraph, road: number, type: StepType, first: number, bearing: number, turnAngle?: number): RouteStep {
  const { name, ref, destination } = graph.labelOf(road);
  // Every member set here, in one order, so steps share one shape (undefined members are left out of JSON).
  return {
    type, distance: 0, duration: 0, first, last: first, exitNumber: undefined, road, name, ref, destination,
    turnAngle: turnAngle === undefined ? undefined : Math.round(turnAngle), bearing: Math.round(bearing), text: '',
  };
}

/** The step's road and its label: the road's name, ref and destination (those it has). */
function setLabel(step: RouteStep, graph: RoadGraph, road: number): void {
  const { name, ref, destination } = graph.labelOf(road);
  step.road = road;
  step.name = name;
  step.ref = ref;
  step.destination = destination;
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
  graph: RoadGraph, v: number, r: number, rev: boolean, next: number, nextRev: boolean, arrive: number, angle: number, renamed: boolean,
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
    const other = turnAngle(arrive, departureBearing(graph, o, oRev));
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
 * Whether a driver stays on the same road going from road a to road b: the same ref (route number)
 * where a has one, whatever the names of its stretches; else the same name and no ref on b either
 * (destinations aside: signs change along a road).
 */
export function sameName(graph: RoadGraph, a: number, b: number): boolean {
  if (graph.roadLabel[a] === graph.roadLabel[b]) return true;
  const la = graph.labelOf(a), lb = graph.labelOf(b);
  // One road number through stretches of other names (E 6 through Tingstadstunneln): the driver follows the number.
  return la.ref !== undefined ? la.ref === lb.ref : la.name === lb.name && lb.ref === undefined;
}

/** Degrees from bearing `from` to bearing `to`, in (-180, 180], positive clockwise (to the right). */
export function turnAngle(from: number, to: number): number {
  const d = (((to - from) % 360) + 360) % 360;
  return d > 180 ? d - 360 : d;
}

/** The bearing of leaving a road's start (its end when reversed), over BEARING_METRES of it (the roads a route does not take). */
export function departureBearing(graph: RoadGraph, road: number, reversed: boolean): number {
  return bearingInto(graph, road, !reversed);
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

/** Metres per 1e-7 degree of latitude. */
const METRES_PER_E7 = 0.0111195;

/**
 * The bearing from one end of a road (its start when `fromStart`) towards the first of its points
 * BEARING_METRES away along it (or its other end), read from the graph's 1e-7 degree arrays.
 */
function bearingInto(graph: RoadGraph, road: number, fromStart: boolean): number {
  const { roadShapeStart, shapeLatE7, shapeLonE7, nodeLatE7, nodeLonE7 } = graph;
  const s = roadShapeStart[road], z = roadShapeStart[road + 1];
  const here = fromStart ? graph.roadFrom[road] : graph.roadTo[road], there = fromStart ? graph.roadTo[road] : graph.roadFrom[road];
  const lat0 = nodeLatE7[here], lon0 = nodeLonE7[here];
  const kx = Math.cos(lat0 * 1e-7 * (Math.PI / 180));
  const far = (BEARING_METRES / METRES_PER_E7) ** 2;
  let dLat = nodeLatE7[there] - lat0, dLon = nodeLonE7[there] - lon0;
  for (let i = 0; i < z - s; i++) {
    const k = fromStart ? s + i : z - 1 - i;
    const y = shapeLatE7[k] - lat0, x = (shapeLonE7[k] - lon0) * kx;
    if (x * x + y * y >= far) {
      dLat = y;
      dLon = shapeLonE7[k] - lon0;
      break;
    }
  }
  const b = Math.atan2(dLon * kx, dLat) * (180 / Math.PI);
  return b < 0 ? b + 360 : b;
}

/**
 * The roads the leg drives in order: the start road's part, each edge's road, the end road's part
 * (a part of no length, a stop on a junction, left out), with the metres and seconds the leg
 * counts for each and where each ends in its polyline.
 */
function drivenRoads(graph: RoadGraph, leg: StepLeg): Driven {
  const { from, to, edges } = leg;
  const count = leg.coordinates.length >> 1;
  const n = edges.length + 2;
  const d: Driven = {
    count: 0, road: new Int32Array(n), reversed: new Uint8Array(n), metres: new Float64Array(n), seconds: new Float64Array(n),
    end: new Int32Array(n), node: new Int32Array(n),
  };
  const push = (road: number, reversed: boolean, metres: number, seconds: number, end: number, node: number) => {
    const k = d.count++;
    d.road[k] = road; d.reversed[k] = reversed ? 1 : 0; d.metres[k] = metres; d.seconds[k] = seconds; d.end[k] = end; d.node[k] = node;
  };
  if (leg.direct) {
    if (leg.distance > 0) push(from.road, leg.startReversed, leg.distance, partialCost(graph, from.road, leg.distance, 'duration'), count - 1, -1);
    return d;
  }
  const startMetres = leg.startReversed ? from.offset : graph.roadMetres(from.road) - from.offset;
  const endMetres = leg.endReversed ? graph.roadMetres(to.road) - to.offset : to.offset;
  // The junction the start road leads to (a copy of it, where turn restrictions split it, is the edges' own).
  const junction = edges.length > 0 ? graph.edgeTailOf(edges[0]) : roadExitNode(graph, from.road, leg.startReversed);
  if (startMetres > 0) push(from.road, leg.startReversed, startMetres, partialCost(graph, from.road, startMetres, 'duration'), leg.edgesFirst, junction);
  const { edgeRoad, edgeReversed, edgeHead, roadLengthCm } = graph;
  const millis = graph.roadMillis, ends = leg.edgeEnds;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i], r = edgeRoad[e];
    push(r, edgeReversed[e] === 1, roadLengthCm[r] * COST_STEP.distance, millis[r] * COST_STEP.duration, ends[i], edgeHead[e]);
  }
  if (endMetres > 0) push(to.road, leg.endReversed, endMetres, partialCost(graph, to.road, endMetres, 'duration'), count - 1, -1);
  if (d.count === 0) return d;
  d.end[d.count - 1] = count - 1;
  d.node[d.count - 1] = -1;
  return d;
}

import { fromE7 } from '../geo/coordinates.js';
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
  exitNumber?: number;
  /** The road the maneuver leads onto (a roundabout's: the road it leaves by), as signed. */
  name?: string;
  ref?: string;
  destination?: string;
  /** Degrees from the direction of arrival to that of departure, positive to the right (none at the start and the stops). */
  turnAngle?: number;
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
  /** The first edge's tail in `coordinates` (StepLeg points are latitude, longitude interleaved). */
  edgesFirst: number;
  coordinates: Float64Array;
  distance: number;
}

/** A road driven by the leg, whole or in part. */
interface Traversal {
  road: number;
  reversed: boolean;
  metres: number;
  seconds: number;
  /** The point of the leg's polyline where it ends. */
  end: number;
  /** The node where it ends (where the next one starts); -1 for the last. */
  node: number;
}

/**
 * The maneuvers of a leg (texts left empty: stepTexts fills them), derived from its roads after the
 * search at a cost proportional to its path: a step where the road's name or ref changes, where
 * the route turns by more than TURN_THRESHOLD_DEGREES at a junction offering another road (a name
 * change where another road within the threshold could be taken is a fork: KEEP_LEFT or
 * KEEP_RIGHT by the side the route keeps to), on entering a roundabout (with the exit it takes)
 * and on leaving it, at a U-turn; the leg ends with VIA_POINT or, for the last leg, LAST_POINT.
 */
export function legSteps(graph: RoadGraph, leg: StepLeg, last: boolean): RouteStep[] {
  const trav = traversals(graph, leg);
  const count = leg.coordinates.length >> 1;
  const steps: RouteStep[] = [];
  const arrival = (first: number): RouteStep => ({
    type: last ? 'LAST_POINT' : 'VIA_POINT', distance: 0, duration: 0, first, last: count - 1, bearing: 0, text: '',
  });
  if (trav.length === 0) return [arrival(Math.max(0, count - 1))];
  let step = startStep(graph, trav[0], 'CONTINUE_ON_STREET', 0);
  let exits = -1; // exits passed in the roundabout being driven (-1: not in one since a roundabout step began)
  for (let k = 0; ; k++) {
    const t = trav[k];
    step.distance += t.metres;
    step.duration += t.seconds;
    if (k + 1 === trav.length) break;
    const next = trav[k + 1];
    const turn = junction(graph, t, next);
    const inRoundabout = (graph.roadFlags[t.road] & RoadFlag.ROUNDABOUT) !== 0;
    const toRoundabout = (graph.roadFlags[next.road] & RoadFlag.ROUNDABOUT) !== 0;
    let type: StepType | undefined;
    if (toRoundabout && !inRoundabout) {
      type = 'ROUNDABOUT';
    } else if (toRoundabout) {
      if (exits >= 0 && turn.leavesRoundabout) exits++;
    } else if (inRoundabout) {
      if (exits >= 0) {
        step.exitNumber = exits + 1;
        Object.assign(step, labelFields(graph, next.road));
      }
      type = 'LEAVE_ROUNDABOUT';
    } else {
      type = maneuver(graph, t, next, turn);
    }
    if (type === undefined) continue;
    step.last = t.end;
    steps.push(step);
    step = startStep(graph, next, type, t.end, turn.angle);
    exits = type === 'ROUNDABOUT' ? 0 : -1;
  }
  step.last = count - 1;
  steps.push(step);
  steps.push(arrival(count - 1));
  return steps;
}

function startStep(graph: RoadGraph, t: Traversal, type: StepType, first: number, turnAngle?: number): RouteStep {
  return {
    type, distance: 0, duration: 0, first, last: first, ...labelFields(graph, t.road),
    ...(turnAngle !== undefined && { turnAngle: Math.round(turnAngle) }), bearing: Math.round(departureBearing(graph, t.road, t.reversed)), text: '',
  };
}

function labelFields(graph: RoadGraph, road: number): { name?: string; ref?: string; destination?: string } {
  const { name, ref, destination } = graph.labelOf(road);
  return { name, ref, destination };
}

/** What a junction offers: the route's turn angle, and the other roads a driver could take there. */
interface Junction {
  angle: number;
  /** Turn angles of the other roads out of the junction (not the way back). */
  others: number[];
  /** Whether one of the other roads is not a roundabout's (an exit, when the route drives a roundabout). */
  leavesRoundabout: boolean;
}

function junction(graph: RoadGraph, t: Traversal, next: Traversal): Junction {
  const arrive = arrivalBearing(graph, t.road, t.reversed);
  const angle = turnAngle(arrive, departureBearing(graph, next.road, next.reversed));
  const others: number[] = [];
  let leavesRoundabout = false;
  const v = t.node;
  const { firstOut, edgeRoad, edgeReversed, roadFlags } = graph;
  for (let e = firstOut[v]; e < firstOut[v + 1]; e++) {
    const r = edgeRoad[e], reversed = edgeReversed[e] === 1;
    if (r === next.road && reversed === next.reversed) continue; // the route's own
    if (r === t.road && reversed !== t.reversed) continue; // back the way it came
    others.push(turnAngle(arrive, departureBearing(graph, r, reversed)));
    if ((roadFlags[r] & RoadFlag.ROUNDABOUT) === 0) leavesRoundabout = true;
  }
  return { angle, others, leavesRoundabout };
}

/** The maneuver between two roads off roundabouts, or undefined where the route simply goes on. */
function maneuver(graph: RoadGraph, t: Traversal, next: Traversal, turn: Junction): StepType | undefined {
  if (next.road === t.road) return 'U_TURN'; // back along the same road (a dead end)
  const renamed = !sameName(graph, t.road, next.road);
  const a = turn.angle;
  if (Math.abs(a) > TURN_THRESHOLD_DEGREES) return renamed || turn.others.length > 0 ? turnType(a) : undefined;
  // Within the threshold, staying on the road is going on, whatever branches off beside it.
  if (!renamed) return undefined;
  // Onto another road: a fork when another road within the threshold could be taken too; the side the route keeps to.
  let fork: number | undefined;
  for (const o of turn.others) {
    if (Math.abs(o) <= TURN_THRESHOLD_DEGREES && (fork === undefined || Math.abs(o - a) < Math.abs(fork - a))) fork = o;
  }
  return fork === undefined ? 'CONTINUE_ON_STREET' : a < fork ? 'KEEP_LEFT' : 'KEEP_RIGHT';
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

/** Whether two roads carry the same name and ref (destinations aside: signs change along a road). */
export function sameName(graph: RoadGraph, a: number, b: number): boolean {
  if (graph.roadLabel[a] === graph.roadLabel[b]) return true;
  const la = graph.labelOf(a), lb = graph.labelOf(b);
  return la.name === lb.name && la.ref === lb.ref;
}

/** Degrees from bearing `from` to bearing `to`, in (-180, 180], positive clockwise (to the right). */
export function turnAngle(from: number, to: number): number {
  const d = (((to - from) % 360) + 360) % 360;
  return d > 180 ? d - 360 : d;
}

/** Compass bearing (degrees clockwise from north) from one point to another, in [0, 360). */
export function bearing(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dx = (lon2 - lon1) * Math.cos(((lat1 + lat2) / 2) * (Math.PI / 180));
  const b = Math.atan2(dx, lat2 - lat1) * (180 / Math.PI);
  return b < 0 ? b + 360 : b;
}

/** The bearing of leaving a road's start (its end when reversed), over BEARING_METRES of it. */
export function departureBearing(graph: RoadGraph, road: number, reversed: boolean): number {
  const n = graph.roadPointCount(road);
  return roadBearing(graph, road, reversed ? n - 1 : 0, reversed ? -1 : 1, n);
}

/** The bearing of arriving at a road's end (its start when reversed), over BEARING_METRES of it. */
export function arrivalBearing(graph: RoadGraph, road: number, reversed: boolean): number {
  const n = graph.roadPointCount(road);
  return (roadBearing(graph, road, reversed ? 0 : n - 1, reversed ? 1 : -1, n) + 180) % 360;
}

/** Bearing from point `at` of a road towards the point BEARING_METRES away in direction `dir` (or its last). */
function roadBearing(graph: RoadGraph, road: number, at: number, dir: number, n: number): number {
  const lat0 = graph.roadPointLat(road, at), lon0 = graph.roadPointLon(road, at);
  const cos = Math.cos(lat0 * (Math.PI / 180));
  let lat = lat0, lon = lon0;
  for (let k = at + dir; k >= 0 && k < n; k += dir) {
    lat = graph.roadPointLat(road, k);
    lon = graph.roadPointLon(road, k);
    const dy = (lat - lat0) * 111_195, dx = (lon - lon0) * 111_195 * cos;
    if (dx * dx + dy * dy >= BEARING_METRES * BEARING_METRES) break;
  }
  return bearing(lat0, lon0, lat, lon);
}

/**
 * The roads the leg drives in order: the start road's part, each edge's road, the end road's part
 * (a part of no length, a stop on a junction, left out), with the metres and seconds the leg
 * counts for each and where each ends in its polyline.
 */
function traversals(graph: RoadGraph, leg: StepLeg): Traversal[] {
  const { from, to, edges } = leg;
  const count = leg.coordinates.length >> 1;
  const out: Traversal[] = [];
  const seconds = (road: number, metres: number) => partialCost(graph, road, metres, 'duration');
  if (leg.direct) {
    if (leg.distance > 0) out.push({ road: from.road, reversed: leg.startReversed, metres: leg.distance, seconds: seconds(from.road, leg.distance), end: count - 1, node: -1 });
    return out;
  }
  const startMetres = leg.startReversed ? from.offset : graph.roadMetres(from.road) - from.offset;
  const endMetres = leg.endReversed ? graph.roadMetres(to.road) - to.offset : to.offset;
  // The junction the start road leads to (a copy of it, where turn restrictions split it, is the edges' own).
  const junction = edges.length > 0 ? graph.edgeTailOf(edges[0]) : roadExitNode(graph, from.road, leg.startReversed);
  if (startMetres > 0) out.push({ road: from.road, reversed: leg.startReversed, metres: startMetres, seconds: seconds(from.road, startMetres), end: leg.edgesFirst, node: junction });
  // Where each edge ends in the polyline: LegLine's rule again (a point equal to the one before is left out).
  const { edgeRoad, edgeReversed, edgeHead, roadShapeStart, shapeLatE7, shapeLonE7, nodeLatE7, nodeLonE7, roadLengthCm } = graph;
  const millis = graph.roadMillis;
  const xy = leg.coordinates;
  let at = leg.edgesFirst, lat = xy[2 * at], lon = xy[2 * at + 1];
  const add = (pLat: number, pLon: number) => {
    const a = fromE7(pLat), b = fromE7(pLon);
    if (a === lat && b === lon) return;
    lat = a; lon = b; at++;
  };
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i], r = edgeRoad[e], s = roadShapeStart[r], z = roadShapeStart[r + 1];
    if (edgeReversed[e] === 0) for (let k = s; k < z; k++) add(shapeLatE7[k], shapeLonE7[k]);
    else for (let k = z - 1; k >= s; k--) add(shapeLatE7[k], shapeLonE7[k]);
    const head = edgeHead[e];
    add(nodeLatE7[head], nodeLonE7[head]);
    out.push({ road: r, reversed: edgeReversed[e] === 1, metres: roadLengthCm[r] * COST_STEP.distance, seconds: millis[r] * COST_STEP.duration, end: at, node: head });
  }
  if (endMetres > 0) out.push({ road: to.road, reversed: leg.endReversed, metres: endMetres, seconds: seconds(to.road, endMetres), end: count - 1, node: -1 });
  if (out.length === 0) return out;
  out[out.length - 1].end = count - 1;
  out[out.length - 1].node = -1;
  return out;
}

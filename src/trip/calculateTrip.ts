import { randomUUID } from 'node:crypto';
import { encodePoints, type EncodedPoints, type PointsMode } from '../geo/pointEncodings.js';
import type { CalculationMode } from '../routing/routeRequest.js';
import type { Router } from '../routing/Router.js';
import type { AvoidanceBehavior, AvoidanceType } from '../routing/avoidance.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { RouteStep, StepType } from '../routing/steps.js';
import type { StepLanguage } from '../routing/stepTexts.js';
import { turnByTurnLanguage, unsupportedFeature, unsupportedTripMembers, type MaplinkTripExtras } from './maplinkVocabulary.js';
import { appliedVehicle, vehicleOf, type Vehicle, type VehicleSpecification } from '../routing/vehicle.js';

/** What snaps a trip's stops (a Router, or a snap index alone where nothing is routed: SnapIndex.snapStops). */
export interface StopSnapper {
  snapStops(points: TripPoint[], labels: string[]): unknown;
}

/** A stop as the Trip API takes it. */
export interface TripPoint {
  latitude: number;
  longitude: number;
  siteId?: string;
}

/**
 * The body of POST /trip/v2/calculations (and of v1's POST /trip/v1/problems): the members detour
 * acts on, and Maplink's others (MaplinkTripExtras), which it reads and takes at their defaults.
 */
export interface TripRequest extends MaplinkTripExtras {
  calculationMode?: CalculationMode;
  points: TripPoint[];
  /** Names of the caller's stored restriction zones to avoid. */
  restrictionZones?: string[] | null;
  /** Road types to avoid, and how hard (Maplink's avoidance options; FRONTIERS is refused). */
  avoidanceTypes?: Array<AvoidanceType | 'FRONTIERS'>;
  avoidanceBehavior?: AvoidanceBehavior;
  /** Until when the solution is kept: epoch milliseconds or ISO-8601. */
  expireIn?: number | string;
  /** Maplink v1: the routing profile; the loaded graph is detour's. */
  profileName?: string;
  /** Maplink v1: the client (the token's, when given). */
  clientId?: string;
  /** Departure (epoch milliseconds or ISO-8601; default now): when the route leaves, for zones with a schedule. */
  startDate?: number | string;
  /** v1 (asynchronous) only: POSTed when the job ends. */
  callback?: { url: string; user?: string; password?: string };
}

export interface TripLeg {
  departureSiteId: string | null;
  arrivalSiteId: string | null;
  /** Metres. */
  distance: number;
  /** Seconds. */
  nominalDuration: number;
  /** km/h. */
  averageSpeed: number;
  /** Metres from the departure and arrival points as sent to where they were snapped (a stop beside a road cut off from the network moves further). */
  departureSnapDistance: number;
  arrivalSnapDistance: number;
  points: EncodedPoints;
  /** Present only when the leg had to enter zones (a stop inside or behind one). */
  restrictionZonesEntered?: Array<{ name: string; distanceInside: number }>;
  /** Present only when the leg drove roads of avoided types (STRONG could not avoid them, RELAXED chose to): metres per type. */
  avoidedTypesDriven?: Array<{ type: AvoidanceType; distance: number }>;
  /** Present when the trip asked for turnByTurn: the leg's instructions. */
  turnByTurn?: TurnByTurnInstruction[];
  /** Present only when the leg waits for scheduled zones (seconds, in nominalDuration). */
  waits?: Array<{ zone: string; latitude: number; longitude: number; from: string; until: string; duration: number }>;
}

/** Maplink's TurnByTurnInstruction. */
export interface TurnByTurnInstruction {
  /** Metres. */
  distance: number;
  type: StepType;
  points: EncodedPoints;
  text: string;
  /** Milliseconds. */
  duration: number;
  /** ROUNDABOUT: the exit taken. */
  exitNumber?: number;
}

export interface TripResponse {
  id: string;
  clientId: string;
  calculationMode: CalculationMode;
  /** Metres. */
  totalDistance: number;
  /** Seconds. */
  totalNominalDuration: number;
  /** km/h. */
  averageSpeed: number;
  legs: TripLeg[];
  /** ISO 8601: when the trip leaves, when it gave a startDate or names scheduled zones. */
  departure?: string;
  /** The vehicle the route is legal for, when one was asked (vehicleType, vehicleSpecification): its type and the figures applied. */
  vehicle?: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: until when GET /trip/v1/solutions/{id} answers it (Maplink's name). */
  expiryIn?: string;
}

export interface TripContext {
  router: Router;
  clientId: string;
  /** The zones named in restrictionZones, already resolved and calculated. */
  zones: CalculatedZone[];
  pointsMode?: PointsMode;
  now?: Date;
  /** The solution's id (default a new UUID: an asynchronous trip's is its job's). */
  id?: string;
  /** Until when the solution is kept (epoch milliseconds), answered as expiryIn. */
  expiresAt?: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** What a trip asks of the route beyond its stops: the vehicle, the language of its instructions. */
export interface TripFeatures {
  vehicle?: Vehicle;
  language?: StepLanguage;
}

/** Label of a stop in errors: its siteId when it has one, else its place in points[]. */
export const pointLabel = (p: TripPoint, i: number): string => (p.siteId !== undefined && p.siteId !== '' ? `points[${i}] (siteId ${JSON.stringify(p.siteId)})` : `points[${i}]`);

/**
 * The Trip API's calculation: routes through the points around the zones and writes the result
 * as Maplink does (metres, seconds, km/h; distances rounded to the metre, durations to the second).
 * Throws DetourError for points off the road network or no route.
 */
export function calculateTrip(request: TripRequest, context: TripContext): TripResponse {
  const mode = request.calculationMode ?? 'THE_FASTEST';
  const pointLabels = request.points.map(pointLabel);
  const { vehicle, language } = checkTripFeatures(request, context.router, pointLabels);
  const route = context.router.route({
    vehicle,
    steps: language,
    points: request.points,
    calculationMode: mode,
    zones: context.zones,
    pointLabels,
    avoidanceTypes: request.avoidanceTypes as AvoidanceType[] | undefined,
    avoidanceBehavior: request.avoidanceBehavior,
    departure: request.startDate,
  });
  const pointsMode = context.pointsMode ?? 'polyline';
  const siteId = (i: number) => request.points[i].siteId ?? null;
  return {
    id: context.id ?? randomUUID(),
    clientId: context.clientId,
    calculationMode: mode,
    totalDistance: Math.round(route.distance),
    totalNominalDuration: Math.round(route.duration),
    averageSpeed: round1(route.averageSpeed),
    legs: route.legs.map((leg, i) => ({
      departureSiteId: siteId(i),
      arrivalSiteId: siteId(i + 1),
      distance: Math.round(leg.distance),
      nominalDuration: Math.round(leg.duration),
      averageSpeed: round1(leg.averageSpeed),
      departureSnapDistance: round1(leg.from.distance),
      arrivalSnapDistance: round1(leg.to.distance),
      points: encodePoints(leg.coordinates, pointsMode),
      ...(leg.zonesEntered && {
        restrictionZonesEntered: leg.zonesEntered.map((z) => ({ name: z.name, distanceInside: Math.round(z.metresInside) })),
      }),
      ...(leg.avoidedTypesDriven && {
        avoidedTypesDriven: leg.avoidedTypesDriven.map((d) => ({ type: d.type, distance: Math.round(d.metres) })),
      }),
      ...(leg.steps && { turnByTurn: leg.steps.map((step) => turnByTurnInstruction(step, leg.coordinates, pointsMode)) }),
      ...(leg.waits && {
        waits: leg.waits.map((w) => ({ zone: w.zone, latitude: w.latitude, longitude: w.longitude, from: w.from, until: w.until, duration: Math.round(w.seconds) })),
      }),
    })),
    ...(route.departure && { departure: route.departure }),
    ...(vehicle && { vehicle: appliedVehicle(vehicle) }),
    createdAt: (context.now ?? new Date()).toISOString(),
    ...(context.expiresAt !== undefined && { expiryIn: new Date(context.expiresAt).toISOString() }),
  };
}

/**
 * A step as Maplink's TurnByTurnInstruction: metres (to the centimetre), the type, the step's
 * stretch of the leg's points (in the leg's pointsMode), the text, the duration in whole
 * milliseconds (an int in the schema; its sample gives 61185 for 704 m of avenue), the exit taken
 * on a roundabout.
 */
function turnByTurnInstruction(step: RouteStep, coordinates: Float64Array, pointsMode: PointsMode): TurnByTurnInstruction {
  return {
    distance: Math.round(step.distance * 100) / 100,
    type: step.type,
    points: encodePoints(coordinates.subarray(2 * step.first, 2 * step.last + 2), pointsMode),
    text: step.text,
    duration: Math.round(step.duration * 1000),
    ...(step.exitNumber !== undefined && { exitNumber: step.exitNumber }),
  };
}

/**
 * Throws INVALID_VEHICLE for a vehicle member out of range; 400 UNSUPPORTED_FEATURE naming every Maplink member whose value asks for what detour does
 * not do yet (unsupportedTripMembers), after the stops are snapped: a stop off this graph's roads
 * (422 POINT_NOT_ROUTABLE) is the more basic answer, and snapping costs only such requests.
 * Returns the trip's vehicle (vehicleOf) and the language of its instructions (turnByTurnLanguage).
 */
export function checkTripFeatures(request: TripRequest, stops: StopSnapper, pointLabels = request.points.map(pointLabel)): TripFeatures {
  const vehicle = vehicleOf(request.vehicleType, request.vehicleSpecification as VehicleSpecification | null | undefined, 'vehicleSpecification', request.speedPreferences);
  const language = turnByTurnLanguage(request);
  const unsupported = unsupportedTripMembers(request);
  if (unsupported.length === 0) return { vehicle, language };
  stops.snapStops(request.points, pointLabels);
  throw unsupportedFeature(unsupported);
}

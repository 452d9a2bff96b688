import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodePoints, encodePoints, POINTS_MODES, type EncodedPoints, type PointsMode } from '../geo/pointEncodings.js';
import type { Job, Store } from '../store/Store.js';
import { checkTripFeatures, pointLabel, type StopSnapper, type TripRequest, type TripResponse } from '../trip/calculateTrip.js';
import type { TripThreads } from '../trip/TripThreads.js';
import { decimalCoordinate, maplinkDate, startDateIssues, type MemberIssue } from '../trip/maplinkVocabulary.js';
import type { ZoneCache } from '../zones/ZoneCache.js';
import { authenticate, type Caller } from './authenticate.js';
import { apiError, HttpError } from './httpErrors.js';
import { callbackIssues, type JobCallback, type Jobs, type JobSolver } from './Jobs.js';
import { jobReadRoutes } from './jobRoutes.js';
import { JobWriter } from './JobWriter.js';
import { sendJsonText } from './jsonText.js';
import { checkZonesExist, resolveZones, zoneNames } from './resolveZones.js';
import { authHeadersSchema, POINTS_MODE_DESCRIPTION, tripBodySchema, tripProblemSchema, tripQuerySchema, tripResponseSchema } from './schemas.js';

export interface TripRoutesOptions {
  store: Store;
  zones: ZoneCache;
  /** Snaps stops to check a trip before it is queued (v1 problems): no routing on the event loop. */
  stops: StopSnapper;
  /** Where trips are calculated. */
  threads: TripThreads;
  /** Synchronous trips queued or under way at most (more: 503 TRIPS_BUSY). */
  maxQueuedTrips: number;
  jobs: Jobs;
  now: () => number;
  /** How long a trip waits for a zone still in calculation before answering ZONE_NOT_READY (ms). */
  zoneWaitMillis: number;
  /** How long a solution is kept: by default, and at most (an expireIn further ahead is refused). */
  retentionMillis: number;
  /** Hosts callbacks may be sent to; undefined: any host. */
  callbackHosts?: string[];
  /** Hands the Jobs runner the solver of asynchronous trips. */
  setSolver: (solver: JobSolver) => void;
}

/** Unfinished asynchronous trips one client may have (more: 429). */
export const OPEN_TRIP_JOBS_PER_CLIENT = 10;

const DAY = 24 * 3600_000;

/** GET /v1/solutions/{id}'s query: pointsMode, by default the one the solution was written in. */
const solutionQuerySchema = {
  type: 'object',
  properties: { pointsMode: { type: 'string', enum: POINTS_MODES, description: `${POINTS_MODE_DESCRIPTION} Default: as the solution was answered (a synchronous trip's pointsMode; object for asynchronous ones).` } },
  additionalProperties: false,
} as const;

/**
 * What a stored trip keeps beside its solution: the request, the pointsMode the solution is
 * written in, and an asynchronous trip's callback where the Jobs runner reads it.
 */
interface StoredTripRequest {
  body: TripRequest;
  pointsMode: PointsMode;
  callback?: JobCallback;
}

/**
 * The Trip API. POST /v2/calculations routes through the points around the caller's stored zones
 * (201); its solution is kept until expireIn (default 7 days) and read back, as Maplink's stored
 * solutions are, at GET /v1/solutions/{id}. Maplink's asynchronous trips: POST /v1/problems (201
 * {id}), then GET /v1/jobs/{id}, /v1/events?jobId=, /v1/solutions/{id}, on the job machinery of
 * the Matrix API (durable, shared by instances, bounded per client). No clientId header needed
 * (Maplink's clients send none); when sent it must be the token's.
 */
export async function tripRoutes(app: FastifyInstance, options: TripRoutesOptions): Promise<void> {
  const { store, zones, stops, now } = options;
  app.addHook('onRequest', async (request) => {
    await authenticate(request, store, 'Trip', now(), 'optional');
  });
  const auth = { headers: authHeadersSchema, security: [{ bearer: [] }] };
  const solutions = new JobWriter(store);

  /**
   * The body with numeric coordinates and NFC zone names, and until when its solution is kept:
   * 400 naming every coordinate string that is no decimal, a body clientId that is not the
   * caller's, an unreadable or too distant expireIn, a callback where none is taken.
   */
  function readTrip(body: TripRequest, caller: Caller, asynchronous: boolean): { trip: TripRequest; expiresAt: number } {
    const errors: MemberIssue[] = [];
    const points = body.points.map((p, i) => ({
      ...p,
      latitude: decimalCoordinate(p.latitude, `points[${i}].latitude`, 90, errors),
      longitude: decimalCoordinate(p.longitude, `points[${i}].longitude`, 180, errors),
    }));
    if (body.clientId !== undefined && body.clientId !== caller.clientId) {
      throw apiError(403, 'CLIENT_ID_MISMATCH', 'the body\'s clientId does not match the client the access token was issued to');
    }
    const at = now();
    let expiresAt = at + options.retentionMillis;
    if (body.expireIn !== undefined) {
      expiresAt = maplinkDate(body.expireIn);
      if (!Number.isFinite(expiresAt)) errors.push({ path: 'expireIn', message: 'must be epoch milliseconds or an ISO-8601 date-time' });
      else if (expiresAt > at + options.retentionMillis) errors.push({ path: 'expireIn', message: `must be at most ${options.retentionMillis / DAY} days ahead: this service keeps trips that long` });
      // A synchronous trip that expired already is answered and not kept; a job could never be read.
      else if (asynchronous && expiresAt <= at) errors.push({ path: 'expireIn', message: 'is in the past: the solution could never be read' });
    }
    errors.push(...startDateIssues(body.startDate), ...callbackIssues(body.callback, asynchronous, '/trip/v1/problems', options.callbackHosts));
    if (errors.length > 0) throw apiError(400, 'INVALID_REQUEST', `invalid body: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
    const trip: TripRequest = { ...body, points, restrictionZones: zoneNames(body.restrictionZones ?? []), avoidanceTypes: body.avoidanceTypes ?? undefined };
    return { trip, expiresAt };
  }

  /** Routes a read trip around the client's zones on a trip thread: the solution's JSON, as Maplink answers it. */
  async function solve(trip: TripRequest, clientId: string, id: string, expiresAt: number, pointsMode: PointsMode): Promise<string> {
    const zoneList = await resolveZones(store, zones, clientId, trip.restrictionZones ?? [], options.zoneWaitMillis);
    return options.threads.calculate(trip, zoneList, { clientId, pointsMode, now: now(), id, expiresAt });
  }

  app.post<{ Body: TripRequest; Querystring: { pointsMode?: PointsMode } }>(
    '/v2/calculations',
    {
      schema: {
        tags: ['Trip'],
        summary: 'Calculate a trip through ordered points, avoiding restriction zones; the solution is kept for reading back',
        ...auth,
        querystring: tripQuerySchema,
        body: tripBodySchema,
        response: { 201: tripResponseSchema },
      },
    },
    async (request, reply) => {
      const caller = request.caller!;
      const { trip, expiresAt } = readTrip(request.body, caller, false);
      if (options.threads.trips >= options.maxQueuedTrips) {
        throw new HttpError(503, { code: 'TRIPS_BUSY', message: `${options.threads.trips} trips are queued on this instance's threads; try again shortly, or post the trip to /trip/v1/problems` }, { 'retry-after': '1' });
      }
      const pointsMode = request.query.pointsMode ?? 'polyline';
      const id = randomUUID();
      const json = await solve(trip, caller.clientId, id, expiresAt, pointsMode);
      const at = now();
      // Kept before it is answered: the id the client is given can be read back at once, from any instance.
      if (expiresAt > at) {
        const stored: StoredTripRequest = { body: trip, pointsMode };
        await solutions.write({
          id, clientId: caller.clientId, kind: 'trip', status: 'SOLVED', request: stored, solutionJson: json,
          attempts: 0, createdAt: at, updatedAt: at, expiresAt,
        });
      }
      return sendJsonText(reply.code(201), json);
    },
  );

  app.post<{ Body: TripRequest }>(
    '/v1/problems',
    {
      schema: {
        tags: ['Trip'],
        summary: 'Queue a trip (Maplink\'s asynchronous Trip API); answers the job id',
        ...auth,
        body: tripProblemSchema,
        response: { 201: { type: 'object', properties: { id: { type: 'string' } } } },
      },
    },
    async (request, reply) => {
      const caller = request.caller!;
      const { trip, expiresAt } = readTrip(request.body, caller, true);
      // What can be known now is answered now, not as a failed job later: features, stops, zones.
      checkTripFeatures(trip, stops);
      stops.snapStops(trip.points, trip.points.map(pointLabel));
      await checkZonesExist(store, caller.clientId, trip.restrictionZones ?? []);
      if ((await store.openJobs(caller.clientId, 'trip')) >= OPEN_TRIP_JOBS_PER_CLIENT) {
        throw new HttpError(429, { code: 'TRIP_JOBS_LIMIT', message: `at most ${OPEN_TRIP_JOBS_PER_CLIENT} unfinished trip jobs per client; post again when one has finished` }, { 'retry-after': '5' });
      }
      const at = now();
      const id = randomUUID();
      const stored: StoredTripRequest = { body: trip, pointsMode: 'object', ...(trip.callback && { callback: trip.callback }) };
      await store.insertJob({ id, clientId: caller.clientId, kind: 'trip', status: 'ENQUEUED', request: stored, attempts: 0, createdAt: at, updatedAt: at, expiresAt });
      options.jobs.poke();
      return reply.code(201).send({ id });
    },
  );

  // An asynchronous trip's solution is written in object mode (Maplink's default for them), a
  // synchronous one's in the pointsMode it was answered in; ?pointsMode= rewrites it.
  options.setSolver(async (job: Job) => {
    const { body, pointsMode } = job.request as StoredTripRequest;
    return solve(body, job.clientId, job.id, job.expiresAt, pointsMode);
  });

  jobReadRoutes(app, {
    kind: 'trip', store, now, api: 'trip', name: 'Trip', prefix: '/v1', notSolvedStatus: 404,
    solutionQuery: solutionQuerySchema,
    sendSolution: (job, request, reply) => {
      const wanted = (request.query as { pointsMode?: PointsMode }).pointsMode;
      const stored = (job.request as StoredTripRequest).pointsMode;
      return sendJsonText(reply, wanted === undefined || wanted === stored ? job.solutionJson! : rewritePoints(job.solutionJson!, stored, wanted));
    },
  });
}

/** A trip solution's JSON with every leg's points, and its instructions' points, re-encoded from one pointsMode into another. */
function rewritePoints(json: string, from: PointsMode, to: PointsMode): string {
  const solution = JSON.parse(json) as TripResponse;
  for (const leg of solution.legs) {
    leg.points = encodePoints(decodePoints(leg.points as EncodedPoints, from), to);
    for (const step of leg.turnByTurn ?? []) step.points = encodePoints(decodePoints(step.points, from), to);
  }
  return JSON.stringify(solution);
}

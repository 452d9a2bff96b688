import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Matrices } from '../routing/MatrixRunner.js';
import type { Store } from '../store/Store.js';
import { linearMatrix } from '../trip/linearMatrix.js';
import { decimalCoordinate, startDateIssues, unsupportedAvoidance, unsupportedFeature } from '../trip/maplinkVocabulary.js';
import { vehicleOf } from '../routing/vehicle.js';
import { matrixSolution, type MatrixProblem, type MatrixSite, type MatrixSolution } from '../trip/matrixSolution.js';
import type { ZoneCache } from '../zones/ZoneCache.js';
import { authenticate } from './authenticate.js';
import { apiError, HttpError } from './httpErrors.js';
import { sendJsonText } from './jsonText.js';
import { callbackIssues, type Jobs, type JobSolver } from './Jobs.js';
import { jobReadRoutes } from './jobRoutes.js';
import { MATRIX_LIMITS, matrixProblemSchema, matrixSolutionSchema } from './matrixSchemas.js';
import { checkZonesExist, resolveZones, zoneNames } from './resolveZones.js';
import { authHeadersSchema } from './schemas.js';
import type { AvoidanceType } from '../routing/avoidance.js';

export interface MatrixRoutesOptions {
  store: Store;
  zones: ZoneCache;
  runner: Matrices;
  jobs: Jobs;
  now: () => number;
  zoneWaitMillis: number;
  /** How long a job and its solution are kept (default 7 days). */
  retentionMillis: number;
  /** Hosts callbacks may be sent to; undefined: any host. */
  callbackHosts?: string[];
  /** Hands the Jobs runner the solver of matrix jobs. */
  setSolver: (solver: JobSolver) => void;
}

/**
 * Maplink's Distance Matrix API: POST /problems queues a job, GET /jobs/{id} its status, GET
 * /solutions/{id} its result, GET /events?jobId= its status changes; POST /calculations (a
 * detour extension) answers a small matrix in one round trip. Jobs are the client's own.
 */
export async function matrixRoutes(app: FastifyInstance, options: MatrixRoutesOptions): Promise<void> {
  const { store, zones, runner, jobs, now } = options;
  app.addHook('onRequest', async (request) => {
    await authenticate(request, store, 'Matrix', now(), 'optional');
  });

  /**
   * Checks what the schema cannot (unique siteIds, coordinates sent as strings, the element
   * count, the callback URL, what LINEAR can honour); the problem with numeric coordinates and
   * NFC zone names.
   */
  function checkProblem(body: MatrixProblem, maxElements: number, asynchronous: boolean): MatrixProblem {
    const errors: Array<{ path: string; message: string }> = [];
    const sites = { origins: [] as MatrixSite[], destinations: [] as MatrixSite[] };
    for (const list of ['origins', 'destinations'] as const) {
      const seen = new Map<string, number>();
      body[list].forEach((s, i) => {
        const first = seen.get(s.siteId);
        if (first !== undefined) errors.push({ path: `${list}[${i}].siteId`, message: `repeats ${list}[${first}].siteId ${JSON.stringify(s.siteId)}` });
        else seen.set(s.siteId, i);
        sites[list].push({
          siteId: s.siteId,
          latitude: decimalCoordinate(s.latitude, `${list}[${i}].latitude`, 90, errors),
          longitude: decimalCoordinate(s.longitude, `${list}[${i}].longitude`, 180, errors),
        });
      });
    }
    const elements = body.origins.length * body.destinations.length;
    if (elements > maxElements) {
      errors.push({ path: 'origins', message: `origins x destinations is ${elements} elements, more than the ${maxElements} allowed here${asynchronous ? '' : ' (POST /matrix/v1/problems takes up to ' + MATRIX_LIMITS.elements + ')'}` });
    }
    errors.push(...startDateIssues(body.startDate), ...callbackIssues(body.callback, asynchronous, '/matrix/v1/problems', options.callbackHosts));
    if (body.tripProfile === 'LINEAR') {
      // Straight lines ignore roads: they cannot go around a zone or a road type.
      if ((body.restrictionZones ?? []).length > 0) errors.push({ path: 'restrictionZones', message: 'cannot be avoided by tripProfile LINEAR (straight lines ignore roads)' });
      if ((body.avoidanceTypes ?? []).length > 0) errors.push({ path: 'avoidanceTypes', message: 'cannot be avoided by tripProfile LINEAR (straight lines ignore roads)' });
    }
    if (errors.length > 0) throw apiError(400, 'INVALID_REQUEST', `invalid body: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
    const unsupported = unsupportedAvoidance(body.avoidanceTypes);
    if (unsupported.length > 0) throw unsupportedFeature(unsupported);
    vehicleOf(body.vehicleType, body.vehicleSpecification, 'vehicleSpecification', body.speedPreferences); // INVALID_VEHICLE now, not when the job runs
    return { ...body, ...sites, avoidanceTypes: body.avoidanceTypes ?? undefined, restrictionZones: zoneNames(body.restrictionZones ?? []) };
  }

  /** The solution of a checked problem: straight lines for LINEAR, else the matrix thread around the client's zones. */
  async function solve(problem: MatrixProblem, clientId: string, id: string, zoneWaitMillis: number): Promise<MatrixSolution> {
    const vehicle = vehicleOf(problem.vehicleType, problem.vehicleSpecification, 'vehicleSpecification', problem.speedPreferences);
    if (problem.tripProfile === 'LINEAR') return matrixSolution(linearMatrix(problem.origins, problem.destinations), problem, id, clientId, now(), vehicle);
    const zoneList = await resolveZones(store, zones, clientId, problem.restrictionZones ?? [], zoneWaitMillis);
    const result = await runner.run({
      origins: problem.origins, destinations: problem.destinations, calculationMode: problem.calculationMode, zones: zoneList,
      avoidanceTypes: problem.avoidanceTypes as AvoidanceType[] | undefined,
      vehicle,
      departure: problem.startDate,
    });
    return matrixSolution(result, problem, id, clientId, now(), vehicle);
  }
  // A job's zones are read again when it runs: one deleted since it was posted fails the job with the reason.
  options.setSolver(async (job) => JSON.stringify(await solve(job.request as MatrixProblem, job.clientId, job.id, 60_000)));

  const problemRoute = {
    headers: authHeadersSchema,
    security: [{ bearer: [] }],
    body: matrixProblemSchema,
  };

  app.post<{ Body: MatrixProblem }>(
    '/problems',
    { schema: { tags: ['Matrix'], summary: 'Queue a distance matrix (asynchronous); answers the job id', ...problemRoute, response: { 202: { type: 'object', properties: { id: { type: 'string' } } } } } },
    async (request, reply) => {
      const clientId = request.caller!.clientId;
      const problem = checkProblem(request.body, MATRIX_LIMITS.elements, true);
      await checkZonesExist(store, clientId, problem.restrictionZones ?? []);
      // Bounded work per client: jobs queue in the store, and each costs the matrix thread.
      if ((await store.openJobs(clientId, 'matrix')) >= MATRIX_LIMITS.openJobsPerClient) {
        throw new HttpError(429, { code: 'MATRIX_JOBS_LIMIT', message: `at most ${MATRIX_LIMITS.openJobsPerClient} unfinished matrix jobs per client; post again when one has finished` }, { 'retry-after': '5' });
      }
      const at = now();
      const id = randomUUID();
      await store.insertJob({ id, clientId, kind: 'matrix', status: 'ENQUEUED', request: problem, attempts: 0, createdAt: at, updatedAt: at, expiresAt: at + options.retentionMillis });
      jobs.poke();
      return reply.code(202).send({ id });
    },
  );

  app.post<{ Body: MatrixProblem }>(
    '/calculations',
    { schema: { tags: ['Matrix'], summary: `Calculate a small distance matrix at once (detour extension, up to ${MATRIX_LIMITS.syncElements} elements)`, ...problemRoute, response: { 200: matrixSolutionSchema } } },
    async (request) => {
      const clientId = request.caller!.clientId;
      const problem = checkProblem(request.body, MATRIX_LIMITS.syncElements, false);
      if (runner.pending >= MATRIX_LIMITS.syncQueue) {
        throw new HttpError(503, { code: 'MATRIX_BUSY', message: 'the matrix thread of this instance is busy; try again shortly, or post the problem to /matrix/v1/problems' }, { 'retry-after': '1' });
      }
      return solve(problem, clientId, randomUUID(), options.zoneWaitMillis);
    },
  );

  jobReadRoutes(app, {
    kind: 'matrix', store, now, api: 'matrix', name: 'Matrix', notSolvedStatus: 409,
    // Stored as the JSON it was made as (matrixSolutionSchema): sent as it is, in slices when long.
    sendSolution: (job, _request, reply) => sendJsonText(reply, job.solutionJson!),
  });
}

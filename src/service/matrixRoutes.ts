import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { MatrixRunner } from '../routing/MatrixRunner.js';
import type { Store } from '../store/Store.js';
import { matrixSolution, type MatrixProblem } from '../trip/matrixSolution.js';
import type { ZoneCache } from '../zones/ZoneCache.js';
import { authenticate } from './authenticate.js';
import { apiError, HttpError } from './httpErrors.js';
import { sendJsonText } from './jsonText.js';
import type { MatrixJobs } from './MatrixJobs.js';
import { MATRIX_LIMITS, matrixEventsSchema, matrixJobSchema, matrixProblemSchema, matrixSolutionSchema } from './matrixSchemas.js';
import { resolveZones, zoneNames } from './resolveZones.js';
import { authHeadersSchema } from './schemas.js';
import { parseAvoidance, type AvoidanceType } from '../routing/avoidance.js';

export interface MatrixRoutesOptions {
  store: Store;
  zones: ZoneCache;
  runner: MatrixRunner;
  jobs: MatrixJobs;
  now: () => number;
  zoneWaitMillis: number;
  /** How long a job and its solution are kept (default 7 days). */
  retentionMillis: number;
  /** Hosts callbacks may be sent to; undefined: any host. */
  callbackHosts?: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Maplink's Distance Matrix API: POST /problems queues a job, GET /jobs/{id} its status, GET
 * /solutions/{id} its result, GET /events?jobId= its status changes; POST /calculations (a
 * detour extension) answers a small matrix in one round trip. Jobs are the client's own.
 */
export async function matrixRoutes(app: FastifyInstance, options: MatrixRoutesOptions): Promise<void> {
  const { store, zones, runner, jobs, now } = options;
  app.addHook('onRequest', async (request) => {
    await authenticate(request, store, 'Matrix', now());
  });

  /** Checks what the schema cannot (unique siteIds, the element count, the callback URL); the problem with NFC zone names. */
  function checkProblem(body: MatrixProblem, maxElements: number, asynchronous: boolean): MatrixProblem {
    const errors: Array<{ path: string; message: string }> = [];
    for (const list of ['origins', 'destinations'] as const) {
      const seen = new Map<string, number>();
      body[list].forEach((s, i) => {
        const first = seen.get(s.siteId);
        if (first !== undefined) errors.push({ path: `${list}[${i}].siteId`, message: `repeats ${list}[${first}].siteId ${JSON.stringify(s.siteId)}` });
        else seen.set(s.siteId, i);
      });
    }
    const elements = body.origins.length * body.destinations.length;
    if (elements > maxElements) {
      errors.push({ path: 'origins', message: `origins x destinations is ${elements} elements, more than the ${maxElements} allowed here${asynchronous ? '' : ' (POST /matrix/v1/problems takes up to ' + MATRIX_LIMITS.elements + ')'}` });
    }
    if (body.callback) {
      if (!asynchronous) errors.push({ path: 'callback', message: 'only asynchronous problems (POST /matrix/v1/problems) call back' });
      else {
        const problem = callbackProblem(body.callback.url, options.callbackHosts);
        if (problem) errors.push({ path: 'callback.url', message: problem });
      }
    }
    parseAvoidance(body.avoidanceTypes, body.avoidanceBehavior); // FRONTIERS: 400 AVOIDANCE_TYPE_UNSUPPORTED
    if (errors.length > 0) throw apiError(400, 'INVALID_REQUEST', `invalid body: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
    return { ...body, restrictionZones: zoneNames(body.restrictionZones ?? []) };
  }

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
      // Unknown zones are a 400 now rather than a failed job later.
      const known = await store.zoneRevisions(clientId, [...new Set(problem.restrictionZones)]);
      const missing = [...new Set(problem.restrictionZones)].filter((n) => !known.some((z) => z.name === n));
      if (missing.length > 0) throw apiError(400, 'ZONE_NOT_FOUND', `unknown restriction zone${missing.length > 1 ? 's' : ''}: ${missing.map((n) => JSON.stringify(n)).join(', ')}`, { zones: missing });
      // Bounded work per client: jobs queue in the store, and each costs the matrix thread.
      if ((await store.openMatrixJobs(clientId)) >= MATRIX_LIMITS.openJobsPerClient) {
        throw new HttpError(429, { code: 'MATRIX_JOBS_LIMIT', message: `at most ${MATRIX_LIMITS.openJobsPerClient} unfinished matrix jobs per client; post again when one has finished` }, { 'retry-after': '5' });
      }
      const at = now();
      const id = randomUUID();
      await store.insertMatrixJob({ id, clientId, status: 'ENQUEUED', request: problem, attempts: 0, createdAt: at, updatedAt: at, expiresAt: at + options.retentionMillis });
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
      const zoneList = await resolveZones(store, zones, clientId, problem.restrictionZones!, options.zoneWaitMillis);
      const result = await runner.run({
        origins: problem.origins, destinations: problem.destinations, calculationMode: problem.calculationMode, zones: zoneList,
        avoidanceTypes: problem.avoidanceTypes as AvoidanceType[] | undefined,
      });
      return matrixSolution(result, problem, randomUUID(), clientId, now());
    },
  );

  const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } }, required: ['id'] } as const;

  async function jobOf(clientId: string, id: string, withSolution = false) {
    const job = UUID.test(id) ? await store.getMatrixJob(clientId, id, now(), withSolution) : undefined;
    if (!job) throw apiError(404, 'MATRIX_JOB_NOT_FOUND', `no matrix job ${JSON.stringify(id)} (unknown, another client's, or older than its retention)`);
    return job;
  }

  app.get<{ Params: { id: string } }>(
    '/jobs/:id',
    { schema: { tags: ['Matrix'], summary: 'A matrix job\'s status', headers: authHeadersSchema, security: [{ bearer: [] }], params: idParams, response: { 200: matrixJobSchema } } },
    async (request) => {
      const job = await jobOf(request.caller!.clientId, request.params.id);
      return { id: job.id, status: job.status, ...(job.failure ? { reason: job.failure } : {}), createdAt: job.createdAt, updatedAt: job.updatedAt };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/solutions/:id',
    { schema: { tags: ['Matrix'], summary: 'A solved matrix', headers: authHeadersSchema, security: [{ bearer: [] }], params: idParams, response: { 200: matrixSolutionSchema } } },
    async (request, reply) => {
      const job = await jobOf(request.caller!.clientId, request.params.id, true);
      if (job.status === 'FAILED') throw apiError(422, 'MATRIX_JOB_FAILED', `the matrix job failed: ${job.failure}`);
      if (job.status !== 'SOLVED') throw apiError(409, 'MATRIX_NOT_SOLVED', `the matrix job is ${job.status}; ask again later (GET /matrix/v1/jobs/${job.id})`);
      // Stored as the JSON it was made as (matrixSolutionSchema): sent as it is, in slices when long.
      return sendJsonText(reply, job.solutionJson!);
    },
  );

  app.get<{ Querystring: { jobId: string } }>(
    '/events',
    {
      schema: {
        tags: ['Matrix'], summary: 'A matrix job\'s status changes, oldest first', headers: authHeadersSchema, security: [{ bearer: [] }],
        querystring: { type: 'object', properties: { jobId: { type: 'string', maxLength: 100 } }, required: ['jobId'], additionalProperties: false },
        response: { 200: matrixEventsSchema },
      },
    },
    async (request) => {
      const job = await jobOf(request.caller!.clientId, request.query.jobId);
      const events = await store.matrixJobEvents(job.clientId, job.id, now());
      return events.map((e) => ({ jobId: e.jobId, status: e.status, createdAt: e.at, ...(e.detail ? { detail: e.detail } : {}) }));
    },
  );
}

/** Why a callback URL is refused, or undefined: http(s) only, no credentials in it, and a listed host when a list is set. */
export function callbackProblem(url: string, hosts?: string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must be http or https, got ${parsed.protocol.replace(':', '')}`;
  if (parsed.username || parsed.password) return 'must not hold credentials: use callback.user and callback.password';
  if (hosts && !hosts.includes(parsed.hostname.toLowerCase()) && !hosts.includes(parsed.host.toLowerCase())) {
    return `host ${parsed.host} is not among the allowed callback hosts (DETOUR_MATRIX_CALLBACK_HOSTS)`;
  }
  return undefined;
}

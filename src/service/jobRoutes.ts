import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Job, JobKind, Store } from '../store/Store.js';
import { apiError } from './httpErrors.js';
import { authHeadersSchema } from './schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } }, required: ['id'] } as const;

export const jobStatusSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['ENQUEUED', 'PROCESSING', 'SOLVED', 'FAILED'] },
    reason: { type: 'string', description: 'FAILED: why' },
    createdAt: { type: 'integer' },
    updatedAt: { type: 'integer' },
  },
} as const;

export const jobEventsSchema = {
  type: 'array',
  items: {
    type: 'object',
    description: 'A status change: Maplink\'s event members (id, jobId, type STATUS_CHANGE, description: the status, createdAt) and the status again as `status`.',
    properties: {
      id: { type: 'string' },
      jobId: { type: 'string' },
      type: { type: 'string' },
      description: { type: 'string' },
      status: { type: 'string' },
      createdAt: { type: 'integer', description: 'epoch milliseconds' },
      detail: { type: 'string' },
    },
  },
} as const;

export interface JobReadRoutesOptions {
  kind: JobKind;
  store: Store;
  now: () => number;
  /** The API's name in paths and messages ("matrix", "trip"). */
  api: string;
  /** The status of a solution asked for before the job is solved (Maplink: trips 404, matrices 409 here). */
  notSolvedStatus: 404 | 409;
  /** A query string the solution takes (the trip's pointsMode), and how a solved job's solution is sent. */
  solutionQuery?: Record<string, unknown>;
  sendSolution: (job: Job, request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>;
  /** operationId stem: "Matrix", "Trip". */
  name: string;
  /** Before the routes' paths inside the API's plugin (the Trip API's "/v1"). */
  prefix?: string;
}

/**
 * GET /jobs/{id}, /solutions/{id} and /events?jobId= of an asynchronous Maplink API, for the
 * caller's jobs of one kind (another client's job, or another kind's, is a 404 like an unknown
 * one). Registered inside the API's plugin, behind its authentication.
 */
export function jobReadRoutes(app: FastifyInstance, options: JobReadRoutesOptions): void {
  const { kind, store, now, api } = options;
  const CODE = api.toUpperCase();
  const auth = { headers: authHeadersSchema, security: [{ bearer: [] }] };
  const tags = [options.name];
  const prefix = options.prefix ?? '';

  async function jobOf(clientId: string, id: string, withSolution = false): Promise<Job> {
    const job = UUID.test(id) ? await store.getJob(clientId, kind, id, now(), withSolution) : undefined;
    if (!job) throw apiError(404, `${CODE}_JOB_NOT_FOUND`, `no ${api} job ${JSON.stringify(id)} (unknown, another client's, or older than its retention)`);
    return job;
  }

  app.get<{ Params: { id: string } }>(
    `${prefix}/jobs/:id`,
    { schema: { tags, summary: `A ${api} job's status`, operationId: `get${options.name}Job`, ...auth, params: idParams, response: { 200: jobStatusSchema } } },
    async (request) => {
      const job = await jobOf(request.caller!.clientId, request.params.id);
      return { id: job.id, status: job.status, ...(job.failure ? { reason: job.failure } : {}), createdAt: job.createdAt, updatedAt: job.updatedAt };
    },
  );

  app.get<{ Params: { id: string } }>(
    `${prefix}/solutions/:id`,
    {
      schema: {
        tags, summary: `A solved ${api}`, operationId: `get${options.name}Solution`, ...auth, params: idParams,
        ...(options.solutionQuery ? { querystring: options.solutionQuery } : {}),
        response: {
          [options.notSolvedStatus]: { description: `The job is not solved yet (${CODE}_NOT_SOLVED)${options.notSolvedStatus === 404 ? ', or no such job' : ''}`, $ref: 'ApiError#' },
          422: { description: `The job failed (${CODE}_JOB_FAILED), with the reason`, $ref: 'ApiError#' },
        },
      },
    },
    async (request, reply) => {
      const job = await jobOf(request.caller!.clientId, request.params.id, true);
      if (job.status === 'FAILED') throw apiError(422, `${CODE}_JOB_FAILED`, `the ${api} job failed: ${job.failure}`);
      if (job.status !== 'SOLVED') throw apiError(options.notSolvedStatus, `${CODE}_NOT_SOLVED`, `the ${api} job is ${job.status}; ask again later (GET ${request.url.split('/solutions/')[0]}/jobs/${job.id})`);
      return options.sendSolution(job, request, reply);
    },
  );

  app.get<{ Querystring: { jobId: string } }>(
    `${prefix}/events`,
    {
      schema: {
        tags, summary: `A ${api} job's status changes, oldest first`, operationId: `list${options.name}JobEvents`, ...auth,
        querystring: { type: 'object', properties: { jobId: { type: 'string', maxLength: 100 } }, required: ['jobId'], additionalProperties: false },
        response: { 200: jobEventsSchema },
      },
    },
    async (request) => {
      const job = await jobOf(request.caller!.clientId, request.query.jobId);
      const events = await store.jobEvents(job.clientId, kind, job.id, now());
      return events.map((e, i) => ({
        id: `${e.jobId}.${i + 1}`, jobId: e.jobId, type: 'STATUS_CHANGE', description: e.status, status: e.status, createdAt: e.at, ...(e.detail ? { detail: e.detail } : {}),
      }));
    },
  );
}

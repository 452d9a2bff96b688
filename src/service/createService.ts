import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import helmet from 'helmet';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { DetourError, ErrorCode } from '../errors.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { SnapIndex } from '../graph/SnapIndex.js';
import { PostgresStore } from '../store/PostgresStore.js';
import { DEFAULT_ZONE_QUOTA, UnstorableText, type JobKind, type Store, type ZoneQuota } from '../store/Store.js';
import { ZoneCache, type ZoneCacheOptions } from '../zones/ZoneCache.js';
import type { ZoneWork } from '../zones/ZoneCalculator.js';
import { sweepZoneCache } from './resolveZones.js';
import { fromDetourError, HttpError, apiError, notUtf8, oauthError, schemaIssues } from './httpErrors.js';
import { utf8Body } from './jsonText.js';
import { apiErrorSchema, apigeeFaultSchema, oauthErrorSchema, TRIP_RETENTION_DAYS, zoneResponseSchema } from './schemas.js';
import {
  DEFAULT_FAILED_LOGIN_LIMITS, DEFAULT_TOKEN_ISSUANCE_LIMIT, IssuanceLimit, LimitsOverPort, LoginLimits, type FailedLoginLimits, type LimitBackend, type TokenIssuanceLimit,
} from './loginLimits.js';
import { ScryptThreads, type ScryptDerive } from './scryptThreads.js';
import { tokenRoutes } from './tokenRoutes.js';
import { tripRoutes } from './tripRoutes.js';
import { documentRoute } from './openApiRoute.js';
import { matrixRoutes } from './matrixRoutes.js';
import { mapRoutes, type Basemap } from './mapRoutes.js';
import { Jobs, type JobSolver, type JobsOptions } from './Jobs.js';
import { MatrixRunner, type Matrices } from '../routing/MatrixRunner.js';
import type { SharedRouterData, VehicleClassPart } from '../routing/routerThread.js';
import type { Vehicle } from '../routing/vehicle.js';
import { TripThreads } from '../trip/TripThreads.js';
import { VerifiedSecrets } from './verifiedSecrets.js';
import { zoneRoutes } from './zoneRoutes.js';

export interface ServiceOptions {
  graph: RoadGraph;
  store: Store;
  /** pino options, a logger, or false (default false: the CLI passes its own). */
  logger?: FastifyServerOptions['logger'];
  /** The clock, epoch milliseconds (tests move it to expire tokens). */
  now?: () => number;
  /** Default 3,600 s, as Maplink's tokens; whole seconds from 2 to 86,400. */
  tokenLifetimeSeconds?: number;
  /** Login limits of the token endpoint (see FailedLoginLimits for the defaults). */
  failedLogins?: Partial<FailedLoginLimits>;
  /** Tokens issued per client id (default 120 an hour). */
  tokenIssuance?: Partial<TokenIssuanceLimit>;
  /**
   * Where login and issuance counts live; default PostgreSQL when the store is (shared by every
   * instance), else the cluster primary in a node:cluster worker, else this process's memory.
   */
  limitBackend?: LimitBackend['kind'];
  /** scrypt verifications at once in this process (default half the cores, at least 2); more get 503. */
  maxConcurrentVerifications?: number;
  /** How long a successful verification is trusted, seconds (default 300; 0: never cached). */
  verificationCacheSeconds?: number;
  /** Called before each scrypt verification of a secret (tests count them). */
  onSecretVerification?: () => void;
  /** Allowed CORS origins; undefined or empty: no CORS headers. `['*']` allows any origin. */
  corsOrigins?: string[];
  /**
   * Trust X-Forwarded-For from these proxies (fastify's trustProxy: true, a hop count, or
   * addresses/CIDRs), so per-address limits see the client, not the proxy. Default: no proxy.
   */
  trustProxy?: boolean | number | string[];
  /** Largest request body in bytes (default 1 MiB); zone bodies may be up to zoneBodyLimit. */
  bodyLimit?: number;
  /** Default 8 MiB: room for a zone at the vertex limits. */
  zoneBodyLimit?: number;
  /** Worker threshold and how many calculated zones to keep. */
  zoneCalculator?: ZoneCacheOptions;
  /** How long a trip waits for a zone still in calculation (default 30 s). */
  zoneWaitMillis?: number;
  /**
   * Every this many milliseconds (default 10 minutes), calculated zones not asked for meanwhile are
   * checked against the store, and those deleted or replaced through another instance let go.
   */
  zoneSweepMillis?: number;
  /** Serve the OpenAPI document and the reference at /docs (default true). */
  docs?: boolean;
  /** Serve the map page at / with the road tiles (default true). */
  mapPage?: boolean;
  /** A raster basemap the map page shows under the roads (default none: the page works offline). */
  basemap?: Basemap;
  /** Per-client zone limits (default DEFAULT_ZONE_QUOTA: 1,000 zones, 1,000,000 vertices). */
  zoneQuota?: Partial<ZoneQuota>;
  /**
   * Jobs of both APIs (matrices, asynchronous trips): lease, poll and attempts (see JobsOptions),
   * callback hosts (default any); and how long matrix solutions are kept (default 7 days).
   */
  matrix?: Pick<JobsOptions, 'leaseMillis' | 'pollMillis' | 'maxAttempts' | 'callbackAttempts' | 'callbackTimeoutMillis' | 'taker'> & {
    retentionMillis?: number;
    callbackHosts?: string[];
    /**
     * Start the matrix worker when the service is ready, so it prepares the customizable
     * hierarchy then and not inside the first matrix (`detour serve` does; default false, as
     * tests start many services).
     */
    prepare?: boolean;
  };
  /**
   * Trips: how long a solution is kept by default and at most (default 7 days); the most threads
   * they run on (default the cores less one, at least 1: TripThreads); `prepare` starts those
   * threads when the service is ready rather than as trips arrive (`detour serve` does; default
   * false, as tests start many services); how many synchronous trips may be queued or under way
   * (default 256 per thread; more: 503 TRIPS_BUSY with Retry-After); the vehicle classes each thread
   * prepares once started (Router.prepareVehicle; default none).
   */
  trips?: {
    retentionMillis?: number; threads?: number; prepare?: boolean; maxQueued?: number; vehicles?: Vehicle[];
    /** Another service of the process makes the vehicle classes: this one adopts the parts it is given (app.adoptVehicleClass). */
    adoptVehicles?: boolean;
    /** Told each part of a vehicle class this service made, on shared memory (for the process's other services). */
    onVehicleClass?: (part: VehicleClassPart) => void;
  };
  /**
   * One of a process's service threads (serve --workers N on threads): `shared` is what `graph` was
   * made from (its trip threads get it as it is), `matrices` the process's matrix worker, `limits`
   * the port of the login limits every thread counts against (serveLimits), `scrypt` the process's
   * scrypt threads (scryptOverPort), `zones` the process's zone worker (zoneWorkOverPort).
   */
  serviceThread?: { shared: SharedRouterData; matrices: Matrices; limits: MessagePort; scrypt: ScryptDerive; zones: ZoneWork };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The calculated zones of this instance, by client and name. */
    zoneCache: ZoneCache;
    store: Store;
    /** Start-up calculation of the stored zones (recalculateStoredZones). */
    zoneWarmUp: { running: boolean; done: number; total: number };
    /** The threads trips run on, with the calculated zones registered there. */
    tripThreads: TripThreads;
    /** A vehicle class's part made by another service of the process, for the trip threads and the matrix worker. */
    adoptVehicleClass(part: VehicleClassPart): void;
  }
}

/** The origin of a basemap URL template, for the CSP (none without a basemap). */
function basemapOrigin(basemap?: Basemap): string[] {
  if (!basemap) return [];
  try {
    return [new URL(basemap.url.replace(/\{[a-z]\}/g, '0')).origin];
  } catch {
    throw new DetourError(ErrorCode.INVALID_INPUT, `the basemap URL is not a URL: ${JSON.stringify(basemap.url)}`, { field: 'basemap.url' });
  }
}

const JSON_ONLY = () => apiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'bodies must be JSON (Content-Type: application/json)');

/** Maps every failure to its response in one place; a non-API failure is a 500 without details. */
function toHttpError(err: FastifyError, log: FastifyInstance['log'], request?: FastifyRequest): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof DetourError) {
    const mapped = fromDetourError(err);
    if (mapped) return mapped;
  }
  // A string the store refused before any query (NUL, lone surrogate): the caller's fault.
  if (err instanceof UnstorableText) {
    if (request?.url.startsWith('/oauth/')) return oauthError(400, 'invalid_request', `Invalid param : ${err.field} ${err.problem}`);
    return apiError(400, 'INVALID_REQUEST', `invalid ${err.field}: ${err.problem}`, { errors: [{ path: err.field, message: err.problem }] });
  }
  if (err.validation) {
    const where = err.validationContext === 'querystring' ? 'query string' : err.validationContext ?? 'request';
    const errors = schemaIssues(err.validation);
    return apiError(400, 'INVALID_REQUEST', `invalid ${where}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError(413, 'BODY_TOO_LARGE', err.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return JSON_ONLY();
    case 'FST_ERR_BAD_URL':
      return apiError(400, 'BAD_URL', 'the path is not valid percent-encoded UTF-8 (encode names with encodeURIComponent)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError(400, 'INVALID_JSON', 'the body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return apiError(400, 'INVALID_JSON', `the body is not valid JSON: ${err.message}`);
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return apiError(400, 'INVALID_JSON', `the body is not valid JSON: ${err.message}`);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return apiError(err.statusCode, err.code ?? 'BAD_REQUEST', err.message);
  log.error({ err }, 'internal error');
  return apiError(500, 'INTERNAL_ERROR', 'internal error; the service log has the details');
}

/**
 * The detour HTTP service on one graph and one store: the token endpoint, the Restriction Zone
 * API and the Trip API, with the OpenAPI reference at /docs and GET /health. Call ready() or
 * listen(); close() also stops the zone worker (the store stays open: its owner closes it).
 */
export async function createService(options: ServiceOptions): Promise<FastifyInstance> {
  const now = options.now ?? Date.now;
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  if (!Number.isInteger(tokenLifetimeSeconds) || tokenLifetimeSeconds < 2 || tokenLifetimeSeconds > 86_400) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `the token lifetime must be whole seconds from 2 to 86400, got ${tokenLifetimeSeconds}`);
  }
  const app = Fastify({
    logger: redactingLogger(options.logger ?? false),
    logController: new AccessLog(),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // A hop count becomes a function: fastify's typings take no number.
    trustProxy: typeof options.trustProxy === 'number' ? ((_address: string, hop: number) => hop < (options.trustProxy as number)) : (options.trustProxy ?? false),
    // Percent-encoded zone names of up to 100 characters can be 1,200 characters long.
    routerOptions: { maxParamLength: 2048 },
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: true, allowUnionTypes: true } },
    // A path fastify cannot decode (bad percent-encoding) gets our error shape, not fastify's.
    frameworkErrors: (err, request, reply) => {
      const http = toHttpError(err as FastifyError, request.log, request);
      void (reply as FastifyReply).code(http.statusCode).type('application/json; charset=utf-8').serializer(JSON.stringify).send(http.body);
    },
  });
  // The event loop routes nothing: it snaps stops only (the snap index), to check an asynchronous trip before queueing it.
  const snapIndex = SnapIndex.for(options.graph);
  // Trips run on threads; each calculated zone is sent there once, and its cells customized there
  // between trips, not by its first trip.
  // Matrices run on a worker thread (the event loop keeps answering), with the vehicle classes the trip threads make.
  // A service thread's matrices run on its process's matrix worker, which takes the classes from the process.
  const ownMatrices = options.serviceThread ? undefined : new MatrixRunner(options.graph, {
    onVehicleError: (err) => app.log.warn({ err }, 'the matrix worker could not take a vehicle class (its matrices stay exact, slower)'),
  });
  const matrices: Matrices = options.serviceThread?.matrices ?? ownMatrices!;
  const tripThreads = new TripThreads(options.graph, {
    threads: options.trips?.threads,
    vehicles: options.trips?.vehicles,
    adoptVehicles: options.trips?.adoptVehicles,
    shared: options.serviceThread?.shared,
    onVehicleClass: (part) => {
      ownMatrices?.adoptVehicleClass(part);
      options.trips?.onVehicleClass?.(part);
    },
    onVehicleError: (err) => app.log.warn({ err }, 'could not make a vehicle class\'s hierarchies (its routes stay exact, slower)'),
    onZoneError: (err) => app.log.warn({ err }, 'could not customize the routing cells around a zone'),
  });
  const zones = new ZoneCache(options.graph, {
    ...options.zoneCalculator, ...(options.serviceThread && { remote: options.serviceThread.zones }),
    onCalculated: (zone) => tripThreads.addZone(zone), onDropped: (zone) => tripThreads.forgetZone(zone),
  });
  app.decorate('tripThreads', tripThreads);
  app.decorate('adoptVehicleClass', (part: VehicleClassPart) => {
    tripThreads.adoptVehicleClass(part);
    ownMatrices?.adoptVehicleClass(part);
  });
  app.decorate('zoneCache', zones);
  app.decorate('zoneWarmUp', { running: false, done: 0, total: 0 });
  app.decorate('store', options.store);
  const sweepMillis = options.zoneSweepMillis ?? 10 * 60_000;
  const sweep = setInterval(() => {
    sweepZoneCache(options.store, zones, sweepMillis).catch((err: unknown) => app.log.warn({ err }, 'could not check the cached zones against the store'));
  }, sweepMillis).unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await zones.close();
  });

  for (const schema of [apiErrorSchema, apigeeFaultSchema, oauthErrorSchema, zoneResponseSchema]) app.addSchema(schema);

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const http = toHttpError(err, app.log, request);
    // Error bodies are sent as they are, not through a route's response schema.
    return reply.code(http.statusCode).headers(http.headers).type('application/json; charset=utf-8').serializer(JSON.stringify).send(http.body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ code: 'NOT_FOUND', message: `no route for ${request.method} ${request.url.split('?')[0]}` });
  });

  // Only JSON bodies: text/plain (parsed by fastify by default) and every other type get 415. An
  // empty body is no body whatever its type, so DELETE or GET sent with a Content-Type works; a
  // POST or PUT with an empty JSON body still gets INVALID_JSON (the default parser's error).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const text = utf8Body(body as Buffer);
    if (text === undefined) return done(notUtf8(), undefined);
    if (text === '' && (request.method === 'DELETE' || request.method === 'GET')) return done(null, undefined);
    jsonParser(request, text, done);
  });
  app.addContentTypeParser('*', (request, _payload, done) => {
    const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
    if (request.method === 'DELETE' && (length === '0' || (length === undefined && chunked === undefined))) return done(null, undefined);
    done(JSON_ONLY(), undefined);
  });

  // One middleware for the process: made per request, helmet would parse the CSP directives each time.
  const securityHeaders = helmet({
    // Swagger UI at /docs loads only its own scripts and styles (no inline scripts), so the
    // default policy fits it; API answers are JSON, which the policy does not affect.
    // Answers may be read cross-origin when CORS is configured.
    crossOriginResourcePolicy: { policy: options.corsOrigins && options.corsOrigins.length > 0 ? 'cross-origin' : 'same-origin' },
    // Plain HTTP on loopback is the default deployment: HSTS is for the TLS proxy in front, and
    // upgrade-insecure-requests would send /docs' own scripts to an https:// that is not there.
    strictTransportSecurity: false,
    // The map page: MapLibre runs its workers from blob: URLs and draws tiles from blob:/data:
    // images; a configured basemap's host may serve images and be fetched.
    contentSecurityPolicy: {
      directives: {
        upgradeInsecureRequests: null,
        workerSrc: ["'self'", 'blob:'],
        childSrc: ["'self'", 'blob:'],
        imgSrc: ["'self'", 'data:', 'blob:', ...basemapOrigin(options.basemap)],
        connectSrc: ["'self'", ...basemapOrigin(options.basemap)],
      },
    },
  });
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)));
  if (options.corsOrigins && options.corsOrigins.length > 0) {
    await app.register(cors, { origin: options.corsOrigins.includes('*') ? '*' : options.corsOrigins, allowedHeaders: ['Authorization', 'clientId', 'Content-Type'], exposedHeaders: ['X-Total-Count', 'Link'] });
  }
  if (options.docs !== false) {
    await app.register(swagger, {
      openapi: {
        info: { title: 'detour', version: '0.1.0', description: 'Routing around restriction zones: Maplink-compatible token, Restriction Zone, Trip and Matrix APIs.' },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'access_token from POST /oauth/client_credential/accesstoken' },
            clientId: { type: 'apiKey', in: 'header', name: 'clientId', description: 'The client id the token was issued to (required with the token)' },
          },
        },
      },
      // Shared schemas keep their names (ApiError, RestrictionZone, ...) instead of def-0, def-1.
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
  }

  app.addHook('onRoute', documentRoute);
  const backend = limitBackend(options);
  const maxConcurrentVerifications = options.maxConcurrentVerifications ?? Math.max(2, Math.floor(availableParallelism() / 2));
  const scryptThreads = options.serviceThread ? undefined : new ScryptThreads(Math.min(maxConcurrentVerifications, availableParallelism()));
  app.addHook('onClose', async () => scryptThreads?.close());
  await app.register(tokenRoutes, {
    store: options.store,
    now,
    tokenLifetimeSeconds,
    loginLimits: await LoginLimits.create({ ...DEFAULT_FAILED_LOGIN_LIMITS, ...options.failedLogins }, backend),
    issuance: await IssuanceLimit.create({ ...DEFAULT_TOKEN_ISSUANCE_LIMIT, ...options.tokenIssuance }, backend),
    maxConcurrentVerifications,
    derive: options.serviceThread?.scrypt ?? scryptThreads!.derive,
    verified: new VerifiedSecrets((options.verificationCacheSeconds ?? 300) * 1000),
    onVerification: options.onSecretVerification,
  });
  await app.register(zoneRoutes, { prefix: '/restriction/v1/restrictionZones', store: options.store, zones, now, bodyLimit: options.zoneBodyLimit ?? 8 * 1024 * 1024, quota: { ...DEFAULT_ZONE_QUOTA, ...options.zoneQuota } });
  // Matrices and asynchronous trips run as jobs any instance on the same database may take up.
  const solvers = {} as Record<JobKind, JobSolver>;
  const jobs = new Jobs({ store: options.store, solvers, now, log: app.log, ...options.matrix });
  app.addHook('onReady', async () => {
    if (options.matrix?.prepare) ownMatrices?.start();
    if (options.trips?.prepare) tripThreads.start();
    jobs.start();
  });
  app.addHook('onClose', async () => {
    await jobs.stop();
    await ownMatrices?.close();
    await tripThreads.close();
  });
  const callbackHosts = options.matrix?.callbackHosts?.map((h) => h.toLowerCase());
  const zoneWaitMillis = options.zoneWaitMillis ?? 30_000;
  await app.register(tripRoutes, {
    prefix: '/trip', store: options.store, zones, stops: snapIndex, threads: tripThreads, maxQueuedTrips: options.trips?.maxQueued ?? 256 * tripThreads.threads, jobs, now, zoneWaitMillis, callbackHosts,
    retentionMillis: options.trips?.retentionMillis ?? TRIP_RETENTION_DAYS.default * 24 * 3600_000,
    setSolver: (solver) => { solvers.trip = solver; },
  });
  await app.register(matrixRoutes, {
    prefix: '/matrix/v1', store: options.store, zones, runner: matrices, jobs, now, zoneWaitMillis, callbackHosts,
    retentionMillis: options.matrix?.retentionMillis ?? 7 * 24 * 3600_000,
    setSolver: (solver) => { solvers.matrix = solver; },
  });

  if (options.mapPage !== false) await app.register(mapRoutes, { graph: options.graph, basemap: options.basemap });

  app.get('/health', { schema: { tags: ['Operations'], summary: 'Liveness and readiness' } }, async (_request, reply) => {
    const graph = { nodes: options.graph.nodeCount, edges: options.graph.edgeCount, roads: options.graph.roadCount };
    try {
      await options.store.ping();
    } catch {
      return reply.code(503).send({ status: 'unavailable', store: options.store.kind, graph });
    }
    const warmUp = app.zoneWarmUp;
    return { status: 'ok', store: options.store.kind, graph, zonesCalculated: zones.size, zonesWarmUp: warmUp.running ? `${warmUp.done}/${warmUp.total}` : 'done', zonesPrepared: tripThreads.zonesPrepared, zonesToPrepare: tripThreads.zonesToPrepare,
      tripThreads: `${tripThreads.started}/${tripThreads.threads}`, tripsUnderWay: tripThreads.trips,
      vehicleClasses: `${tripThreads.vehicleClassesAdopted}/${options.trips?.vehicles?.length ?? 0}`,
      matrixVehicleClasses: `${await matrices.vehicleClassesReady()}/${options.trips?.vehicles?.length ?? 0}` };
  });
  return app;
}

/** The backend of the login limits: the option, else PostgreSQL, a cluster worker's primary, or memory. */
function limitBackend(options: ServiceOptions): LimitBackend {
  const kind = options.limitBackend ?? (options.store instanceof PostgresStore ? 'postgres' : cluster.isWorker ? 'cluster' : options.serviceThread ? 'thread' : 'memory');
  if (kind === 'thread') {
    if (!options.serviceThread) throw new DetourError(ErrorCode.INVALID_INPUT, 'login limits on the main thread need a service thread\'s port');
    return { kind, limits: new LimitsOverPort(options.serviceThread.limits) };
  }
  if (kind !== 'postgres') return { kind };
  if (!(options.store instanceof PostgresStore)) throw new DetourError(ErrorCode.INVALID_INPUT, 'login limits on PostgreSQL need the PostgreSQL store');
  return { kind, pool: options.store.pool };
}

/**
 * The request as logged: the path, and the query string with every value replaced, since
 * clients may put credentials there (`?client_secret=...`); never headers or bodies.
 */
export function redactedRequest(request: FastifyRequest): Record<string, unknown> {
  const url = request.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : `?${url.slice(q + 1).split('&').map((pair) => `${pair.split('=')[0].slice(0, 64)}=[redacted]`).join('&')}`;
  return { method: request.method, url: path + query, host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}

/**
 * Fastify's per-request log lines, as an access log writes them: one line per request once it is
 * answered, with the request (redactedRequest), its status and how long it took. Fastify's own
 * writes a second line as each request arrives, serialised and written on the event loop too.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** The logger option with the request serializer that redacts query strings (always: it cannot be replaced). */
function redactingLogger(logger: NonNullable<ServiceOptions['logger']>): FastifyServerOptions['logger'] {
  if (logger === false) return false;
  const base = logger === true ? {} : logger;
  return { ...base, serializers: { ...base.serializers, req: redactedRequest as never } };
}

import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Store, StoredZone } from '../store/Store.js';
import { storedZone, validateZoneAsync, ZoneValidationError } from '../zones/validateZone.js';
import type { ZoneInput } from '../zones/Zone.js';
import type { ZoneCache, ZoneSource } from '../zones/ZoneCache.js';
import { authenticate } from './authenticate.js';
import { apiError, schemaIssues } from './httpErrors.js';
import { authHeadersSchema, zoneBodySchema, zoneNameParamsSchema } from './schemas.js';

export interface ZoneRoutesOptions {
  store: Store;
  zones: ZoneCache;
  now: () => number;
  /** Largest zone body in bytes. */
  bodyLimit: number;
}

/** The cache entry of a stored zone: per client and name, recalculated when its revision changes. */
export function zoneSource(stored: StoredZone): ZoneSource {
  return {
    key: `${stored.clientId}\n${stored.name}`,
    revision: stored.revision,
    name: stored.name,
    // Validated when stored: read back without the shape checks (O(vertices), not O(n log n)).
    zone: () => storedZone(stored.body),
  };
}

/**
 * Validates a zone body with the zone rules (every problem at once, with JSON paths); the
 * schema's own findings come second, for what the rules do not cover. Returns the body to store.
 */
async function checkedZoneBody(request: FastifyRequest): Promise<ZoneInput> {
  try {
    // Time-sliced: a 100,000-vertex zone does not hold up other requests while it is checked.
    await validateZoneAsync(request.body);
  } catch (err) {
    if (err instanceof ZoneValidationError) throw apiError(400, err.code, 'invalid restriction zone', { errors: err.issues });
    throw err;
  }
  if (request.validationError) {
    const errors = schemaIssues((request.validationError as FastifyError).validation ?? []);
    throw apiError(400, 'INVALID_ZONE', 'invalid restriction zone', { errors });
  }
  const body = request.body as ZoneInput;
  // Keep what the API defines, as the client sent it (ring open or closed), and nothing else.
  return {
    name: body.name,
    geometries: body.geometries.map((g) => ({
      name: g.name ?? '',
      vertices: g.vertices.map((v) => ({ latitude: v.latitude, longitude: v.longitude })),
    })),
  };
}

const notFound = (name: string) => apiError(404, 'ZONE_NOT_FOUND', `no restriction zone named ${JSON.stringify(name)}`, { zones: [name] });

/** The Restriction Zone API: /restriction/v1/restrictionZones[/{name}]; zones are private per client. */
export async function zoneRoutes(app: FastifyInstance, options: ZoneRoutesOptions): Promise<void> {
  const { store, zones, now } = options;
  app.addHook('onRequest', async (request) => {
    await authenticate(request, store, 'Restriction Zone', now());
  });

  const view = (stored: StoredZone) => ({ ...stored.body, status: zones.current(zoneSource(stored)).status });
  const common = { tags: ['Restriction Zone'], headers: authHeadersSchema, security: [{ bearer: [] }] };
  const errors = { 400: { $ref: 'ApiError#' }, 401: { $ref: 'ApigeeFault#' }, 403: {}, 404: { $ref: 'ApiError#' } };
  const zoneBodyRoute = { bodyLimit: options.bodyLimit, attachValidation: true };

  app.post(
    '',
    { ...zoneBodyRoute, schema: { ...common, summary: 'Insert a zone and calculate its roads', body: zoneBodySchema, response: { 201: { $ref: 'RestrictionZone#' }, 409: { $ref: 'ApiError#' }, ...errors } } },
    async (request, reply) => {
      const body = await checkedZoneBody(request);
      const at = now();
      const stored: StoredZone = { clientId: request.caller!.clientId, name: body.name, body, revision: randomUUID(), createdAt: at, updatedAt: at };
      if (!(await store.insertZone(stored))) {
        throw apiError(409, 'ZONE_EXISTS', `a restriction zone named ${JSON.stringify(body.name)} already exists; PUT /restriction/v1/restrictionZones/{name} replaces it`);
      }
      return reply.code(201).send(view(stored));
    },
  );

  app.get('', { schema: { ...common, summary: "The client's zones", response: { 200: { type: 'array', items: { $ref: 'RestrictionZone#' } }, ...errors } } }, async (request) => {
    return (await store.listZones(request.caller!.clientId)).map(view);
  });

  app.get<{ Params: { name: string } }>(
    '/:name',
    { schema: { ...common, summary: 'One zone with its status', params: zoneNameParamsSchema, response: { 200: { $ref: 'RestrictionZone#' }, ...errors } } },
    async (request) => {
      const stored = await store.getZone(request.caller!.clientId, request.params.name);
      if (!stored) throw notFound(request.params.name);
      return view(stored);
    },
  );

  app.put<{ Params: { name: string } }>(
    '/:name',
    { ...zoneBodyRoute, schema: { ...common, summary: 'Replace a zone', params: zoneNameParamsSchema, body: zoneBodySchema, response: { 200: { $ref: 'RestrictionZone#' }, ...errors } } },
    async (request) => {
      const { name } = request.params;
      const body = await checkedZoneBody(request);
      if (body.name !== name) {
        throw apiError(400, 'INVALID_ZONE', 'invalid restriction zone', { errors: [{ path: 'name', message: `must be the name in the path (${JSON.stringify(name)}), got ${JSON.stringify(body.name)}` }] });
      }
      const stored: StoredZone = { clientId: request.caller!.clientId, name, body, revision: randomUUID(), createdAt: 0, updatedAt: now() };
      if (!(await store.replaceZone(stored))) throw notFound(name);
      return view(stored);
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/:name',
    { schema: { ...common, summary: 'Delete a zone', params: zoneNameParamsSchema, response: { 200: { $ref: 'RestrictionZone#' }, ...errors } } },
    async (request) => {
      const stored = await store.getZone(request.caller!.clientId, request.params.name);
      if (!stored || !(await store.deleteZone(stored.clientId, stored.name))) throw notFound(request.params.name);
      const deleted = view(stored);
      zones.forget(zoneSource(stored).key);
      return deleted;
    },
  );
}

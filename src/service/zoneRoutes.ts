import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JsonText } from '../structures/sharedBuffer.js';
import { storedZoneFromJson, zoneBodyJson, ZoneQuotaExceeded, type Store, type StoredZone, type ZoneQuota } from '../store/Store.js';
import { storedZone, unstorableTextProblem, ZoneValidationError } from '../zones/validateZone.js';
import type { ZoneStatus } from '../zones/Zone.js';
import type { ZoneCache, ZoneSource } from '../zones/ZoneCache.js';
import { authenticate } from './authenticate.js';
import { apiError, notUtf8 } from './httpErrors.js';
import { ANSWER_SLICE, jsonSlices, readBody, sendJsonText, utf8BodyText } from './jsonText.js';
import { authHeadersSchema, zoneBodySchema, zoneListQuerySchema, zoneNameParamsSchema, ZONE_PAGE } from './schemas.js';

export interface ZoneRoutesOptions {
  store: Store;
  zones: ZoneCache;
  now: () => number;
  /** Largest zone body in bytes. */
  bodyLimit: number;
  /** Per-client limits on inserts and replacements. */
  quota: ZoneQuota;
}

/**
 * Resolves on the next turn of the event loop, after its timers and its poll for I/O, so requests
 * waiting behind this one are served: an immediate set from an I/O callback runs before either,
 * the one it sets after both.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** The zone cache's key of a client's zone. */
export const zoneKey = (clientId: string, name: string) => `${clientId}\n${name}`;

/** The cache entry of a stored zone: per client and name, recalculated when its revision changes. */
export function zoneSource(stored: StoredZone): ZoneSource {
  return {
    key: zoneKey(stored.clientId, stored.name),
    owner: stored.clientId,
    revision: stored.revision,
    name: stored.name,
    // Validated when stored: read back without the shape checks (O(vertices), not O(n log n)).
    zone: () => storedZone(stored.body),
    json: stored.bodyJson,
  };
}

/**
 * The zone body of a POST or PUT, sent as JSON text (the zone routes keep bodies as text, a large
 * one as its UTF-8 bytes): parsed, NFC-named, validated with every problem at once (JSON paths)
 * and reduced to what the API defines. A large body is all done on the zone worker thread, which
 * reads its bytes where they are: the event loop never decodes or copies it.
 */
async function checkedZoneBody(request: FastifyRequest, zones: ZoneCache): Promise<{ name: string; json: JsonText; vertexCount: number }> {
  const body = request.body;
  // No body at all (no Content-Type either) reaches no parser.
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) throw apiError(400, 'INVALID_JSON', 'the body is empty; send a JSON object');
  const checked = await zones.calculator.checkJson(body, request.caller?.clientId);
  if (checked.ok) return checked;
  if ('notJson' in checked) throw apiError(400, 'INVALID_JSON', `the body is not valid JSON: ${checked.notJson}`);
  throw apiError(400, new ZoneValidationError(checked.issues).code, 'invalid restriction zone', { errors: checked.issues });
}

/** The UTF-8 bytes of JSON whitespace. */
const isJsonSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * A zone as the API answers it, {name, geometries, status}, as the parts of its JSON text: the
 * stored body text ({"name":...,"geometries":[...]}) without its closing brace, then the status. A
 * large zone is not parsed, serialised, decoded or copied again.
 */
function zoneAnswerJson(stored: StoredZone, status: ZoneStatus): [JsonText, string] {
  const statusPart = `,"status":${JSON.stringify(status)}}`;
  const bytes = stored.bodyJson;
  if (bytes instanceof Uint8Array) {
    let end = bytes.length;
    while (end > 0 && isJsonSpace(bytes[end - 1])) end--;
    return [bytes.subarray(0, end - 1), statusPart];
  }
  const body = zoneBodyJson(stored).trimEnd();
  return [body.slice(0, -1), statusPart];
}

const notFound = (name: string) => apiError(404, 'ZONE_NOT_FOUND', `no restriction zone named ${JSON.stringify(name)}`, { zones: [name] });

/**
 * The zone name of the path, NFC-normalised as stored names are; 400 for what no store can hold
 * (NUL, lone surrogates), before any query.
 */
function nameParam(request: FastifyRequest<{ Params: { name: string } }>): string {
  const problem = unstorableTextProblem(request.params.name);
  if (problem) throw apiError(400, 'INVALID_REQUEST', `invalid zone name in the path: ${problem}`, { errors: [{ path: 'name', message: problem }] });
  return request.params.name.normalize('NFC');
}

/**
 * The zone of the path: by its NFC name, else (a zone stored before names were normalised, whose
 * NFC twin exists; see nfcRenames) by the name exactly as sent, so it can still be read and deleted.
 */
async function zoneOfPath(store: Store, clientId: string, request: FastifyRequest<{ Params: { name: string } }>): Promise<StoredZone | undefined> {
  const name = nameParam(request);
  return (await store.getZone(clientId, name)) ?? (name !== request.params.name ? store.getZone(clientId, request.params.name) : undefined);
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The 409 of a write over the client's quota, with the limits and the usage before the write. */
function quotaError(err: ZoneQuotaExceeded) {
  const { quota, usage, zoneVertices } = err;
  const message =
    err.limit === 'zones'
      ? `zone quota exceeded: this client stores ${fmt(usage.zones)} zones, the most allowed is ${fmt(quota.zones)}; delete zones first`
      : `zone quota exceeded: this zone's ${fmt(zoneVertices)} vertices would bring this client's zones to ${fmt(usage.vertices + zoneVertices)} vertices, over the limit of ${fmt(quota.vertices)}`;
  return apiError(409, 'ZONE_QUOTA_EXCEEDED', message, {
    quota: { limit: err.limit, zones: { used: usage.zones, max: quota.zones }, vertices: { used: usage.vertices, max: quota.vertices } },
  });
}

/** Runs a zone write, turning a broken quota into its 409. */
async function withinQuota<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof ZoneQuotaExceeded) throw quotaError(err);
    throw err;
  }
}

type ZoneField = 'name' | 'geometries' | 'status';
const ZONE_FIELDS: readonly ZoneField[] = ['name', 'geometries', 'status'];

/** limit, offset and fields of the zone list, each checked with a message naming it. */
function listQuery(query: { limit?: string; offset?: string; fields?: string }): { limit: number; offset: number; fields: ZoneField[] } {
  const bad = (path: string, message: string) => apiError(400, 'INVALID_REQUEST', `invalid query string: ${path} ${message}`, { errors: [{ path, message }] });
  const whole = (value: string | undefined, path: string, min: number, max: number, fallback: number) => {
    if (value === undefined) return fallback;
    const n = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) throw bad(path, `must be a whole number from ${min} to ${fmt(max)}, got ${JSON.stringify(value.slice(0, 20))}`);
    return n;
  };
  const limit = whole(query.limit, 'limit', 1, ZONE_PAGE.max, ZONE_PAGE.default);
  const offset = whole(query.offset, 'offset', 0, ZONE_PAGE.maxOffset, 0);
  let fields: ZoneField[] = [...ZONE_FIELDS];
  if (query.fields !== undefined) {
    const asked = query.fields.split(',').map((f) => f.trim());
    const unknown = asked.filter((f) => !(ZONE_FIELDS as readonly string[]).includes(f));
    if (unknown.length > 0 || query.fields === '') throw bad('fields', `must be a comma-separated list of ${ZONE_FIELDS.join(', ')}, got ${JSON.stringify(query.fields.slice(0, 60))}`);
    fields = ZONE_FIELDS.filter((f) => asked.includes(f));
  }
  return { limit, offset, fields };
}

/** The Restriction Zone API: /restriction/v1/restrictionZones[/{name}]; zones are private per client. */
export async function zoneRoutes(app: FastifyInstance, options: ZoneRoutesOptions): Promise<void> {
  const { store, zones, now } = options;
  app.addHook('onRequest', async (request) => {
    await authenticate(request, store, 'Restriction Zone', now());
  });

  // Zone bodies stay JSON text here, a large one the UTF-8 bytes it came in: checkedZoneBody parses
  // and validates them (on the zone worker when large) instead of fastify's parser and schema on
  // the event loop. Empty bodies are as elsewhere.
  const emptyBodyParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readBody(payload, request.headers['content-length'], request.routeOptions.bodyLimit, (err, bytes) => {
      if (err) return done(err, undefined);
      const body = utf8BodyText(bytes!);
      if (body === undefined) return done(notUtf8(), undefined);
      if (body === '') {
        if (request.method === 'DELETE' || request.method === 'GET') return done(null, undefined);
        return emptyBodyParser(request, body, done);
      }
      done(null, body);
    });
  });
  // The body schema stays for the OpenAPI document; the text body fails it by design (ignored).
  const schemaProblem = (request: FastifyRequest) => {
    const err = request.validationError as (FastifyError & { validationContext?: string }) | undefined;
    if (err && err.validationContext !== 'body') throw err;
  };

  const { quota } = options;
  /** The zone's status, starting its calculation when this revision is new here. */
  const statusOf = (stored: StoredZone) => zones.current(zoneSource(stored)).status;
  const answer = async (reply: FastifyReply, stored: StoredZone) => {
    const status = statusOf(stored);
    // A new revision's calculation posts its text to the zone worker: a large zone's answer goes on a later turn.
    if ((stored.bodyJson?.length ?? 0) > ANSWER_SLICE) await nextTurn();
    return sendJsonText(reply, zoneAnswerJson(stored, status));
  };
  const common = { tags: ['Restriction Zone'], headers: authHeadersSchema, security: [{ bearer: [] }] };
  const errors = { 400: { $ref: 'ApiError#' }, 401: { $ref: 'ApigeeFault#' }, 403: {}, 404: { $ref: 'ApiError#' } };
  const zoneBodyRoute = { bodyLimit: options.bodyLimit, attachValidation: true };

  app.post(
    '',
    { ...zoneBodyRoute, schema: { ...common, summary: 'Insert a zone and calculate its roads', body: zoneBodySchema, response: { 201: { $ref: 'RestrictionZone#' }, 409: { $ref: 'ApiError#' }, ...errors } } },
    async (request, reply) => {
      schemaProblem(request);
      const body = await checkedZoneBody(request, zones);
      const at = now();
      const stored = storedZoneFromJson({ clientId: request.caller!.clientId, name: body.name, vertexCount: body.vertexCount, revision: randomUUID(), createdAt: at, updatedAt: at }, body.json);
      if (!(await withinQuota(store.insertZone(stored, quota)))) {
        throw apiError(409, 'ZONE_EXISTS', `a restriction zone named ${JSON.stringify(body.name)} already exists; PUT /restriction/v1/restrictionZones/{name} replaces it`);
      }
      // A large zone's store write and answer are each a few milliseconds: let other requests
      // run between them.
      await nextTurn();
      return answer(reply.code(201), stored);
    },
  );

  app.get<{ Querystring: { limit?: string; offset?: string; fields?: string } }>(
    '',
    {
      schema: {
        ...common,
        summary: "The client's zones, a page at a time (oldest first); X-Total-Count and Link rel=\"next\" tell the rest",
        querystring: zoneListQuerySchema,
        response: {
          200: {
            type: 'array',
            items: { $ref: 'RestrictionZone#' },
            headers: {
              'X-Total-Count': { type: 'integer', description: "The client's zones in all." },
              Link: { type: 'string', description: 'The next page, `<...>; rel="next"`; absent on the last page.' },
            },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const clientId = request.caller!.clientId;
      const { limit, offset, fields } = listQuery(request.query);
      const total = (await store.zoneUsage(clientId)).zones;
      reply.header('X-Total-Count', String(total));
      if (offset + limit < total) {
        const next = new URLSearchParams({ limit: String(limit), offset: String(offset + limit) });
        if (request.query.fields !== undefined) next.set('fields', fields.join(','));
        reply.header('Link', `<${request.url.split('?')[0]}?${next}>; rel="next"`);
      }
      const everything = fields.length === ZONE_FIELDS.length;
      const project = (stored: StoredZone): JsonText[] => {
        if (everything) return zoneAnswerJson(stored, statusOf(stored));
        const out: Record<string, unknown> = {};
        for (const f of fields) out[f] = f === 'name' ? stored.name : f === 'geometries' ? stored.body.geometries : statusOf(stored);
        return [JSON.stringify(out)];
      };
      // The page is read ZONE_PAGE.batch zones at a time and written as it goes, so memory holds
      // a few zones, not the page (a zone may have 100,000 vertices); a zone's text in slices.
      async function* pageJson(): AsyncGenerator<string | Buffer> {
        yield '[';
        let first = true;
        for (let done = 0; done < limit; ) {
          const want = Math.min(ZONE_PAGE.batch, limit - done);
          const rows = await store.listZones(clientId, { offset: offset + done, limit: want });
          for (const stored of rows) {
            if (!first) yield ',';
            yield* jsonSlices(project(stored));
            first = false;
          }
          done += rows.length;
          if (rows.length < want) break;
        }
        yield ']';
      }
      return reply.type('application/json; charset=utf-8').send(Readable.from(pageJson(), { objectMode: false, highWaterMark: 64 * 1024 }));
    },
  );

  app.get<{ Params: { name: string } }>(
    '/:name',
    { schema: { ...common, summary: 'One zone with its status', params: zoneNameParamsSchema, response: { 200: { $ref: 'RestrictionZone#' }, ...errors } } },
    async (request, reply) => {
      const stored = await zoneOfPath(store, request.caller!.clientId, request);
      if (!stored) throw notFound(nameParam(request));
      return answer(reply, stored);
    },
  );

  app.put<{ Params: { name: string } }>(
    '/:name',
    { ...zoneBodyRoute, schema: { ...common, summary: 'Replace a zone', params: zoneNameParamsSchema, body: zoneBodySchema, response: { 200: { $ref: 'RestrictionZone#' }, 409: { $ref: 'ApiError#' }, ...errors } } },
    async (request, reply) => {
      schemaProblem(request);
      const name = nameParam(request);
      const body = await checkedZoneBody(request, zones);
      if (body.name !== name) {
        throw apiError(400, 'INVALID_ZONE', 'invalid restriction zone', { errors: [{ path: 'name', message: `must be the name in the path (${JSON.stringify(name)}), got ${JSON.stringify(body.name)}` }] });
      }
      const stored = storedZoneFromJson({ clientId: request.caller!.clientId, name, vertexCount: body.vertexCount, revision: randomUUID(), createdAt: 0, updatedAt: now() }, body.json);
      if (!(await withinQuota(store.replaceZone(stored, quota)))) throw notFound(name);
      await nextTurn();
      return answer(reply, stored);
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/:name',
    { schema: { ...common, summary: 'Delete a zone', params: zoneNameParamsSchema, response: { 200: { $ref: 'RestrictionZone#' }, ...errors } } },
    async (request, reply) => {
      const stored = await zoneOfPath(store, request.caller!.clientId, request);
      if (!stored || !(await store.deleteZone(stored.clientId, stored.name))) throw notFound(nameParam(request));
      const deleted = zoneAnswerJson(stored, statusOf(stored));
      zones.forget(zoneSource(stored).key);
      return sendJsonText(reply, deleted);
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { PointsMode } from '../geo/pointEncodings.js';
import type { Router } from '../routing/Router.js';
import type { Store } from '../store/Store.js';
import { calculateTrip, type TripRequest } from '../trip/calculateTrip.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { unstorableTextProblem } from '../zones/validateZone.js';
import type { ZoneCache } from '../zones/ZoneCache.js';
import { authenticate } from './authenticate.js';
import { apiError } from './httpErrors.js';
import { authHeadersSchema, tripBodySchema, tripQuerySchema, tripResponseSchema } from './schemas.js';
import { zoneSource } from './zoneRoutes.js';

export interface TripRoutesOptions {
  store: Store;
  zones: ZoneCache;
  router: Router;
  now: () => number;
  /** How long a trip waits for a zone still in calculation before answering ZONE_NOT_READY (ms). */
  zoneWaitMillis: number;
}

/** The Trip API: POST /trip/v2/calculations, routes around the caller's stored zones. */
export async function tripRoutes(app: FastifyInstance, options: TripRoutesOptions): Promise<void> {
  const { store, zones, router, now } = options;
  app.addHook('onRequest', async (request) => {
    await authenticate(request, store, 'Trip', now());
  });

  /**
   * The zone names of a trip, NFC-normalised as stored names are; 400 naming each entry no store
   * can hold (NUL, lone surrogates), before any query.
   */
  function zoneNames(names: string[]): string[] {
    const errors: Array<{ path: string; message: string }> = [];
    names.forEach((name, i) => {
      const problem = unstorableTextProblem(name);
      if (problem) errors.push({ path: `restrictionZones[${i}]`, message: problem });
    });
    if (errors.length > 0) throw apiError(400, 'INVALID_REQUEST', `invalid body: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
    return names.map((name) => name.normalize('NFC'));
  }

  /**
   * The caller's zones by name, calculated for this graph. Read from the store on every trip, so a
   * zone changed through another instance is used at once (its new revision is recalculated).
   */
  async function resolveZones(clientId: string, names: string[]): Promise<CalculatedZone[]> {
    const wanted = [...new Set(names)];
    const stored = await store.getZones(clientId, wanted);
    const missing = wanted.filter((n) => !stored.some((z) => z.name === n));
    if (missing.length > 0) {
      throw apiError(400, 'ZONE_NOT_FOUND', `unknown restriction zone${missing.length > 1 ? 's' : ''}: ${missing.map((n) => JSON.stringify(n)).join(', ')}`, { zones: missing });
    }
    return Promise.all(
      stored.map(async (z) => {
        const source = zoneSource(z);
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<CalculatedZone>((resolve) => {
          timer = setTimeout(() => resolve(zones.current(source)), options.zoneWaitMillis);
        });
        try {
          return await Promise.race([zones.settled(source), timeout]);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }

  app.post<{ Body: TripRequest; Querystring: { pointsMode?: PointsMode } }>(
    '/calculations',
    {
      schema: {
        tags: ['Trip'],
        summary: 'Calculate a trip through ordered points, avoiding restriction zones',
        headers: authHeadersSchema,
        security: [{ bearer: [] }],
        querystring: tripQuerySchema,
        body: tripBodySchema,
        response: { 200: tripResponseSchema },
      },
    },
    async (request) => {
      const clientId = request.caller!.clientId;
      const zoneList = await resolveZones(clientId, zoneNames(request.body.restrictionZones ?? []));
      return calculateTrip(request.body, { router, clientId, zones: zoneList, pointsMode: request.query.pointsMode, now: new Date(now()) });
    },
  );
}

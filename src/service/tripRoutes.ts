import type { FastifyInstance } from 'fastify';
import type { PointsMode } from '../geo/pointEncodings.js';
import type { Router } from '../routing/Router.js';
import type { Store } from '../store/Store.js';
import { calculateTrip, type TripRequest } from '../trip/calculateTrip.js';
import type { ZoneCache } from '../zones/ZoneCache.js';
import { authenticate } from './authenticate.js';
import { authHeadersSchema, tripBodySchema, tripQuerySchema, tripResponseSchema } from './schemas.js';
import { resolveZones, zoneNames } from './resolveZones.js';

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
      const zoneList = await resolveZones(store, zones, clientId, zoneNames(request.body.restrictionZones ?? []), options.zoneWaitMillis);
      return calculateTrip(request.body, { router, clientId, zones: zoneList, pointsMode: request.query.pointsMode, now: new Date(now()) });
    },
  );
}

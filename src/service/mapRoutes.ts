import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { DetourError, ErrorCode } from '../errors.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { MAX_TILE_ZOOM, MIN_TILE_ZOOM, RoadTiles } from './roadTiles.js';

/** An optional raster basemap under the roads, for users online (`{z}/{x}/{y}` URL template). */
export interface Basemap {
  url: string;
  attribution: string;
}

export interface MapRoutesOptions {
  graph: RoadGraph;
  basemap?: Basemap;
}

/**
 * The built map page: dist/web beside dist/src when running the build, or from the source tree
 * (tests run src/ with tsx) the build's dist/web. Undefined when it was never built.
 */
function webRoot(): string | undefined {
  for (const candidate of ['../../web/', '../../dist/web/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

/**
 * The map page at `/` (static files), the road network as vector tiles at
 * `/tiles/{z}/{x}/{y}.pbf` (cut on demand from the loaded graph) and `/map/config` (the graph's
 * bounds, the tile zooms, the attribution and the optional basemap). None needs a token: they
 * show the roads every client routes on, never a client's zones.
 */
export async function mapRoutes(app: FastifyInstance, options: MapRoutesOptions): Promise<void> {
  const tiles = new RoadTiles(options.graph);
  const root = webRoot();
  if (root) {
    await app.register(fastifyStatic, { root, prefix: '/', index: 'index.html', wildcard: false, cacheControl: true, maxAge: 3600_000 });
  } else {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.code(404).send({ code: 'NOT_FOUND', message: 'the map page is not built; run npm run build' }));
  }

  app.get('/map/config', { schema: { tags: ['Map'], summary: 'What the map page needs: graph bounds, tile zooms, attribution, basemap' } }, async () => {
    return {
      bounds: tiles.bounds,
      tiles: { url: '/tiles/{z}/{x}/{y}.pbf', minzoom: MIN_TILE_ZOOM, maxzoom: MAX_TILE_ZOOM, layer: 'roads' },
      attribution: options.graph.meta.attribution,
      source: options.graph.meta.source,
      basemap: options.basemap ?? null,
    };
  });

  app.get<{ Params: { z: string; x: string; y: string } }>(
    '/tiles/:z/:x/:y.pbf',
    {
      schema: {
        tags: ['Map'],
        summary: `The road network as a Mapbox vector tile (layer roads), zoom ${MIN_TILE_ZOOM} to ${MAX_TILE_ZOOM}`,
        params: {
          type: 'object',
          properties: { z: { type: 'string', maxLength: 3 }, x: { type: 'string', maxLength: 6 }, y: { type: 'string', maxLength: 6 } },
          required: ['z', 'x', 'y'],
        },
      },
    },
    async (request, reply) => {
      const number = (name: 'z' | 'x' | 'y') => {
        const v = request.params[name];
        if (!/^\d+$/.test(v)) throw new DetourError(ErrorCode.INVALID_INPUT, `${name} must be a whole number, got ${JSON.stringify(v)}`, { field: name });
        return Number(v);
      };
      const bytes = tiles.tile(number('z'), number('x'), number('y'));
      if (bytes.length === 0) return reply.code(204).header('cache-control', 'public, max-age=3600').send();
      return reply.type('application/vnd.mapbox-vector-tile').header('cache-control', 'public, max-age=3600').send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
  );
}

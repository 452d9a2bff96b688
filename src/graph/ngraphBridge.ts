import createGraph, { type Graph, type Link, type Node } from 'ngraph.graph';
import { DetourError, ErrorCode } from '../errors.js';
import { carRoadAttributes, HIGHWAY_CLASSES, RoadFlag, type OsmTags, type RoadAttributes } from './carProfile.js';
import { GraphBuilder } from './GraphBuilder.js';
import type { RoadGraph } from './RoadGraph.js';

/** Node data of the ngraph.graph that toNgraph builds. */
export interface NgraphNodeData {
  lat: number;
  lon: number;
}

/**
 * Builds an ngraph.graph (multigraph) with the same nodes (ids 0..n-1) and directed edges as the
 * RoadGraph; each link's data is its RoadGraph edge id, so costs are read from the same arrays.
 * Throws RangeError from ngraph.graph beyond about 2^24 links (its Map size limit).
 */
export function toNgraph(graph: RoadGraph): Graph<NgraphNodeData, number> {
  const ng = createGraph<NgraphNodeData, number>({ multigraph: true });
  for (let u = 0; u < graph.nodeCount; u++) ng.addNode(u, { lat: graph.nodeLatitude(u), lon: graph.nodeLongitude(u) });
  for (let e = 0; e < graph.edgeCount; e++) ng.addLink(graph.edgeTail[e], graph.edgeHead[e], e);
  return ng;
}

export interface FromNgraphOptions {
  /** Reads a node's position in degrees; default: data.lat/lon, data.latitude/longitude or data.y/x. */
  position?: (node: Node) => { lat: number; lon: number } | null | undefined;
  /** Treat each link as one-way from fromId to toId (default false: both directions). */
  oriented?: boolean;
  /** Default speed in km/h for links without tags or speedKmh (default 50). */
  speedKmh?: number;
  source?: string;
}

function defaultPosition(node: Node): { lat: number; lon: number } | null {
  const d = node.data as Record<string, unknown> | undefined;
  if (!d) return null;
  const lat = d.lat ?? d.latitude ?? d.y;
  const lon = d.lon ?? d.lng ?? d.longitude ?? d.x;
  return typeof lat === 'number' && typeof lon === 'number' ? { lat, lon } : null;
}

/**
 * Builds a RoadGraph from an existing ngraph.graph whose nodes carry coordinates. A link whose data
 * has `tags` (OSM tags) gets the car profile; one with `speedKmh` gets that speed; others the
 * default speed. Each link becomes a road of its own (a straight segment between its nodes).
 */
export function fromNgraph(ng: Graph, options: FromNgraphOptions = {}): RoadGraph {
  const position = options.position ?? defaultPosition;
  const builder = new GraphBuilder();
  const pointOf = new Map<unknown, number>();
  ng.forEachNode((node) => {
    const p = position(node);
    if (!p || !Number.isFinite(p.lat) || !Number.isFinite(p.lon) || Math.abs(p.lat) > 90 || Math.abs(p.lon) > 180) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `ngraph node ${String(node.id)} has no valid coordinates`);
    }
    pointOf.set(node.id, builder.addPoint(p.lat, p.lon));
  });
  const directions = options.oriented ? RoadFlag.FORWARD : RoadFlag.FORWARD | RoadFlag.BACKWARD;
  const fallback: RoadAttributes = {
    flags: directions,
    speedKmh: options.speedKmh ?? 50,
    highwayClass: HIGHWAY_CLASSES.indexOf('road'),
  };
  ng.forEachLink((link: Link) => {
    const data = link.data as { tags?: OsmTags; speedKmh?: number } | undefined;
    let attrs: RoadAttributes | null = fallback;
    if (data?.tags) attrs = carRoadAttributes(data.tags);
    else if (typeof data?.speedKmh === 'number' && data.speedKmh > 0) attrs = { ...fallback, speedKmh: data.speedKmh };
    if (attrs) builder.addWay([pointOf.get(link.fromId)!, pointOf.get(link.toId)!], attrs);
  });
  return builder.build({
    source: options.source ?? 'ngraph.graph',
    attribution: '',
    profile: 'car',
    builtAt: new Date().toISOString(),
  });
}

import { featureCollection, lineString, point, polygon } from '@turf/helpers';
import type { Feature, LineString, Point, Polygon } from 'geojson';
import type { LatLon } from './geo/coordinates.js';
import type { Route, RouteLeg } from './routing/routeRequest.js';
import type { RouteStep } from './routing/steps.js';
import { appliedVehicle } from './routing/vehicle.js';
import type { CalculatedZone } from './zones/calculateZone.js';

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
const roundPoint = (p: LatLon): LatLon => ({ latitude: round(p.latitude, 7), longitude: round(p.longitude, 7) });

/** The CLI's JSON view of a route: metres, seconds, km/h, points as {latitude, longitude}. */
export function routeToJson(route: Route, mode: string) {
  return {
    calculationMode: mode,
    distance: round(route.distance, 1),
    duration: round(route.duration, 1),
    averageSpeed: round(route.averageSpeed, 1),
    ...(route.departure && { departure: route.departure }),
    ...(route.vehicle && { vehicle: appliedVehicle(route.vehicle) }),
    legs: route.legs.map((leg) => ({
      from: { ...roundPoint(leg.from), snapDistance: round(leg.from.distance, 1) },
      to: { ...roundPoint(leg.to), snapDistance: round(leg.to.distance, 1) },
      distance: round(leg.distance, 1),
      duration: round(leg.duration, 1),
      averageSpeed: round(leg.averageSpeed, 1),
      ...legNotes(leg),
      points: leg.points.map(roundPoint),
    })),
  };
}

/** What a leg had to drive (zones entered, avoided types driven), its steps and its waits for scheduled zones, each only when present. */
function legNotes(leg: RouteLeg): Record<string, unknown> {
  return {
    ...(leg.zonesEntered ? { zonesEntered: leg.zonesEntered.map((z) => ({ name: z.name, metresInside: round(z.metresInside, 1) })) } : {}),
    ...(leg.avoidedTypesDriven ? { avoidedTypesDriven: leg.avoidedTypesDriven.map((d) => ({ type: d.type, metres: round(d.metres, 1) })) } : {}),
    ...(leg.steps ? { steps: leg.steps.map((s) => stepToJson(s, leg)) } : {}),
    ...(leg.waits ? { waits: leg.waits.map((w) => ({ ...w, latitude: round(w.latitude, 6), longitude: round(w.longitude, 6), seconds: round(w.seconds, 1) })) } : {}),
  };
}

/** A step: what to do and where (the maneuver's point), how far and long until the next, its stretch of the leg's points. */
function stepToJson(step: RouteStep, leg: RouteLeg) {
  return {
    type: step.type,
    text: step.text,
    at: roundPoint(leg.points[step.first]),
    distance: round(step.distance, 1),
    duration: round(step.duration, 1),
    ...(step.name !== undefined && { name: step.name }),
    ...(step.ref !== undefined && { ref: step.ref }),
    ...(step.exitNumber !== undefined && { exitNumber: step.exitNumber }),
    points: [step.first, step.last],
  };
}

/** All legs' points joined into one [longitude, latitude] line (GeoJSON order). */
export function routeCoordinates(route: Route): number[][] {
  const coords: number[][] = [];
  for (const leg of route.legs) {
    for (const p of leg.points) {
      const c = [round(p.longitude, 7), round(p.latitude, 7)];
      const last = coords[coords.length - 1];
      if (!last || last[0] !== c[0] || last[1] !== c[1]) coords.push(c);
    }
  }
  // A LineString needs two positions; a zero-length route repeats its one point.
  if (coords.length === 1) coords.push([...coords[0]]);
  return coords;
}

/** The route as a GeoJSON Feature<LineString> (opens as is in geojson.io, MapLibre, Leaflet). */
export function routeToGeoJson(route: Route, mode: string): Feature<LineString> {
  return lineString(routeCoordinates(route), {
    calculationMode: mode,
    distance: round(route.distance, 1),
    duration: round(route.duration, 1),
    averageSpeed: round(route.averageSpeed, 1),
    ...(route.vehicle && { vehicle: appliedVehicle(route.vehicle) }),
    legs: route.legs.map((l) => ({
      distance: round(l.distance, 1),
      duration: round(l.duration, 1),
      ...legNotes(l),
    })),
    stroke: '#d62728',
    'stroke-width': 4,
  });
}

/** Route plus its stops, its steps' maneuvers and the avoided zones, for `--format geojson --with-stops`. */
export function routeWithStops(route: Route, mode: string, zones: CalculatedZone[] = []) {
  const stops = [route.legs[0].from, ...route.legs.map((l) => l.to)].map((s, i) =>
    point([round(s.longitude, 7), round(s.latitude, 7)], { stop: i }),
  );
  const areas = zones.flatMap((z) =>
    z.zone.polygons.map((p) =>
      polygon(p.rings.map((r) => [...r, r[0]].map((c) => [c[0], c[1]])), {
        zone: z.zone.name, geometry: p.name, status: z.status.name, fill: '#1f77b4', 'fill-opacity': 0.25,
      }),
    ),
  );
  // Each step's maneuver as a point carrying its instruction (when the route has steps).
  const maneuvers = route.legs.flatMap((leg, l) => (leg.steps ?? []).map((s, i) => {
    const at = leg.points[s.first];
    return point([round(at.longitude, 7), round(at.latitude, 7)], { leg: l, step: i, type: s.type, text: s.text });
  }));
  return featureCollection<LineString | Point | Polygon>([routeToGeoJson(route, mode), ...stops, ...maneuvers, ...areas]);
}

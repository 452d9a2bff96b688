import { calculateZone, haversineMetres, zoneFromGeoJson, type CalculatedZone, type LatLon, type Route, type Router, type Zone } from '../src/index.js';

const METRES_PER_DEGREE = 111_195;

/** A roughly round zone of `across` metres around a centre, 24 vertices, radius jittered by up to 20 %. */
export function roundZone(name: string, lat: number, lon: number, across: number, rand: () => number): Zone {
  const ry = across / 2 / METRES_PER_DEGREE, rx = ry / Math.cos((lat * Math.PI) / 180);
  const ring: number[][] = [];
  for (let i = 0; i < 24; i++) {
    const a = (2 * Math.PI * i) / 24, k = 0.8 + 0.2 * rand();
    ring.push([lon + rx * k * Math.cos(a), lat + ry * k * Math.sin(a)]);
  }
  ring.push([...ring[0]]);
  return zoneFromGeoJson(name, { type: 'Polygon', coordinates: [ring] });
}

/**
 * Ten zones of 1-5 km across, alternately centred on the free path and beside it (0.2-1.5 km
 * beyond the zone's radius), never within 300 m of a stop (a stop inside a zone takes the
 * least-metres-inside fallback, measured elsewhere). Fewer when the path is too short.
 */
export function zonesOnPath(path: LatLon[], stops: LatLon[], rand: () => number, tag: string): Zone[] {
  const cumulative = new Float64Array(path.length);
  for (let i = 1; i < path.length; i++) {
    cumulative[i] = cumulative[i - 1] + haversineMetres(path[i - 1].latitude, path[i - 1].longitude, path[i].latitude, path[i].longitude);
  }
  const total = cumulative[path.length - 1];
  const zones: Zone[] = [];
  for (let k = 0; k < 10; k++) {
    for (let attempt = 0; attempt < 25; attempt++) {
      const across = attempt < 10 ? 1000 + rand() * 4000 : 1000 + rand() * 1000;
      const at = (0.1 + 0.8 * rand()) * total;
      let i = 1;
      while (i < path.length - 1 && cumulative[i] < at) i++;
      let lat = path[i].latitude, lon = path[i].longitude;
      if (k % 2 === 1) {
        const d = across / 2 + 200 + rand() * 1300, a = rand() * 2 * Math.PI;
        lat += (d * Math.sin(a)) / METRES_PER_DEGREE;
        lon += (d * Math.cos(a)) / (METRES_PER_DEGREE * Math.cos((lat * Math.PI) / 180));
      }
      if (stops.some((s) => haversineMetres(s.latitude, s.longitude, lat, lon) < across / 2 + 300)) continue;
      zones.push(roundZone(`${tag}-${k}`, lat, lon, across, rand));
      break;
    }
  }
  return zones;
}

/** zonesOnPath's zones around a pair's free route, calculated; undefined when no route joins the pair. */
export function zonesOnFreeRoute(router: Router, points: LatLon[], rand: () => number, tag: string): CalculatedZone[] | undefined {
  let free: Route;
  try { free = router.route({ points }); } catch { return undefined; }
  const path = free.legs[0].points;
  return zonesOnPath(path, [...points, path[0], path[path.length - 1]], rand, tag).map((z) => calculateZone(router.graph, z));
}

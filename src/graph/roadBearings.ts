import type { RoadGraph } from './RoadGraph.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';

/**
 * Metres of road a bearing is measured over from a junction: the direction a driver sees, not the
 * last few centimetres of a road drawn with a kink at its end.
 */
export const BEARING_METRES = 20;

/** Stored bearings are whole 1/65,536 turns (0.0055°, finer than 1e-7 degree coordinates resolve over BEARING_METRES). */
const UNITS_PER_DEGREE = 65_536 / 360;

/** Metres per 1e-7 degree of latitude. */
const METRES_PER_E7 = 0.0111195;

/**
 * Per road, the compass bearings of leaving each of its ends along it: element 2r from its start,
 * 2r + 1 from its end. A search index (graph.indexes.roadBearings, stored in graph files): turn-by-turn
 * steps read a junction's angles from it instead of measuring shapes along every route. Adopted
 * when the graph carries it, else measured once and attached.
 */
export function roadBearings(graph: RoadGraph): Uint16Array {
  let bearings = graph.indexes.roadBearings;
  if (!bearings) graph.indexes.roadBearings = bearings = measureRoadBearings(graph);
  return bearings;
}

/** Degrees clockwise from north of leaving road `road` from its start (its end when `fromStart` is false). */
export function bearingOf(bearings: Uint16Array, road: number, fromStart: boolean): number {
  return degrees(bearings[2 * road + (fromStart ? 0 : 1)]);
}

/** Degrees of a stored bearing. */
export function degrees(units: number): number {
  return units / UNITS_PER_DEGREE;
}

/**
 * Measures every road's two bearings: from an end towards the first of the road's points
 * BEARING_METRES away along it (or its other end when none is), on the graph's 1e-7 degree arrays.
 */
function measureRoadBearings(graph: RoadGraph): Uint16Array {
  const roads = graph.roadCount;
  const out = new Uint16Array(new SharedOrPlainBuffer(4 * roads));
  const { roadShapeStart, shapeLatE7, shapeLonE7, nodeLatE7, nodeLonE7, roadFrom, roadTo } = graph;
  const far = (BEARING_METRES / METRES_PER_E7) ** 2;
  for (let r = 0; r < roads; r++) {
    const s = roadShapeStart[r], z = roadShapeStart[r + 1];
    for (let end = 0; end < 2; end++) {
      const fromStart = end === 0;
      const here = fromStart ? roadFrom[r] : roadTo[r], there = fromStart ? roadTo[r] : roadFrom[r];
      const lat0 = nodeLatE7[here], lon0 = nodeLonE7[here];
      const kx = Math.cos(lat0 * 1e-7 * (Math.PI / 180));
      let dLat = nodeLatE7[there] - lat0, dLon = nodeLonE7[there] - lon0;
      for (let i = 0; i < z - s; i++) {
        const k = fromStart ? s + i : z - 1 - i;
        const y = shapeLatE7[k] - lat0, x = (shapeLonE7[k] - lon0) * kx;
        if (x * x + y * y >= far) {
          dLat = y;
          dLon = shapeLonE7[k] - lon0;
          break;
        }
      }
      const b = Math.atan2(dLon * kx, dLat) * (180 / Math.PI);
      out[2 * r + end] = Math.round((b < 0 ? b + 360 : b) * UNITS_PER_DEGREE) & 0xffff;
    }
  }
  return out;
}

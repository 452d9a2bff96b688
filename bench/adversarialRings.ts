import { seededRandom } from './seededRandom.js';

/**
 * Rings that made naive geometry code quadratic or cubic: long thin spikes that span the whole
 * polygon, windings, many parallel teeth. Positions are [longitude, latitude] around Gothenburg;
 * all but `randomRing` are simple (valid) polygons with exactly `n` vertices.
 */
export type Position = [number, number];

/**
 * Issue 8's sawtooth: n - 2 vertices alternating between latitudes 57.700 and 57.710 across
 * longitudes 11.95-11.99, closed by two base vertices just below.
 */
export function sawtoothRing(n: number): Position[] {
  const teeth = n - 2;
  const ring: Position[] = [];
  for (let i = 0; i < teeth; i++) ring.push([11.95 + (0.04 * i) / (teeth - 1), i % 2 === 0 ? 57.7 : 57.71]);
  ring.push([11.99, 57.69999], [11.95, 57.69999]);
  return ring;
}

/** A thick spiral: out along r = a + b*theta, back along it offset inwards. */
export function spiralRing(n: number): Position[] {
  const half = n >> 1;
  const turns = Math.max(2, Math.sqrt(half) / 4);
  const out: Position[] = [], back: Position[] = [];
  for (let i = 0; i < half; i++) {
    const t = (i / (half - 1)) * turns * 2 * Math.PI;
    const r = 0.001 + 0.001 * t;
    out.push([11.97 + r * Math.cos(t), 57.7 + 0.55 * r * Math.sin(t)]);
    const rb = r + 0.0025; // less than one winding's gap (0.001 * 2 pi)
    back.push([11.97 + rb * Math.cos(t), 57.7 + 0.55 * rb * Math.sin(t)]);
  }
  const ring = out.concat(back.reverse());
  if (n % 2 === 1) ring.push([11.97 + 0.0015, 57.7]); // between the two ends of the closing cut
  return ring.slice(0, n);
}

/** A comb: a bar along the bottom with (n - 2) / 4 tall teeth. */
export function combRing(n: number): Position[] {
  const teeth = Math.max(1, Math.floor((n - 2) / 4));
  const width = 0.04 / teeth;
  const ring: Position[] = [];
  for (let k = 0; k < teeth; k++) {
    const x = 11.95 + k * width;
    ring.push([x, 57.7], [x, 57.71], [x + width / 2, 57.71], [x + width / 2, 57.7]);
  }
  ring.push([11.99, 57.699], [11.95, 57.699]);
  // Pad along the base, westwards, up to n vertices.
  while (ring.length < n) ring.splice(ring.length - 1, 0, [11.95 + (0.04 * (n - ring.length)) / n, 57.699]);
  return ring;
}

/** A star: vertices alternating between two radii around a centre. */
export function starRing(n: number): Position[] {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const t = (i / n) * 2 * Math.PI;
    const r = i % 2 === 0 ? 0.02 : 0.002;
    ring.push([11.97 + r * Math.cos(t), 57.7 + 0.55 * r * Math.sin(t)]);
  }
  return ring;
}

/** Uniformly random vertices in a box: self-intersecting almost surely. */
export function randomRing(n: number, seed: number): Position[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => [11.95 + 0.04 * random(), 57.7 + 0.01 * random()] as Position);
}

export const ADVERSARIAL_RINGS = { sawtooth: sawtoothRing, spiral: spiralRing, comb: combRing, star: starRing } as const;

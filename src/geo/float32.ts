// Float32 bounding boxes halve a flatbush index; each bound is rounded outwards so a box never
// shrinks and a search's candidates stay a superset of the exact (Float64) ones.
const f32 = new Float32Array(1);
const f32Bits = new Int32Array(f32.buffer);

/** The largest float32 <= x. */
export function float32Down(x: number): number {
  f32[0] = x;
  if (f32[0] <= x) return f32[0];
  if (f32[0] === 0) return -1.401298464324817e-45;
  f32Bits[0] += f32[0] > 0 ? -1 : 1;
  return f32[0];
}

/** The smallest float32 >= x. */
export function float32Up(x: number): number {
  f32[0] = x;
  if (f32[0] >= x) return f32[0];
  if (f32[0] === 0) return 1.401298464324817e-45;
  f32Bits[0] += f32[0] > 0 ? 1 : -1;
  return f32[0];
}

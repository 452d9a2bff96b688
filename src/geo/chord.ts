const RAD = Math.PI / 180;

/** Unit vectors on the sphere, interleaved x, y, z, for points in degrees. */
export function unitVectors(lat: Float64Array, lon: Float64Array): Float64Array {
  const out = new Float64Array(lat.length * 3);
  for (let i = 0; i < lat.length; i++) {
    const cl = Math.cos(lat[i] * RAD);
    out[3 * i] = cl * Math.cos(lon[i] * RAD);
    out[3 * i + 1] = cl * Math.sin(lon[i] * RAD);
    out[3 * i + 2] = Math.sin(lat[i] * RAD);
  }
  return out;
}


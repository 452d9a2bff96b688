/**
 * Maplink's vehicle types (the Trip API's v2 `vehicleType`, `toll.vehicleType`; a zone's `vehicles`
 * rule): Brazil's toll categories, by axles and tyres. TRUCK_WITH_TWO_SINGLE_AXIS is spelt so.
 */
export const VEHICLE_TYPES = [
  'CAR', 'MOTORCYCLE', 'CAR_WITH_THREE_SIMPLE_AXLES', 'CAR_WITH_FOUR_SIMPLE_AXLES',
  'BUS_WITH_TWO_DOUBLE_AXLES', 'BUS_WITH_THREE_DOUBLE_AXLES', 'BUS_WITH_FOUR_DOUBLE_AXLES', 'BUS_WITH_FIVE_DOUBLE_AXLES',
  'TRUCK_WITH_TWO_SINGLE_AXIS', 'TRUCK_WITH_TWO_DOUBLE_AXLES', 'TRUCK_WITH_THREE_DOUBLE_AXLES', 'TRUCK_WITH_FOUR_DOUBLE_AXLES',
  'TRUCK_WITH_FIVE_DOUBLE_AXLES', 'TRUCK_WITH_SIX_DOUBLE_AXLES', 'TRUCK_WITH_SEVEN_DOUBLE_AXLES', 'TRUCK_WITH_EIGHT_DOUBLE_AXLES',
  'TRUCK_WITH_NINE_DOUBLE_AXLES', 'TRUCK_WITH_TEN_DOUBLE_AXLES',
] as const;
export type VehicleType = (typeof VEHICLE_TYPES)[number];

/** The axle counts Maplink's type names spell out. */
export const AXLE_WORDS: Readonly<Record<string, number>> = { TWO: 2, THREE: 3, FOUR: 4, FIVE: 5, SIX: 6, SEVEN: 7, EIGHT: 8, NINE: 9, TEN: 10 };

/** The axles of a Maplink vehicle type (cars and motorcycles: 2); undefined for another name. */
export function vehicleAxles(type: string): number | undefined {
  if (type === 'CAR' || type === 'MOTORCYCLE') return 2;
  const word = /_WITH_([A-Z]+)_/.exec(type)?.[1];
  return word !== undefined && (VEHICLE_TYPES as readonly string[]).includes(type) ? AXLE_WORDS[word] : undefined;
}

import { STEP_TYPES } from '../routing/steps.js';
import { POINTS_MODES, GEOHASH_PRECISION } from '../geo/pointEncodings.js';
import { CALCULATION_MODES } from '../routing/routeRequest.js';
import { AVOIDANCE_BEHAVIORS, AVOIDANCE_TYPES, RELAXED_EXTRA_PER_METRE } from '../routing/avoidance.js';
import {
  CROSSED_BORDER_LEVELS, FREIGHT_GOODS_TYPES, FREIGHT_OPERATION_TYPES, LOAD_TYPES, REVERSE_GEOCODE_MODES, ROAD_TYPES, TOLL_BILLING_TYPES, TOLL_BILLINGS,
  TOLL_PERIODS, TOLL_TYPES, TRANSPONDER_OPERATORS, TURN_BY_TURN_LANGUAGES, VEHICLE_SPECIFICATION_LIMITS, VEHICLE_TYPES,
} from '../trip/maplinkVocabulary.js';
import { MAX_SOFT_COST_PER_KM, ZONE_LIMITS, ZONE_VEHICLE_MINIMUMS } from '../zones/Zone.js';
import { SCHEDULE_LIMITS, WEEKDAYS } from '../zones/schedule.js';

/**
 * JSON schemas of every body, query and response. Fastify validates requests with them (ajv,
 * no type coercion, all errors reported) and serialises responses with them, and
 * @fastify/swagger turns them into the OpenAPI document at /docs.
 */

/** Most stops a trip may have. */
export const MAX_TRIP_POINTS = 100;
/** Most zones one trip may name. */
export const MAX_TRIP_ZONES = 100;
/**
 * How long a service keeps trips' solutions (DETOUR_TRIP_RETENTION_DAYS): by default, and at most.
 * A request's expireIn may ask for less, never more; disk use is at most the trip rate times it.
 */
export const TRIP_RETENTION_DAYS = { default: 7, max: 30 } as const;

/** Pages of the zone list: default and largest `limit`, largest `offset`, zones read per query. */
export const ZONE_PAGE = { default: 100, max: 1_000, maxOffset: 1_000_000_000, batch: 4 } as const;

export const apiErrorSchema = {
  $id: 'ApiError',
  type: 'object',
  description: 'An error: a stable code, a message saying what to fix, and for invalid bodies every problem with its JSON path.',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    zones: { type: 'array', items: { type: 'string' } },
    point: { type: 'string' },
    leg: { type: 'integer' },
    quota: {
      type: 'object',
      description: 'ZONE_QUOTA_EXCEEDED: the limit broken ("zones" or "vertices"), and per limit the usage before the write and the maximum.',
      properties: {
        limit: { type: 'string', enum: ['zones', 'vertices'] },
        zones: { type: 'object', properties: { used: { type: 'integer' }, max: { type: 'integer' } } },
        vertices: { type: 'object', properties: { used: { type: 'integer' }, max: { type: 'integer' } } },
      },
    },
  },
  required: ['code', 'message'],
} as const;

export const apigeeFaultSchema = {
  $id: 'ApigeeFault',
  type: 'object',
  description: 'Authentication failures, in the shape Apigee-fronted APIs return.',
  properties: {
    fault: {
      type: 'object',
      properties: {
        faultstring: { type: 'string' },
        detail: { type: 'object', properties: { errorcode: { type: 'string' } } },
      },
    },
  },
} as const;

export const oauthErrorSchema = {
  $id: 'OAuthError',
  type: 'object',
  description: 'Token endpoint failures, in Apigee\'s shape.',
  properties: { ErrorCode: { type: 'string' }, Error: { type: 'string' } },
} as const;

const vertex = {
  type: 'object',
  properties: {
    latitude: { type: 'number', minimum: -90, maximum: 90 },
    longitude: { type: 'number', minimum: -180, maximum: 180 },
  },
  required: ['latitude', 'longitude'],
} as const;

/** A zone's vehicles rule (detour extension; validateZone checks it and names each member's problem). */
const zoneVehiclesSchema = {
  type: ['object', 'null'],
  description:
    'detour extension: the vehicles the zone closes its roads to: those of the Maplink types listed, and those at or above any minimum ' +
    '(gross weight in tonnes, length, height and width in metres, axles of the Maplink type). Left out: every vehicle. A trip without a vehicleType is a car.',
  properties: {
    types: { type: 'array', minItems: 1, maxItems: VEHICLE_TYPES.length, items: { type: 'string', enum: VEHICLE_TYPES } },
    ...Object.fromEntries(Object.entries(ZONE_VEHICLE_MINIMUMS).map(([key, most]) => [key, { type: 'number', minimum: 0, maximum: most }])),
  },
  additionalProperties: false,
  examples: [{ types: ['TRUCK_WITH_TWO_DOUBLE_AXLES', 'TRUCK_WITH_THREE_DOUBLE_AXLES'], minWeight: 10 }],
} as const;

/** A zone's avoidance rule (detour extension). */
const zoneAvoidanceSchema = {
  type: ['object', 'null'],
  description:
    'detour extension: HARD (the default: routes never drive the zone\'s roads but to reach a stop) or SOFT: routes drive them when going ' +
    'around costs more than costPerKm per km of them (seconds for THE_FASTEST, metres for THE_SHORTEST).',
  properties: { mode: { type: 'string', enum: ['HARD', 'SOFT'] }, costPerKm: { type: 'number', exclusiveMinimum: 0, maximum: MAX_SOFT_COST_PER_KM } },
  additionalProperties: false,
  examples: [{ mode: 'SOFT', costPerKm: 600 }],
} as const;

/** A zone's schedule (detour extension). */
const zoneScheduleSchema = {
  type: ['object', 'null'],
  description:
    'detour extension: when the zone is active (absent: always). Weekly windows of local time in an IANA time zone (a "to" at or before ' +
    '"from" ends the next day; "24:00" ends the day) and dated exceptions making a whole local day active or not. Routes drive its roads ' +
    'only while it is inactive, waiting at its edge when that is fastest.',
  properties: {
    timeZone: { type: 'string', maxLength: 64 },
    windows: {
      type: 'array', maxItems: SCHEDULE_LIMITS.windows,
      items: {
        type: 'object', additionalProperties: false, required: ['days', 'from', 'to'],
        properties: {
          days: { type: 'array', minItems: 1, maxItems: 7, items: { type: 'string', enum: WEEKDAYS } },
          from: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' },
          to: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$|^24:00$' },
        },
      },
    },
    exceptions: {
      type: 'array', maxItems: SCHEDULE_LIMITS.exceptions,
      items: { type: 'object', additionalProperties: false, required: ['date', 'active'], properties: { date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, active: { type: 'boolean' } } },
    },
  },
  required: ['timeZone', 'windows'],
  additionalProperties: false,
  examples: [{
    timeZone: 'America/Sao_Paulo',
    windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: '05:00', to: '21:00' }, { days: ['SAT'], from: '10:00', to: '14:00' }],
    exceptions: [{ date: '2026-12-25', active: false }],
  }],
} as const;

export const zoneBodySchema = {
  type: 'object',
  description:
    `A restriction zone: a name (1 to ${ZONE_LIMITS.nameMaxLength} characters after NFC normalisation; no "/", control, ` +
    `invisible format (Unicode Cf) or NUL characters, no lone surrogates) and ` +
    `1 to ${ZONE_LIMITS.geometriesMax} polygons of 3 to ${ZONE_LIMITS.verticesMax} vertices each ` +
    `(${ZONE_LIMITS.zoneVerticesMax} in all), open or closed, not self-intersecting.`,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: ZONE_LIMITS.nameMaxLength },
    geometries: {
      type: 'array',
      minItems: 1,
      maxItems: ZONE_LIMITS.geometriesMax,
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          vertices: { type: 'array', minItems: 3, maxItems: ZONE_LIMITS.verticesMax + 1, items: vertex },
        },
        required: ['vertices'],
      },
    },
    vehicles: zoneVehiclesSchema,
    avoidance: zoneAvoidanceSchema,
    schedule: zoneScheduleSchema,
  },
  required: ['name', 'geometries'],
  examples: [{
    name: 'Centrum',
    geometries: [{ name: 'block', vertices: [
      { latitude: 57.7, longitude: 11.96 }, { latitude: 57.7, longitude: 11.975 },
      { latitude: 57.71, longitude: 11.975 }, { latitude: 57.71, longitude: 11.96 },
    ] }],
  }],
} as const;

export const zoneStatusSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', enum: ['IN_CALCULATION', 'CALCULATED', 'CALCULATED_WITHOUT_ROADS', 'CALCULATION_ERROR'] },
    description: { type: 'string' },
  },
  required: ['name', 'description'],
} as const;

export const zoneResponseSchema = {
  $id: 'RestrictionZone',
  type: 'object',
  properties: {
    name: { type: 'string' },
    geometries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          vertices: { type: 'array', items: { type: 'object', properties: { latitude: { type: 'number' }, longitude: { type: 'number' } } } },
        },
      },
    },
    vehicles: zoneVehiclesSchema,
    avoidance: zoneAvoidanceSchema,
    schedule: zoneScheduleSchema,
    status: zoneStatusSchema,
  },
  required: ['name', 'geometries', 'status'],
} as const;

export const zoneListQuerySchema = {
  type: 'object',
  properties: {
    limit: { type: 'string', description: `Zones per page, 1 to ${ZONE_PAGE.max} (default ${ZONE_PAGE.default}).` },
    offset: { type: 'string', description: 'Zones to skip (default 0), in the list order: oldest first, then by name.' },
    fields: { type: 'string', description: 'Members of each zone, comma-separated among name, geometries, status (default all); "name,status" lists zones without their polygons.' },
  },
} as const;

export const zoneNameParamsSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'The zone name, percent-encoded.' } },
  required: ['name'],
} as const;

/** Maplink's avoidanceTypes, as the Trip and Matrix APIs take them. */
export const avoidanceTypesSchema = {
  type: ['array', 'null'],
  maxItems: AVOIDANCE_TYPES.length + 1,
  items: { type: 'string', enum: [...AVOIDANCE_TYPES, 'FRONTIERS'] },
  description: 'Road types to avoid: TUNNELS, BRIDGES, FERRIES, TOLL_ROADS (toll=*), TOLL_GATES (roads through barrier=toll_booth), UNPAVED (unpaved surface=*). FRONTIERS is refused (400 UNSUPPORTED_FEATURE): the graph knows no country borders.',
} as const;

/**
 * A coordinate: a number, or a JSON string holding a decimal number as Maplink's own examples send
 * (its range is checked once read: readTripRequest, readSites).
 */
export const coordinateSchema = (max: 90 | 180) => ({
  type: ['number', 'string'],
  minimum: -max,
  maximum: max,
  maxLength: 40,
  description: `degrees, -${max} to ${max}; a string holding a decimal number is read as that number`,
}) as const;

const nullable = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, 'null'] });
const enumArray = (values: readonly string[], maxItems = values.length) => ({ type: 'array', maxItems, items: { type: 'string', enum: values } }) as const;
/** Epoch milliseconds, or an ISO-8601 date-time text. */
export const maplinkDateSchema = { type: ['integer', 'string'], minimum: 0, maxLength: 40 } as const;

/** The vehicle members (Trip and Matrix APIs). */
export const vehicleSchemas = {
  vehicleType: { type: ['string', 'null'], enum: [...VEHICLE_TYPES, null], description: 'The vehicle the route must be legal for (default CAR): its legal dimensions and weights (README, "Vehicles") close the roads whose limits it exceeds, and trucks keep off hgv=no roads and use hgv=destination roads only to reach a stop.' },
  speedPreferences: {
    type: ['array', 'null'],
    maxItems: ROAD_TYPES.length,
    items: {
      type: 'object',
      properties: { roadType: { type: 'string', enum: ROAD_TYPES }, speed: { type: 'integer', minimum: 0, maximum: 300 }, speedAtToll: { type: 'integer', minimum: 0, maximum: 300 } },
      additionalProperties: false,
    },
    description: 'Speeds (km/h) per Maplink road type, capping the roads\' own (speedAtToll on toll roads; 0: the default); never faster than the car profile. See docs/VEHICLES.md.',
  },
  vehicleSpecification: nullable({
    type: 'object',
    properties: {
      ...Object.fromEntries(VEHICLE_SPECIFICATION_LIMITS.map((k) => [k, { type: 'number', minimum: 0 }])),
      loadTypes: enumArray(LOAD_TYPES),
    },
    additionalProperties: false,
    description: 'Maplink v1: the vehicle\'s dimensions (metres) and weights (kilograms); they replace vehicleType\'s figures. A maxWeightFor*Materials above 0 makes it carry dangerous goods (hazmat=no roads close).',
  }),
} as const;

/**
 * Maplink's Trip members detour reads but does not act on yet (maplinkVocabulary.ts): each is
 * checked against its Maplink type, its default value passes, any other value is a 400
 * UNSUPPORTED_FEATURE naming it. Nested members of features detour lacks are typed, not closed.
 */
const maplinkTripFeatures = {
  toll: nullable({
    type: 'object',
    properties: {
      vehicleType: { type: 'string', enum: VEHICLE_TYPES },
      billing: { type: 'string', enum: TOLL_BILLINGS },
      transponderOperators: enumArray(TRANSPONDER_OPERATORS),
      variableAxles: { type: 'array', maxItems: 100, items: { type: 'object', properties: { fromSiteId: { type: 'string', maxLength: 200 }, toSiteId: { type: 'string', maxLength: 200 }, newVehicleType: { type: 'string', enum: VEHICLE_TYPES } } } },
      calculationDate: maplinkDateSchema,
      condition: { type: 'object', properties: { billingType: { type: 'string', enum: TOLL_BILLING_TYPES }, period: { type: 'string', enum: TOLL_PERIODS } } },
      inactive: { type: 'boolean' },
      excludedTollTypes: enumArray(TOLL_TYPES),
      multiplier: { type: 'integer', minimum: 0 },
    },
    description: 'Toll costs: absent or null only (the graph holds no toll prices).',
  }),
  crossedBorders: nullable({
    type: 'object',
    properties: { level: { type: 'string', enum: CROSSED_BORDER_LEVELS }, reverseGeocode: { type: 'string', enum: REVERSE_GEOCODE_MODES } },
    additionalProperties: false,
    description: 'Crossed cities and states: absent, null or level and reverseGeocode NONE only.',
  }),
  freight: nullable({
    type: 'object',
    properties: {
      operationType: enumArray(FREIGHT_OPERATION_TYPES), goodsType: enumArray(FREIGHT_GOODS_TYPES), axis: { type: 'array', maxItems: 20, items: { type: 'integer' } },
      otherCosts: { type: 'array', maxItems: 100, items: { type: 'object', properties: { name: { type: 'string', maxLength: 200 }, type: { type: 'string', enum: ['PERCENT', 'FIXED'] }, value: { type: 'number' } } } },
      distance: { type: 'number' }, date: { type: ['array', 'string', 'integer'], maxItems: 3, maxLength: 40 }, roundTrip: { type: 'boolean' }, backEmpty: { type: 'boolean' },
    },
    description: 'Freight costs: absent or null only.',
  }),
  emission: nullable({
    type: 'object',
    properties: {
      source: { type: 'string', maxLength: 200 }, fuelType: { type: 'string', maxLength: 200 }, autonomy: { type: 'number' }, averageConsumption: { type: 'number' },
      fuelPrice: { type: 'number' }, totalDistance: { type: 'integer' },
      fractionedEmission: { type: 'array', maxItems: 100, items: { type: 'object', properties: { name: { type: 'string', maxLength: 200 }, percentage: { type: 'integer' } } } },
    },
    description: 'Emissions: absent or null only.',
  }),
  place: nullable({
    type: 'object',
    properties: {
      categories: { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 100 } }, subCategories: { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 100 } },
      bufferRouteInMeters: { type: 'integer', minimum: 1, maximum: 500 }, bufferStoppingPointsInMeters: { type: 'integer', minimum: 1, maximum: 500 },
      onlyMyPlaces: { type: 'boolean' }, legs: { type: 'array', maxItems: MAX_TRIP_POINTS },
    },
    description: 'Places along the route: absent or null only.',
  }),
  turnByTurn: nullable({
    type: 'object',
    properties: { language: { type: 'string', enum: TURN_BY_TURN_LANGUAGES }, languageCode: { type: 'string', enum: TURN_BY_TURN_LANGUAGES } },
    additionalProperties: false,
    description: 'Turn-by-turn instructions in the language given (language or languageCode; both must agree): each leg answers turnByTurn.',
  }),
  vehicleType: vehicleSchemas.vehicleType,
  vehicleSpecification: vehicleSchemas.vehicleSpecification,
  speedPreferences: vehicleSchemas.speedPreferences,
  profileName: { type: 'string', minLength: 1, maxLength: 100, description: 'Maplink v1: the routing profile (MAPLINK, MAPLINKBR, BRAZIL, ...): accepted; detour routes on its loaded graph\'s car profile.' },
  clientId: { type: 'string', maxLength: 256, description: 'Maplink v1: the client; when given it must be the token\'s (403 CLIENT_ID_MISMATCH).' },
  startDate: { ...maplinkDateSchema, description: 'Departure (epoch milliseconds or ISO-8601; default now): zones with a schedule close their roads while active, and the route waits for them where that is fastest.' },
} as const;

export const tripBodySchema = {
  type: 'object',
  description: `Ordered stops (2 to ${MAX_TRIP_POINTS}) and the names of stored restriction zones to avoid (at most ${MAX_TRIP_ZONES}), with every member of Maplink's v2 Trip request (and the v1 members its SDK's examples carry). Members detour does not act on yet take their default only (else 400 UNSUPPORTED_FEATURE naming them). Unknown members are rejected, so a misspelt restrictionZones cannot silently route through a zone.`,
  properties: {
    calculationMode: { type: 'string', enum: CALCULATION_MODES, default: 'THE_FASTEST' },
    points: {
      type: 'array',
      minItems: 2,
      maxItems: MAX_TRIP_POINTS,
      items: {
        type: 'object',
        properties: { latitude: coordinateSchema(90), longitude: coordinateSchema(180), siteId: { type: 'string', maxLength: 200 } },
        required: ['latitude', 'longitude'],
        additionalProperties: false,
      },
    },
    restrictionZones: { type: ['array', 'null'], maxItems: MAX_TRIP_ZONES, items: { type: 'string', minLength: 1, maxLength: ZONE_LIMITS.nameMaxLength } },
    avoidanceTypes: avoidanceTypesSchema,
    avoidanceBehavior: {
      type: 'string',
      enum: AVOIDANCE_BEHAVIORS,
      default: 'FAIL',
      description: `FAIL: never drive them; a leg that cannot avoid them answers 422 AVOIDANCE_IMPOSSIBLE naming the leg and types. STRONG: drive the fewest metres of them any route can. RELAXED: each metre on them costs ${RELAXED_EXTRA_PER_METRE.distance} extra metres (THE_SHORTEST) or ${RELAXED_EXTRA_PER_METRE.duration} extra seconds (THE_FASTEST). Restriction zones always come first.`,
    },
    expireIn: { ...maplinkDateSchema, description: `Until when the solution can be read back (GET /trip/v1/solutions/{id}): epoch milliseconds or ISO-8601, at most the service's retention ahead (DETOUR_TRIP_RETENTION_DAYS: ${TRIP_RETENTION_DAYS.default} days unless configured), which is also the default.` },
    ...maplinkTripFeatures,
  },
  required: ['points'],
  additionalProperties: false,
  examples: [{
    calculationMode: 'THE_FASTEST',
    points: [{ latitude: 57.7055, longitude: 11.95, siteId: 'west' }, { latitude: 57.7055, longitude: 11.985, siteId: 'east' }],
    restrictionZones: ['Centrum'],
    avoidanceTypes: ['TUNNELS'],
    avoidanceBehavior: 'STRONG',
  }],
} as const;

/** A callback POSTed when an asynchronous job ends (Maplink's `callback`). */
export const callbackSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2_000, description: 'http or https, at most 2,000 characters' },
    user: { type: 'string', maxLength: 200 },
    password: { type: 'string', maxLength: 200 },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

/** POST /trip/v1/problems: Maplink's v1 payload, the v2 members and `callback`. */
export const tripProblemSchema = {
  ...tripBodySchema,
  description: `Maplink's asynchronous trip (v1 payload): the members of POST /trip/v2/calculations, and a callback POSTed {id, jobId, status} when the job ends.`,
  properties: { ...tripBodySchema.properties, callback: callbackSchema },
} as const;

/** How pointsMode writes a trip's points. */
export const POINTS_MODE_DESCRIPTION = `polyline: Google encoded polyline (1e5, latitude first); object: {latitude, longitude}; array: [latitude, longitude]; geohash: ${GEOHASH_PRECISION} characters.`;

export const tripQuerySchema = {
  type: 'object',
  properties: {
    pointsMode: {
      type: 'string',
      enum: POINTS_MODES,
      default: 'polyline',
      description: POINTS_MODE_DESCRIPTION,
    },
  },
  additionalProperties: false,
} as const;

/** The vehicle a trip or matrix answer was made for (calculateTrip's `vehicle`). */
export const appliedVehicleSchema = {
  type: 'object',
  description: 'Only when the request named a vehicle (vehicleType, vehicleSpecification, speedPreferences): its type, the figures the route is legal for (metres, kilograms), whether it drives at heavy vehicles\' speeds and its speed preferences (detour extension).',
  properties: {
    vehicleType: { type: 'string' }, height: { type: 'number' }, width: { type: 'number' }, length: { type: 'number' },
    weight: { type: 'number' }, weightPerAxle: { type: 'number' }, accessClass: { type: 'string', enum: ['hgv', 'goods', 'none'] }, dangerousGoods: { type: 'boolean' },
    heavySpeeds: { type: 'boolean' },
    speedPreferences: { type: 'array', items: { type: 'object', properties: { roadType: { type: 'string' }, speed: { type: 'number' }, speedAtToll: { type: 'number' } } } },
  },
} as const;

export const tripResponseSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    clientId: { type: 'string' },
    calculationMode: { type: 'string' },
    totalDistance: { type: 'number', description: 'metres' },
    totalNominalDuration: { type: 'number', description: 'seconds' },
    averageSpeed: { type: 'number', description: 'km/h' },
    legs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          departureSiteId: { type: ['string', 'null'] },
          arrivalSiteId: { type: ['string', 'null'] },
          distance: { type: 'number' },
          nominalDuration: { type: 'number' },
          averageSpeed: { type: 'number' },
          departureSnapDistance: { type: 'number', description: 'metres from the departure point as sent to the road the leg starts on (detour extension)' },
          arrivalSnapDistance: { type: 'number', description: 'metres from the arrival point as sent to the road the leg ends on (detour extension)' },
          // Left untyped so big routes serialise with JSON.stringify; its shape follows pointsMode.
          points: { description: 'The leg geometry in the requested pointsMode.' },
          restrictionZonesEntered: {
            type: 'array',
            description: 'Only when a stop lies inside (or only behind) zones, or the leg drove through SOFT zones: the zones driven through and the metres inside each.',
            items: { type: 'object', properties: { name: { type: 'string' }, distanceInside: { type: 'number' } } },
          },
          avoidedTypesDriven: {
            type: 'array',
            description: 'Only when the leg drove roads of avoided types (STRONG could not avoid them, RELAXED chose to): metres per type.',
            items: { type: 'object', properties: { type: { type: 'string' }, distance: { type: 'number', description: 'metres' } } },
          },
          turnByTurn: {
            type: 'array',
            description: 'Only when the trip asked for turnByTurn: the instructions of the leg, each for its stretch up to the next; the last is VIA_POINT or, on the last leg, LAST_POINT.',
            items: {
              type: 'object',
              properties: {
                distance: { type: 'number', description: 'metres' },
                type: { type: 'string', enum: STEP_TYPES },
                points: { description: 'The stretch of the leg the step covers, in the requested pointsMode.' },
                text: { type: 'string' },
                duration: { type: 'integer', description: 'milliseconds' },
                exitNumber: { type: 'integer', description: 'ROUNDABOUT: the exit taken' },
              },
            },
          },
          waits: {
            type: 'array',
            description: 'detour extension, only when the leg waits for scheduled zones: where (the road\'s start), from when until when, and seconds (included in nominalDuration).',
            items: {
              type: 'object',
              properties: {
                zone: { type: 'string' }, latitude: { type: 'number' }, longitude: { type: 'number' },
                from: { type: 'string', format: 'date-time' }, until: { type: 'string', format: 'date-time' }, duration: { type: 'number', description: 'seconds' },
              },
            },
          },
        },
      },
    },
    departure: { type: 'string', format: 'date-time', description: 'detour extension: when the trip leaves (startDate, else the request\'s time), when it names scheduled zones or a startDate' },
    vehicle: appliedVehicleSchema,
    createdAt: { type: 'string', format: 'date-time' },
    expiryIn: { type: 'string', format: 'date-time', description: 'until when GET /trip/v1/solutions/{id} answers this solution' },
  },
} as const;

export const tokenQuerySchema = {
  type: 'object',
  properties: { grant_type: { type: 'string', description: 'client_credentials (required; a form field of that name is accepted too)' } },
} as const;

export const tokenResponseSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'string' },
    issued_at: { type: 'string' },
    client_id: { type: 'string' },
    api_product_list: { type: 'string' },
    api_product_list_json: { type: 'array', items: { type: 'string' } },
    organization_name: { type: 'string' },
    'developer.email': { type: 'string' },
    application_name: { type: 'string' },
    scope: { type: 'string' },
    refresh_token_expires_in: { type: 'string' },
    refresh_count: { type: 'string' },
    status: { type: 'string' },
  },
} as const;

export const authHeadersSchema = {
  type: 'object',
  properties: {
    authorization: { type: 'string', description: 'Bearer <access_token>' },
    clientid: { type: 'string', description: 'The client id the token was issued to.' },
  },
} as const;

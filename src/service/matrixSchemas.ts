import { CALCULATION_MODES } from '../routing/routeRequest.js';
import { ZONE_LIMITS } from '../zones/Zone.js';
import { avoidanceTypesSchema, callbackSchema, coordinateSchema, maplinkDateSchema, vehicleSchemas, appliedVehicleSchema } from './schemas.js';

/** Limits of the Matrix API (documented in the README). */
export const MATRIX_LIMITS = {
  /** Most origins, and most destinations, in one problem. */
  sites: 1_000,
  /** Most elements (origins x destinations) of an asynchronous problem. */
  elements: 100_000,
  /** Most elements of a synchronous calculation (POST /matrix/v1/calculations). */
  syncElements: 10_000,
  /** Most zones one problem may name. */
  zones: 100,
  /** Longest siteId. */
  siteIdLength: 200,
  /** Unfinished jobs one client may have (more: 429). */
  openJobsPerClient: 10,
  /** Synchronous matrices waiting for this instance's matrix thread (more: 503). */
  syncQueue: 4,
} as const;

const site = {
  type: 'object',
  properties: {
    siteId: { type: 'string', minLength: 1, maxLength: MATRIX_LIMITS.siteIdLength },
    latitude: coordinateSchema(90),
    longitude: coordinateSchema(180),
  },
  required: ['siteId', 'latitude', 'longitude'],
  additionalProperties: false,
} as const;

export const matrixProblemSchema = {
  type: 'object',
  description:
    `Origins and destinations (1 to ${MATRIX_LIMITS.sites} each, siteIds unique within each list), the names of stored restriction zones to avoid ` +
    `(at most ${MATRIX_LIMITS.zones}), and for an asynchronous problem an optional callback POSTed when the job ends. tripProfile LINEAR gives ` +
    'straight-line distances (no zones or avoidance then); any other profile routes on the graph\'s car profile. startDate is when every element leaves (zones with a schedule). Unknown members are rejected.',
  properties: {
    calculationMode: { type: 'string', enum: CALCULATION_MODES, default: 'THE_FASTEST' },
    origins: { type: 'array', minItems: 1, maxItems: MATRIX_LIMITS.sites, items: site },
    destinations: { type: 'array', minItems: 1, maxItems: MATRIX_LIMITS.sites, items: site },
    restrictionZones: { type: ['array', 'null'], maxItems: MATRIX_LIMITS.zones, items: { type: 'string', minLength: 1, maxLength: ZONE_LIMITS.nameMaxLength } },
    avoidanceTypes: avoidanceTypesSchema,
    avoidanceBehavior: {
      type: 'string',
      enum: ['FAIL'],
      default: 'FAIL',
      description: 'FAIL only: an element that cannot avoid the types fails with AVOIDANCE_IMPOSSIBLE (STRONG and RELAXED are for trips).',
    },
    tripProfile: { type: 'string', maxLength: 200, description: 'MAPLINKBR, MAPLINK, ...: routes on the graph\'s car profile; LINEAR: straight-line distances, durations at 60 km/h.' },
    startDate: { ...maplinkDateSchema, description: 'Departure (epoch milliseconds or ISO-8601; default now): every element leaves then; zones with a schedule apply at the times driven.' },
    vehicleType: vehicleSchemas.vehicleType,
    vehicleSpecification: vehicleSchemas.vehicleSpecification,
    speedPreferences: vehicleSchemas.speedPreferences,
    callback: callbackSchema,
  },
  required: ['origins', 'destinations'],
  additionalProperties: false,
  examples: [{
    calculationMode: 'THE_FASTEST',
    origins: [{ siteId: 'west', latitude: 57.7055, longitude: 11.95 }, { siteId: 'north', latitude: 57.72, longitude: 11.97 }],
    destinations: [{ siteId: 'east', latitude: 57.7055, longitude: 11.985 }, { siteId: 'south', latitude: 57.69, longitude: 11.97 }],
    restrictionZones: ['Centrum'],
  }],
} as const;

const element = {
  type: 'object',
  properties: {
    origin: { type: 'string' },
    destination: { type: 'string' },
    distance: { type: ['number', 'null'], description: 'metres' },
    nominalDuration: { type: ['number', 'null'], description: 'seconds' },
    averageSpeed: { type: ['number', 'null'], description: 'km/h' },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
} as const;

export const matrixSolutionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    clientId: { type: 'string' },
    calculationMode: { type: 'string' },
    elements: { type: 'array', items: element },
    vehicle: appliedVehicleSchema,
    createdAt: { type: 'integer', description: 'epoch milliseconds' },
  },
} as const;

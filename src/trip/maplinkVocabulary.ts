import { ISO_DATE_TIME } from '../routing/RoadSchedule.js';
import { DetourError, ErrorCode } from '../errors.js';
import { STEP_LANGUAGES, type StepLanguage } from '../routing/stepTexts.js';

/**
 * Maplink's request vocabulary (the Trip API's v2 and v1 members, the Matrix API's) that detour
 * reads but does not act on yet: the enums their JSON schemas check, and which values are
 * defaults a request may carry (Maplink's SDK writes `"speedPreferences": []` on every trip) as
 * against values asking for a feature detour lacks (400 UNSUPPORTED_FEATURE, naming the member).
 * The schema is maplink/sdk-java's `trip-schema/` (members, enums, defaults).
 */

/** Maplink's vehicle types (v2 `vehicleType`, `toll.vehicleType`). */
export { VEHICLE_TYPES, type VehicleType } from '../vehicleTypes.js';
import type { VehicleType } from '../vehicleTypes.js';

/** Road types of `speedPreferences` (Maplink's v1 RoadType). */
export { ROAD_TYPES } from '../routing/roadTimes.js';

/** `turnByTurn.language` values: the languages steps are worded in. */
export const TURN_BY_TURN_LANGUAGES = STEP_LANGUAGES;

/** `crossedBorders` levels and reverse geocoding modes. */
export const CROSSED_BORDER_LEVELS = ['NONE', 'CITY', 'STATE'] as const;
export const REVERSE_GEOCODE_MODES = ['NONE', 'START_END', 'START_END_LEGS'] as const;

/** `toll` members' enums. */
export const TOLL_BILLINGS = ['DEFAULT', 'FREE_FLOW'] as const;
export const TRANSPONDER_OPERATORS = ['SEM_PARAR', 'CONECTCAR'] as const;
export const TOLL_TYPES = ['GATE', 'PORTICO', 'TOLL_BOOTH', 'TOLL_GANTRY', 'MUNICIPAL_TOLL_BOOTH', 'ENTRY_GANTRY', 'EXIT_GANTRY'] as const;
export const TOLL_BILLING_TYPES = ['TAG', 'NORMAL', 'ADDITIONAL_AXLE', 'TRAILER_AXLE', 'CRANE_AXLE', 'SUGARCANE_AXLE'] as const;
export const TOLL_PERIODS = ['NORMAL', 'HOLIDAY', 'LOW_SEASON', 'HIGH_SEASON'] as const;

/** `vehicleSpecification.loadTypes` (v1 LoadType). */
export const LOAD_TYPES = [
  'GOODS', 'PERSONS', 'AGRICULTURAL_PRODUCTS', 'COAL', 'BUILDING_PRODUCTS', 'HEATH_WASTES', 'SAND_GRAVELS', 'RAW_MATERIALS', 'NATURAL_RESOURCES',
] as const;

/** The numeric members of `vehicleSpecification` (weights in kilograms, lengths in metres). */
export const VEHICLE_SPECIFICATION_LIMITS = [
  'maxWeight', 'maxWeightPerAxle', 'maxLength', 'maxLengthBetweenAxles', 'maxWidth', 'maxHeight',
  'maxWeightForExplodingMaterials', 'maxWeightForPollutingMaterials', 'maxWeightForDangerousMaterials',
] as const;

/** `freight` members' enums. */
export const FREIGHT_OPERATION_TYPES = ['A', 'B', 'C', 'D'] as const;
export const FREIGHT_GOODS_TYPES = [
  'GRANEL_SOLIDO', 'GRANEL_LIQUIDO', 'FRIGORIFICADA', 'FRIGORIFICADA_OU_AQUECIDA', 'CONTEINERIZADA', 'CARGA_GERAL', 'NEOGRANEL',
  'PERIGOSA_GRANEL_SOLIDO', 'PERIGOSA_GRANEL_LIQUIDO', 'PERIGOSA_FRIGORIFICADA', 'PERIGOSA_FRIGORIFICADA_OU_AQUECIDA',
  'PERIGOSA_CONTEINERIZADA', 'PERIGOSA_CARGA_GERAL', 'GRANEL_PRESSURIZADA',
] as const;

/** A problem with a member of a request: its JSON path and what is wrong (or not supported). */
export interface MemberIssue {
  path: string;
  message: string;
}

/** The Maplink members of a trip request detour reads but does not act on yet (all optional). */
export interface MaplinkTripExtras {
  speedPreferences?: unknown[] | null;
  toll?: object | null;
  crossedBorders?: { level?: string; reverseGeocode?: string } | null;
  freight?: object | null;
  emission?: object | null;
  place?: object | null;
  turnByTurn?: { language?: StepLanguage | null; languageCode?: StepLanguage | null } | null;
  vehicleType?: VehicleType | null;
  vehicleSpecification?: Record<string, unknown> | null;
  avoidanceTypes?: string[] | null;
}

/** DetourError UNSUPPORTED_FEATURE naming the members (`members`: their names, `issues`: each with why). */
export function unsupportedFeature(members: MemberIssue[]): DetourError {
  return new DetourError(ErrorCode.UNSUPPORTED_FEATURE, `not supported yet: ${members.map((m) => `${m.path}: ${m.message}`).join('; ')}`, {
    issues: members,
    members: [...new Set(members.map((m) => m.path.replace(/\[\d+\]$/, '')))],
  });
}

/** FRONTIERS among avoidanceTypes (trips and matrices): the graph knows no country borders. */
export function unsupportedAvoidance(types: readonly string[] | null | undefined): MemberIssue[] {
  const i = types?.indexOf('FRONTIERS') ?? -1;
  return i < 0 ? [] : [{ path: `avoidanceTypes[${i}]`, message: 'FRONTIERS cannot be avoided: the graph knows no country borders' }];
}

/** A member left out, null, or an empty array or object: what Maplink's clients send for "none". */
const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && Object.keys(value as object).length === 0);

/**
 * The members of a trip request (v2 body or v1 payload, already schema-checked) that ask for a
 * feature detour does not implement, each with what is not supported; empty when detour can
 * answer the request as asked. Defaults pass: absent, null, `[]`, `{}`, `crossedBorders` with
 * level and reverse geocoding NONE. `vehicleType`, `vehicleSpecification` and `speedPreferences` are acted on (vehicleOf),
 * as is `turnByTurn` (turnByTurnLanguage).
 */
export function unsupportedTripMembers(request: MaplinkTripExtras): MemberIssue[] {
  const found: MemberIssue[] = [];
  const refuse = (path: string, message: string) => found.push({ path, message });
  found.push(...unsupportedAvoidance(request.avoidanceTypes));
  if (!isEmpty(request.toll)) refuse('toll', 'toll costs are not calculated: the graph holds no toll prices');
  const borders = request.crossedBorders;
  if (!isEmpty(borders) && ((borders!.level ?? 'NONE') !== 'NONE' || (borders!.reverseGeocode ?? 'NONE') !== 'NONE')) {
    refuse('crossedBorders', 'crossed cities and states are not reported: the graph holds no administrative borders');
  }
  if (!isEmpty(request.freight)) refuse('freight', 'freight costs are not calculated');
  if (!isEmpty(request.emission)) refuse('emission', 'emissions are not calculated');
  if (!isEmpty(request.place)) refuse('place', 'places along the route are not searched: the graph holds no points of interest');
  return found;
}

/**
 * The language of a trip's instructions, or undefined when it asks for none. Maplink's SDK sends
 * both `language` and its `languageCode`; one is enough, two must agree, and an object naming
 * neither is refused as Maplink refuses it (TURN_BY_TURN_LANGUAGE_NOT_FOUND).
 */
export function turnByTurnLanguage(request: MaplinkTripExtras): StepLanguage | undefined {
  const t = request.turnByTurn;
  if (t === undefined || t === null) return undefined;
  const language = t.language ?? t.languageCode ?? undefined;
  if (language === undefined) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `turnByTurn.language is required: one of ${STEP_LANGUAGES.join(', ')} (TURN_BY_TURN_LANGUAGE_NOT_FOUND)`, { field: 'turnByTurn.language' });
  }
  if (t.languageCode != null && t.language != null && t.languageCode !== t.language) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `turnByTurn.languageCode (${t.languageCode}) differs from turnByTurn.language (${t.language})`, { field: 'turnByTurn.languageCode' });
  }
  return language;
}

/** A decimal number as Maplink's examples write coordinates in strings ("-23.5666499"). */
const DECIMAL = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * Coordinates given as JSON strings holding a decimal number, as numbers (Maplink's own examples
 * send them so); `problems` gets each one that is not a decimal or is out of range. Numbers pass
 * as they are (the schema checked their range).
 */
export function decimalCoordinate(value: number | string, path: string, max: 90 | 180, problems: MemberIssue[]): number {
  if (typeof value === 'number') return value;
  const n = DECIMAL.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n)) problems.push({ path, message: `must be a number (or a string holding a decimal number), got ${JSON.stringify(value.slice(0, 40))}` });
  else if (n < -max || n > max) problems.push({ path, message: `must be >= ${-max} and <= ${max}, got ${value}` });
  return n;
}

/** `startDate` (trips and matrices): the departure, epoch milliseconds or ISO-8601. */
export function startDateIssues(startDate: number | string | undefined): MemberIssue[] {
  return startDate === undefined || Number.isFinite(maplinkDate(startDate)) ? [] : [{ path: 'startDate', message: 'must be epoch milliseconds or an ISO-8601 date-time' }];
}

/** A date as Maplink takes it (`expireIn`, `startDate`): epoch milliseconds or an ISO-8601 text; NaN when neither. */
export function maplinkDate(value: number | string): number {
  if (typeof value === 'number') return value;
  return ISO_DATE_TIME.test(value) ? Date.parse(value) : NaN;
}

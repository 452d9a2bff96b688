import type { FastifySchemaValidationError } from 'fastify';
import { DetourError, ErrorCode } from '../errors.js';

/** An error with its HTTP status; `body` is sent as is (the shapes differ per API, as Maplink's do). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message ?? body.Error ?? (body.fault as { faultstring?: string } | undefined)?.faultstring ?? statusCode));
  }
}

/** Zone and trip API errors: `{code, message, ...details}`. */
export const apiError = (statusCode: number, code: string, message: string, details: Record<string, unknown> = {}) =>
  new HttpError(statusCode, { code, message, ...details });

/** A body whose bytes are not UTF-8 (utf8Body): refused rather than stored with U+FFFD in their place. */
export const notUtf8 = () => apiError(400, 'INVALID_JSON', 'the body is not valid UTF-8 (JSON text is UTF-8)');

/** Token endpoint errors, as Apigee writes them: `{ErrorCode, Error}`. */
export const oauthError = (statusCode: number, errorCode: string, error: string) => new HttpError(statusCode, { ErrorCode: errorCode, Error: error });

/** Authentication failures, as Apigee writes them: `{fault: {faultstring, detail: {errorcode}}}`. */
export const apigeeFault = (statusCode: number, faultstring: string, errorcode: string, headers: Record<string, string> = {}) =>
  new HttpError(statusCode, { fault: { faultstring, detail: { errorcode } } }, headers);

/** HTTP status per library error code (DetourError), for the zone and trip APIs. */
const STATUS: Record<string, number> = {
  [ErrorCode.INVALID_INPUT]: 400,
  [ErrorCode.INVALID_COORDINATE]: 400,
  [ErrorCode.TOO_FEW_POINTS]: 400,
  [ErrorCode.INVALID_MODE]: 400,
  [ErrorCode.INVALID_AVOIDANCE]: 400,
  [ErrorCode.AVOIDANCE_TYPE_UNSUPPORTED]: 400,
  [ErrorCode.AVOIDANCE_IMPOSSIBLE]: 422,
  [ErrorCode.VEHICLE_NOT_ALLOWED]: 422,
  [ErrorCode.INVALID_VEHICLE]: 400,
  [ErrorCode.UNSUPPORTED_FEATURE]: 400,
  [ErrorCode.INVALID_ZONE]: 400,
  [ErrorCode.ZONE_NOT_FOUND]: 400,
  [ErrorCode.ZONE_NOT_READY]: 409,
  [ErrorCode.ZONE_NOT_USABLE]: 409,
  [ErrorCode.POINT_NOT_ROUTABLE]: 422,
  [ErrorCode.ROUTE_NOT_FOUND]: 422,
};

/** A library error as an API error; undefined for codes that mean a server fault. */
export function fromDetourError(err: DetourError): HttpError | undefined {
  const status = STATUS[err.code];
  if (!status) return undefined;
  const details: Record<string, unknown> = {};
  const d = err.details ?? {};
  if (Array.isArray(d.issues)) details.errors = d.issues;
  if (typeof d.point === 'string') details.point = d.point;
  if (typeof d.leg === 'number') details.leg = d.leg;
  if (Array.isArray(d.avoidanceTypes)) details.avoidanceTypes = d.avoidanceTypes;
  if (Array.isArray(d.members)) details.members = d.members;
  if (typeof d.zone === 'string') details.zones = [d.zone];
  // The library's departure is the APIs' startDate.
  if (typeof d.field === 'string') details.errors = [{ path: d.field === 'departure' ? 'startDate' : d.field, message: err.message.replace(/^departure:/, 'startDate:') }];
  if (Array.isArray(d.limits)) details.limits = d.limits;
  return apiError(status, err.code, err.message, details);
}

/** ajv's findings as `{path, message}` issues, the shape zone validation reports. */
export function schemaIssues(validation: FastifySchemaValidationError[]): Array<{ path: string; message: string }> {
  return validation.map((e) => {
    const params = e.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
    return {
      path: jsonPath(e.instancePath, params.missingProperty ?? params.additionalProperty),
      message: e.keyword === 'additionalProperties' ? 'is not a known member' : e.keyword === 'enum' ? `${e.message}: ${params.allowedValues?.join(', ')}` : e.message ?? 'is invalid',
    };
  });
}

/** ajv's instancePath (`/points/0/latitude`) as the paths zone validation uses (`points[0].latitude`). */
export function jsonPath(instancePath: string, missingProperty?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (missingProperty) parts.push(missingProperty);
  let path = '';
  for (const p of parts) path += /^\d+$/.test(p) ? `[${p}]` : path ? `.${p}` : p;
  return path || '$';
}

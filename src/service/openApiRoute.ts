import type { RouteOptions } from 'fastify';

/** Stable operation ids of the public API (what OpenAPI client generators name their methods after). */
const OPERATION_IDS: Readonly<Record<string, string>> = {
  'POST /oauth/client_credential/accesstoken': 'issueAccessToken',
  'POST /restriction/v1/restrictionZones': 'createRestrictionZone',
  'GET /restriction/v1/restrictionZones': 'listRestrictionZones',
  'GET /restriction/v1/restrictionZones/:name': 'getRestrictionZone',
  'PUT /restriction/v1/restrictionZones/:name': 'replaceRestrictionZone',
  'DELETE /restriction/v1/restrictionZones/:name': 'deleteRestrictionZone',
  'POST /trip/v2/calculations': 'calculateTrip',
  'POST /trip/v1/problems': 'createTripProblem',
  'POST /matrix/v1/problems': 'createMatrixProblem',
  'POST /matrix/v1/calculations': 'calculateMatrix',
  'GET /health': 'getHealth',
};

const apiError = (description: string) => ({ description, $ref: 'ApiError#' });
const fault = (description: string) => ({ description, $ref: 'ApigeeFault#' });

/**
 * Completes a route's schema for the OpenAPI document, in one place for every route (so routes
 * added later get the same): an operationId; for routes behind a token, the bearer token AND the
 * clientId header as security schemes (Swagger UI's Authorize fills both; the header is checked
 * by authenticate(), so it is not listed again as a parameter) and the error answers every such
 * route can give, with their bodies. Answers a route declares itself are kept. Called from an
 * onRoute hook before the routes are registered; changes nothing fastify validates.
 */
export function documentRoute(route: RouteOptions): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema || route.method === 'HEAD' || Array.isArray(route.method)) return;
  const method = route.method;
  schema.operationId ??= OPERATION_IDS[`${method} ${route.url}`] ?? `${method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
  const security = schema.security as Array<Record<string, string[]>> | undefined;
  if (!security?.some((s) => 'bearer' in s)) return;
  schema.security = [{ bearer: [], clientId: [] }];
  delete schema.headers;
  const hasBody = method === 'POST' || method === 'PUT';
  const url = route.url;
  const errors: Record<string, unknown> = {
    400: apiError('Invalid request: every problem with its JSON path (INVALID_REQUEST, INVALID_ZONE, INVALID_JSON, ZONE_NOT_FOUND, ...), a Maplink member detour does not act on yet (UNSUPPORTED_FEATURE), or no clientId header where required (CLIENT_ID_REQUIRED)'),
    401: fault('Missing, unknown, revoked or expired token (invalid_access_token, access_token_expired)'),
    403: fault('The clientId header is not the token\'s client (CLIENT_ID_MISMATCH), or the token lacks this API\'s product'),
    500: apiError('A fault of the service (INTERNAL_ERROR); details only in its log'),
  };
  if (url.includes(':')) errors[404] = apiError('No such zone or job (ZONE_NOT_FOUND, MATRIX_JOB_NOT_FOUND, TRIP_JOB_NOT_FOUND)');
  if (hasBody) {
    errors[413] = apiError('The body is over the size limit (BODY_TOO_LARGE)');
    errors[415] = apiError('The body is not application/json (UNSUPPORTED_MEDIA_TYPE)');
  }
  if (url.startsWith('/restriction/') && hasBody) errors[409] = apiError('The name is taken (ZONE_EXISTS) or the write would pass the client\'s quota (ZONE_QUOTA_EXCEEDED)');
  if (url === '/trip/v2/calculations' || url === '/matrix/v1/calculations') {
    errors[409] = apiError('A named zone is still being calculated (ZONE_NOT_READY) or could not be (ZONE_NOT_USABLE)');
    errors[422] = apiError('A point is far from every road (POINT_NOT_ROUTABLE) or no road connects a leg (ROUTE_NOT_FOUND)');
  }
  if (url === '/trip/v2/calculations' || url === '/trip/v1/problems') errors[422] ??= apiError('A point is far from every road (POINT_NOT_ROUTABLE)');
  if (url === '/matrix/v1/problems') errors[429] = apiError('The client has 10 unfinished matrix jobs (MATRIX_JOBS_LIMIT); Retry-After says when to try again');
  if (url === '/trip/v1/problems') errors[429] = apiError('The client has 10 unfinished trip jobs (TRIP_JOBS_LIMIT); Retry-After says when to try again');
  if (url === '/matrix/v1/calculations') errors[503] = apiError('The instance\'s matrix thread is busy (MATRIX_BUSY); Retry-After says when to try again');
  if (url === '/trip/v2/calculations') errors[503] = apiError('The instance\'s trip threads have too many trips queued (TRIPS_BUSY); Retry-After says when to try again');
  const response = (schema.response ??= {}) as Record<string, Record<string, unknown>>;
  for (const [status, body] of Object.entries(errors) as Array<[string, Record<string, unknown>]>) {
    const declared = response[status];
    if (!declared || Object.keys(declared).length === 0) response[status] = body;
    else declared.description ??= body.description;
  }
}

import formbody from '@fastify/formbody';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import type { ClientRecord, Store } from '../store/Store.js';
import { decoySecretHash, randomToken, tokenHash, verifySecret } from './credentials.js';
import { apigeeFault, HttpError, oauthError } from './httpErrors.js';
import { IssuanceLimit, LimitRefusal, LoginLimits, type Admission } from './loginLimits.js';
import { oauthErrorSchema, tokenQuerySchema, tokenResponseSchema } from './schemas.js';
import { unstorableTextProblem } from '../zones/validateZone.js';
import { VerifiedSecrets } from './verifiedSecrets.js';
import type { ScryptDerive } from './scryptThreads.js';

export interface TokenRoutesOptions {
  store: Store;
  now: () => number;
  tokenLifetimeSeconds: number;
  loginLimits: LoginLimits;
  issuance: IssuanceLimit;
  /** Most scrypt verifications running at once in this process; more get a fast 503. */
  maxConcurrentVerifications: number;
  verified: VerifiedSecrets;
  /** Runs scrypt (ScryptThreads.derive: low-priority threads). */
  derive: ScryptDerive;
  /** Called before each scrypt verification (tests count them). */
  onVerification?: () => void;
}

/**
 * Client ids detour could have issued (its own are 32 base64url characters): anything else, NUL
 * or an overlong id for instance, is refused without a store read or a verification.
 */
const PLAUSIBLE_CLIENT_ID = /^[\x21-\x7e]{1,256}$/;
/** Longest secret verified (characters); detour's are 32. */
const MAX_SECRET_LENGTH = 256;

/** The token response is a credential: never stored by caches (RFC 6749 5.1), success or error. */
const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');

const refused = (refusal: LimitRefusal) => {
  const retryAfter = { 'Retry-After': String(Math.max(1, Math.ceil(refusal.retryMillis / 1000))) };
  return refusal.rule === 'token-issuance'
    ? apigeeFault(429, 'Too many tokens issued to this client; try again later', 'policies.ratelimit.QuotaViolation', retryAfter)
    : apigeeFault(429, 'Too many failed attempts; try again later', 'policies.ratelimit.QuotaViolation', retryAfter);
};

const FORM = 'application/x-www-form-urlencoded';

/**
 * POST /oauth/client_credential/accesstoken: Apigee's client-credentials token endpoint, with its
 * response members and its error shapes, so Maplink clients work unchanged.
 */
export async function tokenRoutes(app: FastifyInstance, options: TokenRoutesOptions): Promise<void> {
  const { store, now, tokenLifetimeSeconds, loginLimits, issuance, verified } = options;
  let verifying = 0;
  /**
   * Verifies with scrypt on a free slot, or refuses at once: waiting would queue CPU work ahead
   * of trips. Returns undefined when every slot is busy.
   */
  const verifyBounded = async (secret: string, secretHash: string): Promise<boolean | undefined> => {
    if (verifying >= options.maxConcurrentVerifications) return undefined;
    verifying++;
    try {
      options.onVerification?.();
      return await verifySecret(secret, secretHash, options.derive);
    } finally {
      verifying--;
    }
  };

  /**
   * The client these credentials belong to, or an HttpError: 401 (wrong, unknown or revoked: one
   * answer for all), 429 (login limits), 503 (no verification slot, or the limits' store is down).
   */
  const verifyCredentials = async (clientId: string, secret: string, address: string, now: number, log: FastifyBaseLogger): Promise<ClientRecord> => {
    const invalid = () => oauthError(401, 'invalid_client', 'Client credentials are invalid');
    const cacheKey = PLAUSIBLE_CLIENT_ID.test(clientId) && secret.length <= MAX_SECRET_LENGTH ? verified.keyOf(clientId, secret) : undefined;
    // A cached verification proves the secret right, so it skips the login limits (it cannot
    // be used to guess) and scrypt; the client is read each time, so revoking takes effect at once.
    const cachedHash = cacheKey === undefined ? undefined : verified.get(cacheKey, now);
    let client = cachedHash === undefined ? undefined : await store.getClient(clientId);
    if (!client || client.secretHash !== cachedHash) {
      let admission: Admission;
      try {
        admission = await loginLimits.admit(clientId, address);
      } catch (err) {
        throw err instanceof LimitRefusal ? refused(err) : unavailable(err, log);
      }
      // Read after admission, so refused attempts cost no store read.
      if (client === undefined && cacheKey !== undefined) client = await store.getClient(clientId);
      const valid = cacheKey === undefined ? false : await verifyBounded(secret, client?.secretHash ?? (await decoySecretHash()));
      if (valid === undefined) {
        // No verification ran, so the attempt is not held against the caller.
        await loginLimits.giveBack(admission).catch((err) => log.warn({ err }, 'could not give back a login attempt'));
        throw apigeeFault(503, 'Too many token requests in verification; retry shortly', 'messaging.adaptors.http.flow.ServiceUnavailable', { 'Retry-After': '1' });
      }
      if (!valid || !client) throw invalid();
      await loginLimits.success(admission).catch((err) => log.warn({ err }, 'could not give back a login attempt'));
      verified.add(cacheKey!, client.secretHash, now);
    }
    if (client.revokedAt !== null) throw invalid();
    return client;
  };

  // Only forms are parsed; any other body (JSON too, even broken JSON) is read as text so the
  // handler answers in Apigee's shape rather than with a generic 400 or 415.
  app.removeAllContentTypeParsers();
  await app.register(formbody);
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post(
    '/oauth/client_credential/accesstoken',
    {
      schema: {
        summary: 'Issue an access token (client credentials)',
        tags: ['Token'],
        querystring: tokenQuerySchema,
        consumes: [FORM],
        body: {
          type: 'object',
          // grant_type is documented once, in the query (a form field of that name is accepted too).
          properties: { client_id: { type: 'string' }, client_secret: { type: 'string' } },
        },
        response: { 200: tokenResponseSchema, 400: oauthErrorSchema, 401: oauthErrorSchema, 429: { $ref: 'ApigeeFault#' }, 503: { $ref: 'ApigeeFault#' } },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      noStore(reply);
      const query = request.query as { grant_type?: string };
      const form = typeof request.body === 'object' && request.body !== null && request.validationError === undefined ? (request.body as Record<string, unknown>) : {};
      const isForm = (request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM);
      const grantType = query.grant_type ?? (isForm ? form.grant_type : undefined);
      if (grantType === undefined || grantType === '') throw oauthError(400, 'invalid_request', 'Required param : grant_type');
      if (grantType !== 'client_credentials') throw oauthError(400, 'unsupported_grant_type', `Unsupported grant type : ${String(grantType)}`);
      if (!isForm) throw oauthError(400, 'invalid_request', `Content-Type must be ${FORM}`);
      for (const field of ['client_id', 'client_secret']) {
        if (typeof form[field] !== 'string' || form[field] === '') throw oauthError(400, 'invalid_request', `Required param : ${field}`);
      }
      const clientId = form.client_id as string;
      const secret = form.client_secret as string;
      // Text no store can hold is a malformed request (400), not an unknown client.
      const unstorable = unstorableTextProblem(clientId);
      if (unstorable) throw oauthError(400, 'invalid_request', `client_id ${unstorable}`);

      const issuedAt = now();
      // The socket may already be gone; the attempt still counts somewhere.
      const client = await verifyCredentials(clientId, secret, request.ip ?? 'unknown', issuedAt, request.log);
      try {
        await issuance.consume(clientId);
      } catch (err) {
        throw err instanceof LimitRefusal ? refused(err) : unavailable(err, request.log);
      }

      const accessToken = randomToken(32);
      await store.saveToken({
        tokenHash: tokenHash(accessToken),
        clientId,
        products: client.products,
        issuedAt,
        expiresAt: issuedAt + tokenLifetimeSeconds * 1000,
      });
      return {
        access_token: accessToken,
        token_type: 'BearerToken',
        expires_in: String(tokenLifetimeSeconds - 1),
        issued_at: String(issuedAt),
        client_id: clientId,
        api_product_list: `[${client.products.join(', ')}]`,
        api_product_list_json: client.products,
        organization_name: client.organizationName,
        'developer.email': client.developerEmail,
        application_name: client.applicationName,
        scope: '',
        refresh_token_expires_in: '0',
        refresh_count: '0',
        status: 'approved',
      };
    },
  );
}

/** A limiter's store failing (PostgreSQL down): the token endpoint cannot count, so it answers 503. */
function unavailable(err: unknown, log: FastifyBaseLogger): HttpError {
  log.error({ err }, 'login limits unavailable');
  return apigeeFault(503, 'The service cannot check login limits now; retry shortly', 'messaging.adaptors.http.flow.ServiceUnavailable', { 'Retry-After': '5' });
}

import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Store } from '../store/Store.js';
import { decoySecretHash, randomToken, tokenHash, verifySecret } from './credentials.js';
import { apigeeFault, oauthError } from './httpErrors.js';
import { oauthErrorSchema, tokenQuerySchema, tokenResponseSchema } from './schemas.js';

export interface FailedLoginLimits {
  /** Failed attempts allowed per client id in the window (default 10). */
  perClient: number;
  /** Failed attempts allowed per remote address in the window (default 50). */
  perAddress: number;
  /** Seconds (default 900). */
  windowSeconds: number;
}

export const DEFAULT_FAILED_LOGIN_LIMITS: FailedLoginLimits = { perClient: 10, perAddress: 50, windowSeconds: 900 };

export interface TokenRoutesOptions {
  store: Store;
  now: () => number;
  tokenLifetimeSeconds: number;
  failedLogins: FailedLoginLimits;
}

const FORM = 'application/x-www-form-urlencoded';

/**
 * POST /oauth/client_credential/accesstoken: Apigee's client-credentials token endpoint, with its
 * response members and its error shapes, so Maplink clients work unchanged.
 */
export async function tokenRoutes(app: FastifyInstance, options: TokenRoutesOptions): Promise<void> {
  const { store, now, tokenLifetimeSeconds } = options;
  const limits = options.failedLogins;
  const perClient = new RateLimiterMemory({ keyPrefix: 'client', points: limits.perClient, duration: limits.windowSeconds });
  const perAddress = new RateLimiterMemory({ keyPrefix: 'address', points: limits.perAddress, duration: limits.windowSeconds });

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
          properties: { client_id: { type: 'string' }, client_secret: { type: 'string' }, grant_type: { type: 'string' } },
        },
        response: { 200: tokenResponseSchema, 400: oauthErrorSchema, 401: oauthErrorSchema, 429: { $ref: 'ApigeeFault#' } },
      },
      attachValidation: true,
    },
    async (request, reply) => {
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

      const [byClient, byAddress] = await Promise.all([perClient.get(clientId), perAddress.get(request.ip)]);
      const blocked = [
        byClient && byClient.consumedPoints >= limits.perClient ? byClient.msBeforeNext : 0,
        byAddress && byAddress.consumedPoints >= limits.perAddress ? byAddress.msBeforeNext : 0,
      ];
      const retryMs = Math.max(...blocked);
      if (retryMs > 0) {
        reply.header('Retry-After', String(Math.ceil(retryMs / 1000)));
        throw apigeeFault(429, 'Too many failed attempts; try again later', 'policies.ratelimit.QuotaViolation');
      }

      const client = await store.getClient(clientId);
      const valid = await verifySecret(secret, client?.secretHash ?? (await decoySecretHash()));
      if (!client || !valid || client.revokedAt !== null) {
        await Promise.all([perClient.penalty(clientId, 1), perAddress.penalty(request.ip, 1)]);
        throw oauthError(401, 'invalid_client', 'Client credentials are invalid');
      }

      const issuedAt = now();
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

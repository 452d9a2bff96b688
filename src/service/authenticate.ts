import type { FastifyRequest } from 'fastify';
import type { TokenStore } from '../store/Store.js';
import { tokenHash, type ApiProduct } from './credentials.js';
import { apiError, apigeeFault } from './httpErrors.js';

/** Who is calling: set on the request by authenticate(). */
export interface Caller {
  clientId: string;
  products: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

const INVALID_TOKEN = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };
const invalidToken = () => apigeeFault(401, 'Invalid Access Token', 'keymanagement.service.invalid_access_token', INVALID_TOKEN);

/**
 * Checks `Authorization: Bearer <token>` (401 when missing, unknown, revoked or expired), the
 * `clientId` header (403 not the token's client; 400 missing where `clientIdHeader` is
 * 'required', as the Restriction Zone API has it: Maplink's Trip and Matrix clients send none, the
 * client is then the token's) and that the token's products include `product` (403). Sets
 * request.caller.
 */
export async function authenticate(request: FastifyRequest, tokens: TokenStore, product: ApiProduct, now: number, clientIdHeader: 'required' | 'optional' = 'required'): Promise<Caller> {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(request.headers.authorization ?? '');
  if (!match) throw invalidToken();
  const token = await tokens.findToken(tokenHash(match[1]));
  if (!token || token.clientRevoked) throw invalidToken();
  if (now >= token.expiresAt) {
    throw apigeeFault(401, 'Access Token expired', 'keymanagement.service.access_token_expired', INVALID_TOKEN);
  }
  const sent = request.headers.clientid;
  if (sent === undefined || sent === '') {
    if (clientIdHeader === 'required') throw apiError(400, 'CLIENT_ID_REQUIRED', 'the clientId header is required (the client id the token was issued to)');
  } else if (sent !== token.clientId) throw apiError(403, 'CLIENT_ID_MISMATCH', 'the clientId header does not match the client the access token was issued to');
  if (!token.products.includes(product)) {
    throw apigeeFault(
      403,
      `Invalid API call as no apiproduct match found: this token's products (${token.products.join(', ')}) do not include ${product}`,
      'keymanagement.service.InvalidAPICallAsNoApiProductMatchFound',
    );
  }
  const caller = { clientId: token.clientId, products: token.products };
  request.caller = caller;
  return caller;
}

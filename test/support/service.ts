import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { RoadGraph } from '../../src/index.js';
import { createService, type ServiceOptions } from '../../src/service/createService.js';
import { MIN_SCRYPT_N, registerClient } from '../../src/service/credentials.js';
import { PostgresStore } from '../../src/store/PostgresStore.js';
import { SqliteStore } from '../../src/store/SqliteStore.js';
import type { Store } from '../../src/store/Store.js';

/** The PostgreSQL the tests use; CI sets DETOUR_REQUIRE_POSTGRES=1 so a missing server fails there. */
export const PG_TEST_URL = process.env.DETOUR_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Undefined when PostgreSQL answers, else the reason to skip (printed), or a throw when required. */
export async function postgresSkipReason(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    const reason = `no PostgreSQL answers at ${PG_TEST_URL} (${(err as Error).message}); set DETOUR_TEST_DATABASE_URL to run the PostgreSQL store tests`;
    if (process.env.DETOUR_REQUIRE_POSTGRES) throw new Error(`DETOUR_REQUIRE_POSTGRES is set but ${reason}`);
    console.log(`# skip: ${reason}`);
    return reason;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A kind of store for the shared suite: open() may be called several times for one shared database. */
export interface StoreKind {
  name: string;
  open(): Promise<Store>;
  /** Removes the database. */
  dispose(): Promise<void>;
}

export function sqliteKind(): StoreKind {
  const dir = mkdtempSync(join(tmpdir(), 'detour-sqlite-'));
  return {
    name: 'SQLite',
    open: async () => new SqliteStore(join(dir, 'detour.sqlite')),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function postgresKind(): StoreKind {
  const schema = `detour_test_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  return {
    name: 'PostgreSQL',
    open: () => PostgresStore.open({ connectionString: PG_TEST_URL, schema }),
    dispose: async () => {
      const client = new pg.Client({ connectionString: PG_TEST_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** A service listening on a free port, with its base URL. */
export interface TestService {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function listen(graph: RoadGraph, store: Store, options: Partial<ServiceOptions> = {}): Promise<TestService> {
  const app = await createService({ graph, store, ...options });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: address, close: () => app.close() };
}

/** A registered client with its secret. */
/**
 * A registered client and its secret. Its secret hash is made at the cheapest scrypt cost
 * (MIN_SCRYPT_N) unless `scryptN` says otherwise: the tests count verifications and limits, and
 * each token request would otherwise cost a scrypt at the service's default cost.
 */
export async function newClient(store: Store, products?: string[], scryptN = MIN_SCRYPT_N) {
  const { client, clientSecret } = await registerClient(store, { applicationName: 'test app', organizationName: 'test org', developerEmail: 'dev@example.com', products }, Date.now(), scryptN);
  return { clientId: client.clientId, clientSecret };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One HTTP request; JSON bodies by default, the response parsed when it is JSON. */
export async function http(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; body?: string } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export const TOKEN_PATH = '/oauth/client_credential/accesstoken';
export const ZONES_PATH = '/restriction/v1/restrictionZones';
export const TRIP_PATH = '/trip/v2/calculations';

/** Requests a token with a form body; returns the whole response. */
export function requestToken(base: string, form: Record<string, string>, query = '?grant_type=client_credentials') {
  return http(`${base}${TOKEN_PATH}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

/** A client's token and the headers its API calls need. */
export async function authorise(base: string, client: { clientId: string; clientSecret: string }) {
  const res = await requestToken(base, { client_id: client.clientId, client_secret: client.clientSecret });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  const token = res.body.access_token as string;
  return { token, headers: { authorization: `Bearer ${token}`, clientid: client.clientId } };
}

/** A loopback server that records the job callbacks POSTed to it (JSON body and Authorization header). */
export async function callbackReceiver() {
  const received: Array<{ body: unknown; authorization?: string }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      received.push({ body: JSON.parse(text), authorization: req.headers.authorization });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { received, url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, close: () => server.close() };
}

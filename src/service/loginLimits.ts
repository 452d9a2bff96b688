import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { MessagePort } from 'node:worker_threads';
import type pg from 'pg';
import { PortRequests } from '../workerThread.js';
import {
  RateLimiterCluster, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/** How many token requests may fail, counted before each verification (not after: see admit()). */
export interface FailedLoginLimits {
  /** Attempts per client id from one address in the window (default 10); then that pair waits for the window. */
  perClientAddress: number;
  /** Attempts per address over all client ids in the window (default 50); then that address waits. */
  perAddress: number;
  /**
   * Attempts per client id from addresses it has never logged in from, over all of them, in the
   * window (default 100); beyond it such attempts are paced (one per delay, the delay doubling
   * from 1 s up to maxDelaySeconds), never banned, and addresses the client logged in from
   * before are not paced at all: strangers cannot lock a client out.
   */
  perClient: number;
  /** Seconds (default 900). */
  windowSeconds: number;
  /** Longest pause between paced attempts of one client id, seconds (default 30). */
  maxDelaySeconds: number;
  /** How long an address stays known after a successful login, seconds (default 7 days). */
  knownAddressSeconds: number;
}

export const DEFAULT_FAILED_LOGIN_LIMITS: FailedLoginLimits = {
  perClientAddress: 10,
  perAddress: 50,
  perClient: 100,
  windowSeconds: 900,
  maxDelaySeconds: 30,
  knownAddressSeconds: 7 * 24 * 3600,
};

/**
 * Where the counts live: this process, the cluster's primary (RateLimiterClusterMaster), the
 * process's main thread for service threads (serveLimits at the other end of `port`), or PostgreSQL.
 */
export type LimitBackend = { kind: 'memory' } | { kind: 'cluster' } | { kind: 'thread'; limits: LimitsOverPort } | { kind: 'postgres'; pool: pg.Pool };

/** What the limits call on a counter: rate-limiter-flexible's limiters, or LimitsOverPort's. */
type Limiter = Pick<RateLimiterAbstract, 'consume' | 'get' | 'penalty' | 'reward'>;

/** The PostgreSQL table of the counts (created when missing, in the pool's search_path). */
export const LIMITS_TABLE = 'detour_login_limits';

/** A refusal: which rule, and when to come back (milliseconds). */
export class LimitRefusal {
  constructor(
    readonly rule: 'client-address' | 'address' | 'client-pace' | 'token-issuance',
    readonly retryMillis: number,
  ) {}
}

/** What admit() counted, so success() can give it back. */
export interface Admission {
  clientId: string;
  address: string;
  counted: Limiter[];
}

/**
 * Keys are hashes so any client id or forwarded address has a bounded key (PostgreSQL's key
 * column is varchar(255) and rejects NUL) and the table names no client.
 */
const keyOf = (...parts: string[]) => {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(`${p.length}:${p}`);
  return hash.digest('base64url');
};

/**
 * The unit an address is counted in: an IPv4 address (also when IPv4-mapped), or the /64 prefix
 * of an IPv6 address, since one subscriber usually holds a whole /64 and could otherwise rotate
 * through it. Anything else (a name from a proxy) as it is.
 */
export function addressUnit(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIPv6(address)) {
    const [head, tail = ''] = address.toLowerCase().split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    // An embedded IPv4 tail takes two groups; it only ever sits in the low 64 bits.
    const rightGroups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
    const groups = address.includes('::') ? [...left, ...Array(8 - left.length - rightGroups).fill('0'), ...right] : left;
    return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
  }
  return address;
}

const isRefusal = (err: unknown): err is RateLimiterRes => err instanceof RateLimiterRes;

/**
 * The login limits of the token endpoint on one backend. Every attempt is counted atomically
 * BEFORE its secret is verified, so a burst of concurrent guesses gets at most the budget of
 * verifications; a successful login gives its counts back.
 */
export class LoginLimits {
  private constructor(
    readonly rules: FailedLoginLimits,
    private readonly clientAddress: Limiter,
    private readonly address: Limiter,
    private readonly client: Limiter,
    private readonly clientPace: Limiter,
    private readonly knownAddress: Limiter,
  ) {}

  /** The limiters on `backend` (on PostgreSQL once their table exists). */
  static async create(rules: FailedLoginLimits, backend: LimitBackend): Promise<LoginLimits> {
    const w = rules.windowSeconds;
    const specs = [
      { keyPrefix: 'login_client_address', points: rules.perClientAddress, duration: w },
      { keyPrefix: 'login_address', points: rules.perAddress, duration: w },
      { keyPrefix: 'login_client', points: rules.perClient, duration: w },
      { keyPrefix: 'login_client_pace', points: 1, duration: 1 },
      { keyPrefix: 'login_known_address', points: 1, duration: rules.knownAddressSeconds },
    ];
    const limiters = await Promise.all(specs.map((spec) => makeLimiter(spec, backend)));
    return new LoginLimits(rules, ...(limiters as [Limiter, Limiter, Limiter, Limiter, Limiter]));
  }

  /**
   * Counts one attempt of `clientId` from `remoteAddress` (IPv6 by /64: addressUnit), or refuses it (LimitRefusal) without
   * counting further rules. The address rule is counted first so a blocked address creates no
   * keys for the client ids it sprays.
   */
  async admit(clientId: string, remoteAddress: string): Promise<Admission> {
    const address = addressUnit(remoteAddress);
    const counted: Limiter[] = [];
    const admission = { clientId, address, counted };
    const pair = keyOf(clientId, address);
    try {
      await this.address.consume(keyOf(address));
      counted.push(this.address);
      await this.clientAddress.consume(pair);
      counted.push(this.clientAddress);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      throw new LimitRefusal(counted.length === 0 ? 'address' : 'client-address', err.msBeforeNext);
    }
    if (await this.knownAddress.get(pair)) return admission;
    const client = keyOf(clientId);
    const failures = await this.client.penalty(client, 1);
    counted.push(this.client);
    const excess = failures.consumedPoints - this.rules.perClient;
    if (excess > 0) {
      const delay = Math.min(this.rules.maxDelaySeconds, 2 ** Math.min(20, Math.floor(Math.log2(excess))));
      try {
        await this.clientPace.consume(client, 1, { customDuration: delay });
      } catch (err) {
        if (!isRefusal(err)) throw err;
        throw new LimitRefusal('client-pace', err.msBeforeNext);
      }
    }
    return admission;
  }

  /** The secret was right: the attempt's counts are given back and the address becomes known for the client. */
  async success(admission: Admission): Promise<void> {
    await Promise.all([this.giveBack(admission), this.knownAddress.penalty(keyOf(admission.clientId, admission.address), 1)]);
  }

  /** Gives back what admit() counted (the secret was right, or it was never verified). */
  async giveBack(admission: Admission): Promise<void> {
    const keys = new Map<Limiter, string>([
      [this.address, keyOf(admission.address)],
      [this.clientAddress, keyOf(admission.clientId, admission.address)],
      [this.client, keyOf(admission.clientId)],
    ]);
    await Promise.all(admission.counted.map((limiter) => limiter.reward(keys.get(limiter)!, 1)));
  }
}

/** Successful token issuance per client id. */
export interface TokenIssuanceLimit {
  /** Tokens per client id in the window (default 120). */
  perClient: number;
  /** Seconds (default 3,600). */
  windowSeconds: number;
}

export const DEFAULT_TOKEN_ISSUANCE_LIMIT: TokenIssuanceLimit = { perClient: 120, windowSeconds: 3600 };

/** Counts issued tokens per client id; checked only after the secret is verified, so only the client itself can use it up. */
export class IssuanceLimit {
  private constructor(private readonly limiter: Limiter) {}

  /** The issuance counter on `backend` (windowSeconds in seconds). */
  static async create(rule: TokenIssuanceLimit, backend: LimitBackend): Promise<IssuanceLimit> {
    return new IssuanceLimit(await makeLimiter({ keyPrefix: 'token_issuance', points: rule.perClient, duration: rule.windowSeconds }, backend));
  }

  /** Counts one token for `clientId`, or throws LimitRefusal. */
  async consume(clientId: string): Promise<void> {
    try {
      await this.limiter.consume(keyOf(clientId));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      throw new LimitRefusal('token-issuance', err.msBeforeNext);
    }
  }
}

interface LimiterSpec {
  keyPrefix: string;
  points: number;
  /** Seconds. */
  duration: number;
}

async function makeLimiter(spec: LimiterSpec, backend: LimitBackend): Promise<Limiter> {
  switch (backend.kind) {
    case 'memory':
      return new RateLimiterMemory(spec);
    case 'cluster':
      return new RateLimiterCluster({ ...spec, timeoutMs: 2000 });
    case 'thread':
      return backend.limits.limiter(spec);
    case 'postgres':
      await ensureLimitsTable(backend.pool);
      return new RateLimiterPostgres({ ...spec, storeClient: backend.pool, storeType: 'pool', tableName: LIMITS_TABLE, tableCreated: true });
  }
}

const tablesReady = new WeakMap<pg.Pool, Promise<void>>();

/**
 * Creates the counts table once per pool. Concurrent CREATE TABLE IF NOT EXISTS (several
 * limiters, or instances starting together) can still fail with 23505 or 42P07 in PostgreSQL:
 * both mean another session created it.
 */
function ensureLimitsTable(pool: pg.Pool): Promise<void> {
  let ready = tablesReady.get(pool);
  if (!ready) {
    ready = pool
      .query(`CREATE TABLE IF NOT EXISTS ${LIMITS_TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`)
      .then(
        () => undefined,
        (err: { code?: string }) => {
          if (err.code !== '23505' && err.code !== '42P07') throw err;
        },
      );
    ready.catch(() => tablesReady.delete(pool));
    tablesReady.set(pool, ready);
  }
  return ready;
}

/** A counter operation as a service thread posts it to serveLimits (LimitsOverPort). */
interface LimitCall {
  id: number;
  spec: LimiterSpec;
  op: 'consume' | 'get' | 'penalty' | 'reward';
  key: string;
  points?: number;
  customDuration?: number;
}

/** serveLimits' answer: the counter's state, whether the operation was refused, or a failure. */
type LimitAnswer = { id: number; res: RateLimiterResFields | null; refused?: true } | { id: number; error: string };

type RateLimiterResFields = Pick<RateLimiterRes, 'remainingPoints' | 'msBeforeNext' | 'consumedPoints' | 'isFirstInDuration'>;

const resOf = (f: RateLimiterResFields) => new RateLimiterRes(f.remainingPoints, f.msBeforeNext, f.consumedPoints, f.isFirstInDuration);
const fieldsOf = (r: RateLimiterRes): RateLimiterResFields => ({ remainingPoints: r.remainingPoints, msBeforeNext: r.msBeforeNext, consumedPoints: r.consumedPoints, isFirstInDuration: r.isFirstInDuration });

/**
 * The counters of the process's main thread (serveLimits) as a service thread uses them, so every
 * thread of `serve --workers N` counts against the same limits (rate-limiter-flexible's cluster
 * limiter speaks to a cluster primary, not to threads). A refusal rejects with a RateLimiterRes, as
 * the library's limiters do; no answer within 2 s rejects with an Error.
 */
export class LimitsOverPort {
  private readonly requests: PortRequests<LimitAnswer>;

  constructor(port: MessagePort) {
    this.requests = new PortRequests(port);
  }

  /** The counter of `spec` (the main thread makes it on first use). */
  limiter(spec: LimiterSpec): Limiter {
    const call = (op: LimitCall['op'], key: string | number, points?: number, customDuration?: number) => this.call({ spec, op, key: String(key), points, customDuration });
    return {
      consume: (key, points = 1, options) => call('consume', key, points, options?.customDuration) as Promise<RateLimiterRes>,
      get: (key) => call('get', key),
      penalty: (key, points = 1) => call('penalty', key, points) as Promise<RateLimiterRes>,
      reward: (key, points = 1) => call('reward', key, points) as Promise<RateLimiterRes>,
    };
  }

  private async call(message: Omit<LimitCall, 'id'>): Promise<RateLimiterRes | null> {
    const answer = await this.requests.request(message, 2000);
    if ('error' in answer) throw new Error(answer.error);
    const res = answer.res && resOf(answer.res);
    if (answer.refused) throw res;
    return res;
  }
}

/**
 * The counters of a process's service threads, on its main thread: answers LimitsOverPort's
 * calls arriving on `port` from in-memory limiters, one per kind of count, shared by every port
 * served with the same `limiters` map.
 */
export function serveLimits(port: MessagePort, limiters: Map<string, RateLimiterMemory>): void {
  port.on('message', (call: LimitCall) => {
    let limiter = limiters.get(call.spec.keyPrefix);
    if (!limiter) limiters.set(call.spec.keyPrefix, (limiter = new RateLimiterMemory(call.spec)));
    const done = (res: RateLimiterRes | null, refused?: true) => port.postMessage({ id: call.id, res: res && fieldsOf(res), ...(refused && { refused }) } satisfies LimitAnswer);
    const op = call.op === 'get' ? limiter.get(call.key)
      : call.op === 'consume' ? limiter.consume(call.key, call.points, call.customDuration === undefined ? {} : { customDuration: call.customDuration })
        : limiter[call.op](call.key, call.points);
    op.then((res) => done(res), (err: unknown) => {
      if (isRefusal(err)) done(err, true);
      else port.postMessage({ id: call.id, error: (err as Error)?.message ?? String(err) } satisfies LimitAnswer);
    });
  });
}

import type { FastifyBaseLogger } from 'fastify';
import { DetourError } from '../errors.js';
import type { Job, JobKind, Store } from '../store/Store.js';
import { HttpError } from './httpErrors.js';

/** Computes a job's solution as JSON text; throws DetourError or HttpError for problems of the request. */
export type JobSolver = (job: Job) => Promise<string>;

/** Where a job's end is POSTed (Maplink's callback member). */
export interface JobCallback {
  url: string;
  user?: string;
  password?: string;
}

export interface JobsOptions {
  store: Store;
  /** How each kind of job is solved. */
  solvers: Record<JobKind, JobSolver>;
  now: () => number;
  log: FastifyBaseLogger;
  /**
   * How long a taken job is this instance's before another may take it up (default 15 s); renewed
   * every third of it while the job runs, so only a dead instance's jobs pass to another.
   */
  leaseMillis?: number;
  /** How often the instance looks for jobs posted elsewhere (default 1 s). */
  pollMillis?: number;
  /** Takers a job may have before it FAILS (default 3). */
  maxAttempts?: number;
  /** Callback attempts (default 3) and the time each may take (default 5 s). */
  callbackAttempts?: number;
  callbackTimeoutMillis?: number;
  /**
   * The name this instance takes jobs up under, the same when it starts again (serve: the host,
   * port and worker); at start it takes back at once the jobs a predecessor of that name left
   * PROCESSING. Unnamed: such jobs wait for their leases.
   */
  taker?: string;
}

/**
 * Takes up jobs (matrices, asynchronous trips) from the store, one at a time per instance, and
 * solves them with their kind's solver: jobs posted here start at once (poke), jobs posted on
 * other instances or left by a dead one (its lease, renewed while it lived, run out) within a
 * poll. The store makes each job one taker's.
 */
export class Jobs {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  private readonly leaseMillis: number;
  private readonly pollMillis: number;
  private readonly maxAttempts: number;

  constructor(private readonly options: JobsOptions) {
    this.leaseMillis = options.leaseMillis ?? 15_000;
    this.pollMillis = options.pollMillis ?? 1000;
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  start(): void {
    this.stopped = false;
    const { store, now, log, taker } = this.options;
    if (!taker) return this.poke();
    store.releaseJobsOf(taker, now()).then(
      (released) => { if (released > 0) log.info(`jobs: took back ${released} job(s) left under way by ${taker} before it stopped`); },
      (err: unknown) => log.warn({ err }, 'jobs: could not take back the jobs of a stopped predecessor (they wait for their leases)'),
    ).finally(() => this.poke());
  }

  /** Looks for jobs now (after a POST on this instance). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) { this.again = true; return; }
    clearTimeout(this.timer);
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) { this.again = false; this.poke(); return; }
      this.timer = setTimeout(() => this.poke(), this.pollMillis);
      this.timer.unref();
    });
  }

  /** Stops taking jobs and waits for the one running (its lease lets another instance finish it if this one dies). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    const { store, now, log } = this.options;
    try {
      await store.deleteExpiredJobs(now());
      for (;;) {
        if (this.stopped) return;
        const job = await store.claimJob(now(), this.leaseMillis, this.maxAttempts, this.options.taker);
        if (!job) return;
        await this.run(job);
      }
    } catch (err) {
      log.error({ err }, 'jobs: the store failed; retrying at the next poll');
    }
  }

  private async run(job: Job): Promise<void> {
    const { store, now, log } = this.options;
    let outcome: { solutionJson: string } | { failure: string };
    // The lease is renewed while the job runs: a job outliving one lease is still this instance's.
    const renewal = setInterval(() => {
      store.renewJobLease(job.id, now(), this.leaseMillis).catch((err: unknown) => log.warn({ err, job: job.id }, 'jobs: could not renew a lease'));
    }, this.leaseMillis / 3);
    try {
      outcome = { solutionJson: await this.options.solvers[job.kind](job) };
    } catch (err) {
      // Problems of the request (zones deleted or unusable since it was posted) fail the job with
      // their message; anything else is logged and the job fails without internals.
      if (err instanceof DetourError || err instanceof HttpError) outcome = { failure: err.message };
      else {
        log.error({ err, job: job.id, kind: job.kind }, 'job failed');
        outcome = { failure: 'internal error; the service log has the details' };
      }
    } finally {
      clearInterval(renewal);
    }
    const finished = await store.finishJob(job.id, outcome, now());
    // Every kind keeps its callback at the top of its stored request.
    const callback = (job.request as { callback?: JobCallback }).callback;
    if (finished && callback) void this.callBack(job, callback, 'solutionJson' in outcome ? 'SOLVED' : 'FAILED');
  }

  /** POSTs {id, status} to the job's callback, retrying with a growing pause; failures are logged only. */
  private async callBack(job: Job, callback: JobCallback, status: string): Promise<void> {
    const attempts = this.options.callbackAttempts ?? 3;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (callback.user !== undefined || callback.password !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${callback.user ?? ''}:${callback.password ?? ''}`).toString('base64')}`;
    }
    for (let i = 0; i < attempts; i++) {
      try {
        const res = await fetch(callback.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ id: job.id, jobId: job.id, status }),
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.callbackTimeoutMillis ?? 5000),
        });
        if (res.status < 300) return;
        this.options.log.warn({ job: job.id, kind: job.kind, status: res.status }, 'job callback answered with an error');
      } catch (err) {
        this.options.log.warn({ job: job.id, kind: job.kind, err: (err as Error).message }, 'job callback failed');
      }
      await new Promise((r) => setTimeout(r, 500 * 2 ** i).unref());
    }
  }
}

/**
 * A request's callback: only an asynchronous problem (posted to `endpoint`) takes one, at a URL
 * callbackProblem accepts.
 */
export function callbackIssues(callback: JobCallback | undefined, asynchronous: boolean, endpoint: string, hosts?: string[]): Array<{ path: string; message: string }> {
  if (!callback) return [];
  if (!asynchronous) return [{ path: 'callback', message: `only asynchronous problems (POST ${endpoint}) call back` }];
  const problem = callbackProblem(callback.url, hosts);
  return problem ? [{ path: 'callback.url', message: problem }] : [];
}

/** Why a callback URL is refused, or undefined: http(s) only, no credentials in it, and a listed host when a list is set. */
export function callbackProblem(url: string, hosts?: string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must be http or https, got ${parsed.protocol.replace(':', '')}`;
  if (parsed.username || parsed.password) return 'must not hold credentials: use callback.user and callback.password';
  if (hosts && !hosts.includes(parsed.hostname.toLowerCase()) && !hosts.includes(parsed.host.toLowerCase())) {
    return `host ${parsed.host} is not among the allowed callback hosts (DETOUR_MATRIX_CALLBACK_HOSTS)`;
  }
  return undefined;
}

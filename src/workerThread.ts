import { setPriority } from 'node:os';
import { isMainThread, type MessagePort, Worker, type WorkerOptions } from 'node:worker_threads';

/** Nice value of background threads (zone calculations, matrices, scrypt): below the event loop's. */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the CPU priority of the calling worker thread, so on a busy machine it takes the CPU the
 * event loop leaves rather than a share of it (trips and /health stay fast while a large zone or
 * a matrix is worked on). Linux only: there setpriority(PRIO_PROCESS, 0) changes the calling
 * thread alone; elsewhere it would lower the whole process, so nothing is done. Never on the main
 * thread; a refusal (a process already niced further, without the right to lower it) is ignored.
 */
export function lowerThreadPriority(nice = BACKGROUND_NICE): void {
  if (isMainThread || process.platform !== 'linux') return;
  try {
    setPriority(0, nice);
  } catch {
    // Not permitted: the thread keeps the process's priority.
  }
}

/**
 * Starts a worker thread on the module `name` (without extension) beside `from` (the caller's
 * import.meta.url): its .js twin when running compiled, its .ts source under tsx (the benches, a
 * test file run from its source). A worker does not inherit tsx's loader and Node 20 ignores
 * --import in a worker's execArgv, so from sources the worker registers tsx before importing the
 * module, a loader of its own for each thread.
 */
export function startModuleWorker(from: string, name: string, workerData: unknown, options: Pick<WorkerOptions, 'transferList' | 'resourceLimits'> = {}): Worker {
  if (from.endsWith('.ts')) {
    const source = new URL(`./${name}.ts`, from).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(source)}); })`;
    return new Worker(boot, { ...options, eval: true, workerData });
  }
  return new Worker(new URL(`./${name}.js`, from), { ...options, workerData });
}

/**
 * Requests and their replies over a worker thread or a MessagePort: request() posts {id,
 * ...message} and resolves with the reply carrying that id. The endpoint keeps the process alive
 * only while a reply is awaited; a port closed at the other end rejects every waiting request.
 */
export class PortRequests<Reply extends { id: number }> {
  private readonly waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>();
  private nextId = 1;
  /** Kept referenced whatever is awaited (a thread being stopped). */
  protected held = false;

  constructor(private readonly endpoint: Worker | MessagePort) {
    const answered = (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0 && !this.held) endpoint.unref();
      waiter?.resolve(reply);
    };
    if (endpoint instanceof Worker) endpoint.on('message', answered);
    else endpoint.on('message', answered).on('close', () => this.failAll('the other end of the port closed'));
    // After the listener: adding a 'message' listener refs the endpoint again.
    endpoint.unref();
  }

  /** Posts `message` with a new id; resolves with its reply, or rejects after `timeoutMillis` when given. */
  request(message: Record<string, unknown>, timeoutMillis?: number): Promise<Reply> {
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      if (timeoutMillis !== undefined) {
        timer = setTimeout(() => {
          this.waiting.delete(id);
          reject(new Error(`no answer within ${timeoutMillis} ms`));
        }, timeoutMillis);
      }
      this.waiting.set(id, { resolve: (reply) => { clearTimeout(timer); resolve(reply); }, reject });
      this.endpoint.ref(); // a request under way keeps the process alive
      this.endpoint.postMessage({ ...message, id });
    });
  }

  /** Requests posted and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Rejects every waiting request. */
  protected failAll(reason: string): void {
    for (const { reject } of this.waiting.values()) reject(new Error(reason));
    this.waiting.clear();
  }
}

/**
 * Requests over one worker thread (PortRequests); when the thread fails or stops, every waiting
 * request rejects and `gone` is called (so the owner starts a new one next time).
 */
export class WorkerRequests<Reply extends { id: number }> extends PortRequests<Reply> {
  constructor(readonly worker: Worker, gone: () => void) {
    super(worker);
    const stopped = (reason: string) => {
      this.failAll(reason);
      gone();
    };
    worker.on('error', (err) => stopped(`worker thread failed: ${err.message}`));
    worker.on('exit', () => stopped('worker thread stopped'));
  }

  /** Stops the thread; waiting requests reject. Held while it stops: an unreferenced thread's exit would not keep the process waiting for it. */
  async close(): Promise<void> {
    this.held = true; // a reply arriving meanwhile must not unreference it again
    this.worker.ref();
    await this.worker.terminate();
  }
}

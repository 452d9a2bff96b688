import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` (without extension) beside `from` (the caller's
 * import.meta.url): its .js twin when running compiled, its .ts source under tsx (tests, bench).
 * A worker does not inherit tsx's loader and Node 20 ignores --import in a worker's execArgv,
 * so from sources the worker registers tsx before importing the module.
 */
export function startModuleWorker(from: string, name: string, workerData: unknown): Worker {
  if (from.endsWith('.ts')) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL(`./${name}.ts`, from).href;
    const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(boot, { eval: true, workerData });
  }
  return new Worker(new URL(`./${name}.js`, from), { workerData });
}

/**
 * The entry of one `serve --workers N` worker process (forked by startCluster): a whole service on
 * the shared port. SIGTERM (forwarded by the primary) or SIGINT (a terminal's Ctrl-C reaches the
 * whole process group) stops taking requests, finishes those in flight and exits 0.
 */
import { DetourError } from '../errors.js';
import { WORKER_CONFIG_ENV, WORKER_SLOT_ENV, type WorkerStartFailed } from './serveCluster.js';
import { startService, type ServeConfig } from './startService.js';

const config = JSON.parse(process.env[WORKER_CONFIG_ENV] ?? 'null') as ServeConfig | null;
if (!config) {
  process.stderr.write(`detour: this is a worker of \`detour serve --workers N\`, started by its primary (${WORKER_CONFIG_ENV} is unset)\n`);
  process.exit(1);
}

try {
  const service = await startService(config, { clusterWorker: true, workerSlot: Number(process.env[WORKER_SLOT_ENV] ?? 0) });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info(`${signal}: worker finishing requests in flight, then stopping`);
    service.close().then(
      () => process.exit(0),
      (err) => {
        service.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  const failed: WorkerStartFailed = err instanceof DetourError ? { type: 'detour:start-failed', code: err.code, message: err.message } : { type: 'detour:start-failed', message: (err as Error).message };
  process.send!(failed, () => process.exit(1));
}

/**
 * A detour service alone in a process, for benchmarks that time it from outside (the load and the
 * timing clients stay in the parent). Forked with IPC: sends {url, clientId, clientSecret} once
 * listening, exits on 'exit'. Usage: fork('bench/serviceChild.ts', [dataDir], { execArgv: ['--import', 'tsx'] }).
 */
import { configFromEnv, registerClient, startService } from '../src/service/index.js';

const dataDir = process.argv[2];
if (!dataDir || !process.send) throw new Error('fork me with a data directory and IPC');
const service = await startService({ ...configFromEnv({}), port: 0, dataDir, logLevel: 'silent', workers: 1, demoClient: false });
const { client, clientSecret } = await registerClient(service.store, { applicationName: 'bench' });
process.on('message', async (m) => {
  if (m !== 'exit') return;
  await service.close();
  process.exit(0);
});
process.send({ url: service.url, clientId: client.clientId, clientSecret });

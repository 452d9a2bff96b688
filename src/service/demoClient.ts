import { isIP } from 'node:net';
import type { ClientRecord, ClientStore } from '../store/Store.js';
import { registerClient } from './credentials.js';

/** The application name of the demo client (how it is recognised later). */
export const DEMO_CLIENT_NAME = 'detour demo';

export interface DemoClientOptions {
  /** The address the service listens on (HOST). */
  host: string;
  /**
   * DETOUR_DEMO_CLIENT: true creates one even off loopback, false never; undefined (default):
   * only when the service listens on a loopback address, where only this machine can use it.
   */
  enabled?: boolean;
  /** Where the one-time credentials go: plain text to stdout by default, never the structured log. */
  print?: (line: string) => void;
}

export interface DemoClientResult {
  /** The client created now, with its secret (the only time it exists in clear). */
  created?: { clientId: string; clientSecret: string };
  /** Why none was created: 'clients exist', 'disabled' or 'not loopback'. */
  skipped?: 'clients exist' | 'disabled' | 'not loopback';
  /** Active demo clients while the service listens beyond loopback: worth revoking. */
  exposedDemoClients: ClientRecord[];
}

/** True for 127.0.0.0/8, ::1, ::ffff:127.x and "localhost". */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || /^(0+:){7}0*1$/.test(h);
  return false;
}

/**
 * Creates a demo client on a store with no clients, when allowed (see DemoClientOptions.enabled),
 * and prints its id and secret once. Also reports active demo clients when the service listens
 * beyond loopback, so the caller can warn. Called by `serve` and the cluster primary.
 */
export async function ensureDemoClient(store: ClientStore, options: DemoClientOptions): Promise<DemoClientResult> {
  const loopback = isLoopback(options.host);
  const clients = await store.listClients();
  const exposedDemoClients = loopback ? [] : clients.filter((c) => c.applicationName === DEMO_CLIENT_NAME && c.revokedAt === null);
  if (clients.length > 0) return { skipped: 'clients exist', exposedDemoClients };
  if (options.enabled === false) return { skipped: 'disabled', exposedDemoClients };
  if (options.enabled === undefined && !loopback) return { skipped: 'not loopback', exposedDemoClients };
  const { client, clientSecret } = await registerClient(store, { applicationName: DEMO_CLIENT_NAME, organizationName: 'detour' });
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  print(
    `no clients yet: created a demo client (shown only now; \`detour clients add\` makes more, \`detour clients revoke\` removes it)\n` +
      `  client_id=${client.clientId}\n  client_secret=${clientSecret}`,
  );
  return { created: { clientId: client.clientId, clientSecret }, exposedDemoClients };
}

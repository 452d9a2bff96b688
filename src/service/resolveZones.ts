import type { Store } from '../store/Store.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { unstorableTextProblem } from '../zones/validateZone.js';
import type { ZoneCache } from '../zones/ZoneCache.js';
import { apiError } from './httpErrors.js';
import { zoneSource } from './zoneRoutes.js';

/**
 * Zone names from a request body (`field`, e.g. "restrictionZones"), NFC-normalised as stored
 * names are; 400 naming each entry no store can hold (NUL, lone surrogates), before any query.
 */
export function zoneNames(names: string[], field = 'restrictionZones'): string[] {
  const errors: Array<{ path: string; message: string }> = [];
  names.forEach((name, i) => {
    const problem = unstorableTextProblem(name);
    if (problem) errors.push({ path: `${field}[${i}]`, message: problem });
  });
  if (errors.length > 0) throw apiError(400, 'INVALID_REQUEST', `invalid body: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
  return names.map((name) => name.normalize('NFC'));
}

/**
 * The caller's zones by name, calculated for this graph (400 ZONE_NOT_FOUND naming the unknown
 * ones). Read from the store each time, so a zone changed through another instance is used at
 * once (its new revision is recalculated); a zone still calculating is waited for up to
 * `waitMillis`, then handed over as IN_CALCULATION (the router answers ZONE_NOT_READY).
 */
export async function resolveZones(store: Store, zones: ZoneCache, clientId: string, names: string[], waitMillis: number): Promise<CalculatedZone[]> {
  const wanted = [...new Set(names)];
  const stored = await store.getZones(clientId, wanted);
  const missing = wanted.filter((n) => !stored.some((z) => z.name === n));
  if (missing.length > 0) {
    throw apiError(400, 'ZONE_NOT_FOUND', `unknown restriction zone${missing.length > 1 ? 's' : ''}: ${missing.map((n) => JSON.stringify(n)).join(', ')}`, { zones: missing });
  }
  return Promise.all(
    stored.map(async (z) => {
      const source = zoneSource(z);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<CalculatedZone>((resolve) => {
        timer = setTimeout(() => resolve(zones.current(source)), waitMillis);
      });
      try {
        return await Promise.race([zones.settled(source), timeout]);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

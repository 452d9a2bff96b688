import type { Store } from '../store/Store.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { unstorableTextProblem } from '../zones/validateZone.js';
import type { ZoneCache, ZoneHandle } from '../zones/ZoneCache.js';
import { apiError } from './httpErrors.js';
import { zoneKey, zoneSource } from './zoneRoutes.js';

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

/** 400 ZONE_NOT_FOUND naming the zones, unless there are none. */
function throwUnknownZones(missing: string[]): void {
  if (missing.length > 0) throw apiError(400, 'ZONE_NOT_FOUND', `unknown restriction zone${missing.length > 1 ? 's' : ''}: ${missing.map((n) => JSON.stringify(n)).join(', ')}`, { zones: missing });
}

/**
 * 400 ZONE_NOT_FOUND unless the caller stores every zone named (read without their bodies): what
 * an asynchronous problem checks when posted, rather than failing as a job later.
 */
export async function checkZonesExist(store: Store, clientId: string, names: readonly string[]): Promise<void> {
  const wanted = [...new Set(names)];
  const known = new Set((await store.zoneRevisions(clientId, wanted)).map((z) => z.name));
  throwUnknownZones(wanted.filter((n) => !known.has(n)));
}

/**
 * The caller's zones by name, calculated for this graph (400 ZONE_NOT_FOUND naming the unknown
 * ones). Revisions are read from the store each time, so a zone changed through another instance
 * is used at once (its new revision is recalculated); bodies are read only for revisions not
 * calculated here yet. A zone still calculating is waited for up to `waitMillis`, then handed over
 * as IN_CALCULATION (the router answers ZONE_NOT_READY).
 */
export async function resolveZones(store: Store, zones: ZoneCache, clientId: string, names: string[], waitMillis: number): Promise<CalculatedZone[]> {
  const wanted = [...new Set(names)];
  const handles = new Map<string, ZoneHandle>();
  for (const { name, revision } of await store.zoneRevisions(clientId, wanted)) {
    const known = zones.lookup(zoneKey(clientId, name), revision, name);
    if (known) handles.set(name, known);
  }
  const unread = wanted.filter((n) => !handles.has(n));
  if (unread.length > 0) for (const z of await store.getZones(clientId, unread)) handles.set(z.name, zones.track(zoneSource(z)));
  throwUnknownZones(wanted.filter((n) => !handles.has(n)));
  return Promise.all(
    wanted.map(async (name) => {
      const handle = handles.get(name)!;
      // Calculated already (the usual case): no timer to set and clear per zone and trip.
      const done = handle.done();
      if (done) return done;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<CalculatedZone>((resolve) => {
        timer = setTimeout(() => resolve(handle.current()), waitMillis);
      });
      try {
        return await Promise.race([handle.settled, timeout]);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/**
 * Forgets the cached zones not asked for in `idleMillis` whose revision the store no longer has
 * (deleted or replaced through another instance), with what was made for them (ZoneCache
 * onDropped): live zones stay calculated however long they rest.
 */
export async function sweepZoneCache(store: Store, zones: ZoneCache, idleMillis: number): Promise<number> {
  const byOwner = new Map<string, Array<{ key: string; name: string; revision: string }>>();
  for (const entry of zones.idle(idleMillis)) {
    if (entry.owner === undefined) continue;
    byOwner.set(entry.owner, [...(byOwner.get(entry.owner) ?? []), entry]);
  }
  let forgotten = 0;
  for (const [owner, entries] of byOwner) {
    const current = new Map((await store.zoneRevisions(owner, entries.map((e) => e.name))).map((z) => [z.name, z.revision]));
    for (const e of entries) {
      if (current.get(e.name) === e.revision) continue;
      zones.forget(e.key);
      forgotten++;
    }
  }
  return forgotten;
}

import type { JsonText } from '../structures/sharedBuffer.js';
import { validateZone, ZoneValidationError, type ValidationIssue } from './validateZone.js';
import { zoneRules, type Zone, type ZoneInput } from './Zone.js';

/**
 * A zone body checked from its JSON text: the name (NFC), the body as it is stored (what the API
 * defines and nothing else, rings as sent, open or closed, the rules as checked) and its
 * vertices; or why it was refused. `J`: the form of the stored text (checkZoneJson gives a string;
 * ZoneCalculator.checkJson gives a large body's UTF-8 bytes).
 */
export type CheckedZoneJson<J extends JsonText = string> =
  | { ok: true; name: string; json: J; vertexCount: number }
  | { ok: false; notJson: string }
  | { ok: false; issues: ValidationIssue[] };

/**
 * Parses and validates a zone body sent as JSON text, and gives the JSON text to store. Pure
 * (text in, text out), so a large body can be checked off the event loop, on a worker thread,
 * and only strings cross the thread boundary.
 */
export function checkZoneJson(text: string): CheckedZoneJson {
  return checkZoneJsonToZone(text).checked;
}

/** checkZoneJson, and the validated Zone when the body is valid (for a caller that calculates it next). */
export function checkZoneJsonToZone(text: string): { checked: CheckedZoneJson; zone?: Zone } {
  const checked = (c: CheckedZoneJson) => ({ checked: c });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return checked({ ok: false, notJson: (err as Error).message });
  }
  // Names are stored in NFC, so composed and decomposed spellings are the same zone.
  if (typeof raw === 'object' && raw !== null && typeof (raw as { name?: unknown }).name === 'string') {
    (raw as { name: string }).name = (raw as { name: string }).name.normalize('NFC');
  }
  let zone: Zone;
  try {
    zone = validateZone(raw);
  } catch (err) {
    if (err instanceof ZoneValidationError) return checked({ ok: false, issues: err.issues });
    throw err;
  }
  const body = raw as ZoneInput;
  let vertexCount = 0;
  const stored: ZoneInput = {
    name: body.name,
    geometries: body.geometries.map((g) => {
      vertexCount += g.vertices.length;
      return { name: g.name ?? '', vertices: g.vertices.map((v) => ({ latitude: v.latitude, longitude: v.longitude })) };
    }),
    ...zoneRules(zone),
  };
  return { checked: { ok: true, name: stored.name, json: JSON.stringify(stored), vertexCount }, zone };
}

import type { OsmTags } from './carProfile.js';

/**
 * What a driver reads of a road: its name, its ref (the route number: `BR-116`, `SP 55`) and,
 * where signed, the places its signs point to (`destination`, `destination:ref`).
 */
export interface RoadLabel {
  name?: string;
  ref?: string;
  destination?: string;
}

/**
 * A road's label as one string (the fields joined by a separator OSM values do not use), so equal
 * labels are equal strings: the key the import stores, joins road pieces by, and deduplicates.
 */
export type LabelKey = string;

const SEPARATOR = '\u001f';
/** Longest field kept, in UTF-16 units: OSM caps a value at 255 characters; a label is read, not a document. */
const MAX_FIELD = 255;

/** The label key of a way's tags ('' when it carries none of them). */
export function labelKeyOf(tags: OsmTags): LabelKey {
  const name = field(tags.name);
  const ref = field(tags.ref);
  const destination = field(tags.destination ?? tags['destination:ref']);
  return name || ref || destination ? `${name}${SEPARATOR}${ref}${SEPARATOR}${destination}` : '';
}

/** The label a key stands for. */
export function labelOfKey(key: LabelKey): RoadLabel {
  if (key === '') return {};
  const [name, ref, destination] = key.split(SEPARATOR);
  return { ...(name && { name }), ...(ref && { ref }), ...(destination && { destination }) };
}

function field(value: string | undefined): string {
  // `;` separates several values in OSM (`ref=BR-116;BR-101`); a sign reads them with a slash.
  const v = (value ?? '').replaceAll(SEPARATOR, ' ').split(';').map((s) => s.trim()).filter(Boolean).join(' / ');
  return v.length > MAX_FIELD ? v.slice(0, MAX_FIELD) : v;
}

/**
 * The graph's labels: `labelBytes` holds the distinct keys in UTF-8, key k at
 * labelBytes[labelStart[k] .. labelStart[k + 1]), key 0 the empty one; `roadLabel` names each
 * road's key (4 bytes a road; a country's roads share few names).
 */
export interface RoadLabelArrays {
  roadLabel: Uint32Array;
  labelBytes: Uint8Array;
  labelStart: Uint32Array;
}

/** Deduplicates label keys while a graph is built. */
export class LabelTable {
  private readonly ids = new Map<LabelKey, number>([['', 0]]);
  private readonly keys: LabelKey[] = [''];

  id(key: LabelKey | undefined): number {
    if (!key) return 0;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.ids.set(key, id);
      this.keys.push(key);
    }
    return id;
  }

  /** The table as arrays, with the given per-road ids. */
  arrays(roadLabel: Uint32Array): RoadLabelArrays {
    const encoder = new TextEncoder();
    const encoded = this.keys.map((k) => encoder.encode(k));
    const labelStart = new Uint32Array(encoded.length + 1);
    encoded.forEach((b, k) => { labelStart[k + 1] = labelStart[k] + b.length; });
    const labelBytes = new Uint8Array(labelStart[encoded.length]);
    encoded.forEach((b, k) => labelBytes.set(b, labelStart[k]));
    return { roadLabel, labelBytes, labelStart };
  }
}

const decoder = new TextDecoder();

/** Label key k of the arrays (decoded; SharedArrayBuffer views are copied first, as TextDecoder requires). */
export function labelKeyAt(a: RoadLabelArrays, k: number): LabelKey {
  const bytes = a.labelBytes.subarray(a.labelStart[k], a.labelStart[k + 1]);
  return decoder.decode(bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice());
}

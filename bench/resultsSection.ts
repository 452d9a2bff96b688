/** Heading that starts the scale section of bench/RESULTS.md (written by `npm run bench:scale`). */
export const SCALE_HEADING = '## Scale';

/** Marks where one size's part of the scale section starts, so a run of some sizes keeps the others. */
export const sizeMarker = (key: string) => `<!-- scale:${key} -->`;

/** The scale section of a results file (its "## Scale" heading up to the next "## "), or '' when absent. */
export function scaleSection(file: string): string {
  const start = file.indexOf(`\n${SCALE_HEADING}`);
  if (start < 0) return '';
  const next = file.indexOf('\n## ', start + 1);
  return file.slice(start + 1, next < 0 ? undefined : next + 1);
}

/** The results file with its scale section replaced by `section`, or `section` appended when absent. */
export function replaceScaleSection(file: string, section: string): string {
  const start = file.indexOf(`\n${SCALE_HEADING}`);
  if (start < 0) return `${file.trimEnd()}\n\n${section.trimEnd()}\n`;
  const next = file.indexOf('\n## ', start + 1);
  const rest = next < 0 ? '' : file.slice(next);
  return `${file.slice(0, start).trimEnd()}\n\n${section.trimEnd()}\n${rest}`;
}

/**
 * A new scale section: `intro`, then one part per size in `order`, taking the parts measured now
 * from `parts` and the others from the file's current scale section (each part starts at its
 * sizeMarker), so `--sizes 5m` updates the 5m figures and keeps the 1m ones.
 */
export function mergeScaleParts(file: string, intro: string, parts: Map<string, string>, order: readonly string[]): string {
  const old = scaleSection(file);
  const kept = new Map<string, string>();
  const re = /<!-- scale:([^ ]+) -->/g;
  const marks = [...old.matchAll(re)];
  marks.forEach((m, i) => kept.set(m[1], old.slice(m.index!, i + 1 < marks.length ? marks[i + 1].index : undefined).trimEnd()));
  for (const [key, text] of parts) kept.set(key, `${sizeMarker(key)}\n${text.trimEnd()}`);
  const body = order.filter((k) => kept.has(k)).map((k) => kept.get(k)!);
  return [intro.trimEnd(), ...body].join('\n\n') + '\n';
}

/** Heading that starts the scale section of bench/RESULTS.md (written by `npm run bench:scale`). */
export const SCALE_HEADING = '## Scale';

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

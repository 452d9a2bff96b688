import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESULTS_PATH = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

/**
 * Writes sections into bench/RESULTS.md, each starting with a `## ` heading: a section whose
 * heading is already there is replaced, a new one is appended, and every other section is
 * kept, so each benchmark script (bench, bench:scale, bench:service) updates only its own.
 * Without a header the file's own is kept.
 */
export function updateResults(header: string | undefined, sections: string[]): string {
  const old = existsSync(RESULTS_PATH) ? readFileSync(RESULTS_PATH, 'utf8') : '# detour benchmark results\n';
  const [oldHeader, ...rest] = old.split(/^(?=## )/m);
  const parts = rest.map((s) => s.trimEnd());
  const headingOf = (section: string) => section.split('\n', 1)[0].trim();
  for (const section of sections.map((s) => s.trimEnd())) {
    const at = parts.findIndex((p) => headingOf(p) === headingOf(section));
    if (at >= 0) parts[at] = section;
    else parts.push(section);
  }
  const out = `${[(header ?? oldHeader).trimEnd(), ...parts].join('\n\n')}\n`;
  writeFileSync(RESULTS_PATH, out);
  return out;
}

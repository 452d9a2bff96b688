/**
 * The C allocator's setting a service process starts with. glibc's malloc raises its mmap
 * threshold each time a large block is freed (up to 32 MiB), so the arrays a thread makes and lets
 * go (a vehicle class's contraction: several times the graph's size, in a worker thread) afterwards
 * come from arenas that keep their pages: the process stays that much bigger for good. A fixed
 * threshold gives every block over it its own mapping, returned when freed (docs/SERVICE.md,
 * "Country-size graphs"). glibc reads the setting once, at process start: it is passed in the environment of
 * the processes `serve` starts (cluster workers), and a single `serve` process starts itself again
 * with it where Node can (process.execve).
 */

/** Bytes above which glibc maps each block on its own (its default starts at 128 KiB, then moves). */
export const MMAP_THRESHOLD_BYTES = 65_536;

/** The environment variable that fixes it (mallopt M_MMAP_THRESHOLD). */
export const MMAP_THRESHOLD_ENV = 'MALLOC_MMAP_THRESHOLD_';

interface Platform {
  platform: NodeJS.Platform;
  /** glibc's version where the process runs on glibc (process.report's glibcVersionRuntime), else undefined. */
  glibc: string | undefined;
}

function thisPlatform(): Platform {
  const report = process.platform === 'linux' ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined) : undefined;
  return { platform: process.platform, glibc: report?.header?.glibcVersionRuntime };
}

/**
 * What to add to a service process's environment: the fixed threshold on Linux with glibc, unless
 * the environment already tunes malloc (a MALLOC_* variable, GLIBC_TUNABLES, or another allocator
 * preloaded with LD_PRELOAD: the operator's choice stands); nothing elsewhere (musl, macOS).
 */
export function mallocTuning(env: NodeJS.ProcessEnv, platform?: Platform): Record<string, string> {
  // The environment first: a process started again with the setting reads no report.
  if (Object.keys(env).some((name) => /^MALLOC_[A-Z_]+$/.test(name) || name === 'GLIBC_TUNABLES' || name === 'LD_PRELOAD')) return {};
  const { platform: os, glibc } = platform ?? thisPlatform();
  return os === 'linux' && glibc !== undefined ? { [MMAP_THRESHOLD_ENV]: String(MMAP_THRESHOLD_BYTES) } : {};
}

/**
 * Starts this process again, same pid, arguments and environment plus mallocTuning's, when that
 * adds anything and Node can (process.execve: Node 22.15 and later); else returns and the process
 * goes on as it is. Call it before any thread or server starts: nothing of this process survives.
 */
export function restartWithMallocTuning(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function') return;
  const tuning = mallocTuning(process.env);
  if (Object.keys(tuning).length === 0) return;
  try {
    execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...tuning });
  } catch {
    // execve(2) refused (the binary moved, a limit): this process goes on untuned, as on older Node.
  }
}

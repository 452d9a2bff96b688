/**
 * What a service process starts with beside its code: the C allocator's setting and the size of
 * V8's young generation. Both are read once, when the process starts: they are passed to the
 * processes `serve` starts (cluster workers), and a single `serve` process starts itself again with
 * them where Node can (process.execve). An operator's own choice of either is left as it is.
 *
 * glibc's malloc raises its mmap threshold each time a large block is freed (up to 32 MiB), so the
 * arrays a thread makes and lets go (a vehicle class's contraction: several times the graph's size,
 * in a worker thread) afterwards come from arenas that keep their pages: the process stays that much
 * bigger for good. A fixed threshold gives every block over it its own mapping, returned when freed.
 *
 * V8 (Node 24's) lets an isolate's young generation grow with the machine's memory: to 128 MiB on a
 * machine of 24 GiB, for every thread that allocates fast (the event loop under load, each trip
 * thread). Its semi-spaces are held at Node 20's and 22's size instead (docs/SERVICE.md,
 * "Country-size graphs").
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

/** Each of the young generation's two semi-spaces at most (MiB): what Node 20 and 22 allow on 64-bit machines. */
export const SEMI_SPACE_MIB = 16;

/** V8's flag for it. */
export const SEMI_SPACE_FLAG = '--max-semi-space-size';

/**
 * V8 flags to add to a service process's: the semi-space size, unless the process's flags or
 * NODE_OPTIONS already set one (the operator's choice stands).
 */
export function v8Tuning(execArgv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  // V8 reads a flag's dashes and underscores alike.
  if (given.some((arg) => arg.replaceAll('_', '-').startsWith(SEMI_SPACE_FLAG))) return [];
  return [`${SEMI_SPACE_FLAG}=${SEMI_SPACE_MIB}`];
}

/**
 * Starts this process again, same pid, arguments and environment plus mallocTuning's and
 * v8Tuning's, when they add anything and Node can (process.execve: Node 22.15 and later); else
 * returns and the process goes on as it is. Call it before any thread or server starts: nothing of
 * this process survives.
 */
export function restartTuned(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function') return;
  const env = mallocTuning(process.env), flags = v8Tuning(process.execArgv, process.env);
  if (Object.keys(env).length === 0 && flags.length === 0) return;
  try {
    execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...env });
  } catch {
    // execve(2) refused (the binary moved, a limit): this process goes on untuned, as on older Node.
  }
}

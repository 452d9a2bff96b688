import type { Job, JobStore } from '../store/Store.js';

/** Most jobs one transaction writes. */
const BATCH = 256;
/**
 * Most solution text one transaction writes (a batch holds one job at least): a 100-point trip's
 * answer is about 166 KB, and a transaction of megabytes would hold the event loop.
 */
const BATCH_CHARS = 256 * 1024;

/**
 * Writes jobs to the store in batches: the jobs given in one turn of the event loop go in one
 * transaction after it, and each write's promise settles when its transaction has. Under load, a
 * trip's storage costs a share of one commit, and service processes on one SQLite file take its
 * write lock once per batch rather than once per trip. A batch holds at most BATCH jobs and
 * BATCH_CHARS of solutions; the rest go on the following turns, one batch a turn.
 */
export class JobWriter {
  private pending: Array<{ job: Job; resolve: () => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  constructor(private readonly store: JobStore) {}

  write(job: Job): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ job, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    let count = 0, chars = 0;
    for (; count < this.pending.length && count < BATCH; count++) {
      const size = this.pending[count].job.solutionJson?.length ?? 0;
      if (count > 0 && chars + size > BATCH_CHARS) break;
      chars += size;
    }
    const batch = this.pending.splice(0, count);
    if (this.pending.length > 0) setImmediate(() => this.flush());
    else this.scheduled = false;
    this.store.insertJobs(batch.map((w) => w.job)).then(
      () => { for (const w of batch) w.resolve(); },
      (err: unknown) => { for (const w of batch) w.reject(err); },
    );
  }
}

import type { Job, JobStore } from '../store/Store.js';

/** Most jobs one transaction writes. */
const BATCH = 256;

/**
 * Writes jobs to the store in batches: the jobs given in one turn of the event loop go in one
 * transaction after it, and each write's promise settles when its transaction has. Under load, a
 * trip's storage costs a share of one commit, and service processes on one SQLite file take its
 * write lock once per batch rather than once per trip.
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
    this.scheduled = false;
    const waiting = this.pending;
    this.pending = [];
    for (let i = 0; i < waiting.length; i += BATCH) {
      const batch = waiting.slice(i, i + BATCH);
      this.store.insertJobs(batch.map((w) => w.job)).then(
        () => { for (const w of batch) w.resolve(); },
        (err: unknown) => { for (const w of batch) w.reject(err); },
      );
    }
  }
}

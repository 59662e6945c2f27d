// Test hooks of a `scan --state` run (test/scan-state.test.ts), read from the environment; unset,
// they do nothing. DOPPEL_SCAN_KILL_AT makes the process SIGKILL itself at one point, so that the
// test can kill a run where it means to (not where a timer happens to land):
//   read:N       once the Nth document is appended (counted over the whole scan, a resumed run's too)
//   commit:N     when the state commits N documents, its tables committed and its checkpoint not yet
//   join:STEP    once a step of the join (bin/scan-db/scan-on-disk.ts JOIN_STEPS) has filled its tables, before it is recorded
//   out:LIST     once --out has written LIST.ndjson (pairs, reuse, rewrites, clusters), before its Parquet
// DOPPEL_SCAN_COMMIT_EVERY=N commits the state every N documents rather than every STATE_COMMIT_EVERY.

/** Test hook: SIGKILLs this process when DOPPEL_SCAN_KILL_AT names `stage:at`. */
export function killPoint(stage: 'read' | 'commit' | 'join' | 'out', at: string | number): void {
  if (process.env.DOPPEL_SCAN_KILL_AT === `${stage}:${at}`) process.kill(process.pid, 'SIGKILL');
}

/** Test hook: the documents between commits of the state, when DOPPEL_SCAN_COMMIT_EVERY sets it. */
export function commitEveryFromEnv(): number | undefined {
  const value = process.env.DOPPEL_SCAN_COMMIT_EVERY;
  return value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : undefined;
}

/**
 * A background task run every `everyMs` (and at once with `runNow`), never two runs at a time; `stop()` ends the
 * timer and waits for a run in progress. The task handles its own errors (a rejection is dropped here).
 */
export function runPeriodically(everyMs: number, task: () => Promise<unknown>, opts: { runNow?: boolean } = {}): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= task()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  if (opts.runNow) tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

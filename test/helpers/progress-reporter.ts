import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/**
 * One line per test file as it finishes, with a running count and the elapsed time, so a run that
 * takes minutes shows where it is (the default reporter prints little without a terminal).
 */
export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private started = performance.now();

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.done = 0;
    this.started = performance.now();
  }

  onTestModuleEnd(module: TestModule): void {
    this.done++;
    const tests = [...module.children.allTests()];
    const failed = tests.filter((t) => t.result().state === 'failed').length;
    const mark = module.state() === 'failed' || failed > 0 ? 'FAIL' : 'ok  ';
    const seconds = (module.diagnostic().duration / 1000).toFixed(1);
    const elapsed = Math.round((performance.now() - this.started) / 1000);
    const counts = failed > 0 ? `${tests.length} tests, ${failed} failed` : `${tests.length} tests`;
    process.stdout.write(`[${this.done}/${this.total} ${elapsed}s] ${mark} ${module.relativeModuleId} (${counts}, ${seconds}s)\n`);
  }
}

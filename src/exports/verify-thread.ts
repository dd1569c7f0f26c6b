/**
 * Verification beside the writing: a worker thread (verify-worker.ts) reads the zip from its file as it grows,
 * so the independent reader's work runs on the other core while the main thread formats and the zlib pool
 * deflates. The main thread only tells it how far the file is written. Memory stays bounded: the thread reads
 * the file a megabyte at a time, whatever its lag; nothing is queued between the threads.
 */
import { Worker } from 'node:worker_threads';
import type { WriteStream } from 'node:fs';
import type { TrialBalanceRow } from '../ledger/index.ts';
import type { ReadBack } from './verify.ts';

export interface VerifierData {
  kind: 'openfrmt-verify';
  zipPath: string;
  expectedDir: string;
  doubleEntry: boolean;
}

type Books = { before: TrialBalanceRow[]; at: TrialBalanceRow[] } | null;
export type ToVerifier = { size: number } | { final: number; books: Books };
type FromVerifier = { back: ReadBack } | { error: string };

/** The verifier thread's young generation, in MB (V8's default on 64-bit is 32–48 MB per thread). */
const VERIFIER_YOUNG_MB = Number(process.env.VERIFIER_YOUNG_MB ?? 8);

/** How often the thread is told the file's size while it is written. */
const TELL_EVERY_MS = 20;

export interface VerifierThread {
  /** The zip is complete on disk (`size` bytes): answers what the thread read (the ledger judged against `books`). */
  result(size: number, books: Books): Promise<ReadBack>;
  stop(): void;
}

/**
 * Starts the thread on `zipPath` (already created, being written through `file`). The thread's TypeScript is
 * loaded through tsx's loader, as the process's own is.
 */
export function startVerifier(data: Omit<VerifierData, 'kind'>, file: WriteStream): VerifierThread {
  const entry = new URL('./verify-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, {
    eval: true,
    workerData: { kind: 'openfrmt-verify', ...data } satisfies VerifierData,
    // The reader allocates short-lived strings at a high rate; its young generation is kept small. Measured at
    // 100k documents: peak RSS 397 MB with 8 MB, 407 MB with V8's default (within the noise of a shared machine).
    resourceLimits: { maxYoungGenerationSizeMb: VERIFIER_YOUNG_MB },
  });
  const answer = new Promise<ReadBack>((resolve, reject) => {
    worker.once('message', (m: FromVerifier) => {
      if ('error' in m) reject(new Error(`verification: ${m.error}`));
      else resolve({ ...m.back, unzipped: { ...m.back.unzipped, ini: Buffer.from(m.back.unzipped.ini) } });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the verifier's thread ended (${code}) before answering`)));
  });
  answer.catch(() => {});
  let told = 0;
  const tell = setInterval(() => {
    if (file.bytesWritten > told) worker.postMessage({ size: (told = file.bytesWritten) } satisfies ToVerifier);
  }, TELL_EVERY_MS);
  tell.unref();
  const stop = () => {
    clearInterval(tell);
    void worker.terminate();
  };
  return {
    async result(size, books) {
      clearInterval(tell);
      worker.postMessage({ final: size, books } satisfies ToVerifier);
      try {
        return await answer;
      } finally {
        stop();
      }
    },
    stop,
  };
}

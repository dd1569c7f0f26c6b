// The PDF renderer of a process: a pool of worker threads (piscina) sized by PDF_WORKERS, so that rendering and
// signing never run on the event loop that answers HTTP. piscina rather than a hand-made pool: it queues tasks,
// replaces a thread that died (its task fails, the job is retried) and is the maintained, widely used pool for
// Node's worker threads. PDF_WORKERS=0 renders in the calling thread (tests, a process that only serves drafts).
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { renderTask, type DraftTask, type PairTask, type RenderResult, type RenderTask } from './render-task.ts';

export interface PdfRenderer {
  /** Threads that render in parallel; 0 renders in the calling thread. */
  readonly threads: number;
  /** Renders worth keeping in flight so that no thread waits between two (the job runner's bound). */
  readonly capacity: number;
  /** The signed origin and copy of an issued document. */
  pair(task: PairTask): Promise<{ origin: Buffer; copy: Buffer }>;
  /** A draft's unsigned preview. */
  draft(task: DraftTask): Promise<Buffer>;
  close(): Promise<void>;
}

declare module '../platform/http/services.ts' {
  interface Services {
    pdfRenderer: PdfRenderer;
  }
}

/**
 * Renders waiting per thread: while a thread renders one, the next is already queued, and the job runner's
 * database work for the others (claims, publishing) overlaps the rendering.
 */
const QUEUED_PER_THREAD = 4;

/**
 * Threads start with the first render (a process that never renders starts none). They load the TypeScript
 * sources through tsx, as the process does (`node --import tsx`); `entry` is the thread's module (tests give
 * another one). A thread does one render at a time. (In a supervised server they run in the background
 * process, at its BACKGROUND_NICE.)
 */
export function createPdfRenderer(threads: number, opts: { entry?: URL } = {}): PdfRenderer {
  if (threads === 0) return { threads, capacity: QUEUED_PER_THREAD, ...byKind(renderTask), close: async () => {} };
  let pool: Piscina<RenderTask, RenderResult> | null = null;
  const start = () =>
    (pool ??= new Piscina<RenderTask, RenderResult>({
      filename: fileURLToPath(opts.entry ?? new URL('./render-worker.ts', import.meta.url)),
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: 1,
      execArgv: ['--import', import.meta.resolve('tsx')],
    }));
  return {
    threads,
    capacity: threads * QUEUED_PER_THREAD,
    ...byKind((task) => start().run(task)),
    async close() {
      const running = pool;
      pool = null;
      await running?.destroy();
    },
  };
}

// Bytes come back from a thread as plain Uint8Arrays: Buffers over the same memory.
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** pair() and draft() over one way to run a task (a task's kind decides its answer's shape). */
function byKind(run: (task: RenderTask) => Promise<RenderResult>): Pick<PdfRenderer, 'pair' | 'draft'> {
  return {
    async pair(task) {
      const r = (await run(task)) as { origin: Uint8Array; copy: Uint8Array };
      return { origin: asBuffer(r.origin), copy: asBuffer(r.copy) };
    },
    draft: async (task) => asBuffer(((await run(task)) as { draft: Uint8Array }).draft),
  };
}

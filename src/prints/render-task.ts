// One render, as a plain serializable message: what the job and the draft preview send to the render pool, and
// what runs in a worker thread (render-worker.ts) or, with PDF_WORKERS=0, in the calling thread.
import { createHash } from 'node:crypto';
import { getPriority, setPriority } from 'node:os';
import { parseP12, pdfSigner, renderDocumentPair, renderDocumentPdf, type PdfSigner, type RenderModel } from '../pdf/index.ts';

/** The signing certificate as bytes: each thread parses it once (by digest) and keeps the key. */
export interface SigningSource {
  p12: Uint8Array;
  password: string;
  /** Our generated self-signed certificate: the page says so. */
  development: boolean;
}

export interface PairTask {
  kind: 'pair';
  model: RenderModel;
  at: Date;
  sandbox: boolean;
  signing: SigningSource;
}
export interface DraftTask {
  kind: 'draft';
  model: RenderModel;
  at: Date;
  sandbox: boolean;
}
export type RenderTask = PairTask | DraftTask;

/** Answers of a pair are the two files; of a draft, the preview as `origin`-less bytes. */
export type RenderResult = { origin: Uint8Array; copy: Uint8Array } | { draft: Uint8Array };

// Parsed identities of this thread: parsing a P12 and deriving its key is the slow part. Keyed by content, so a
// replaced certificate file is parsed again.
const signers = new Map<string, PdfSigner>();

function signerOf(source: SigningSource): PdfSigner {
  const key = createHash('sha256').update(source.p12).update(`\0${source.password}\0${source.development}`).digest('base64');
  let signer = signers.get(key);
  if (!signer) {
    signer = pdfSigner(parseP12(source.p12, source.password), { name: 'pinkas', development: source.development });
    signers.set(key, signer);
  }
  return signer;
}

export async function renderTask(task: RenderTask): Promise<RenderResult> {
  if (task.kind === 'draft') return { draft: await renderDocumentPdf(task.model, 'draft', { at: task.at, sandbox: task.sandbox }) };
  return renderDocumentPair(task.model, { signer: signerOf(task.signing), at: task.at, sandbox: task.sandbox });
}

/** How much lower than its process's priority a render thread runs (a nice value of its own). */
export const RENDER_NICE_STEP = 10;

/**
 * Lowers the calling thread's priority (on Linux a thread has a nice value of its own): a render thread then
 * takes only the CPU that the event loop answering requests leaves, so a backlog of PDFs waits, not an issue.
 */
export function renderBelowEventLoop(): void {
  try {
    setPriority(0, Math.min(19, getPriority(0) + RENDER_NICE_STEP));
  } catch {
    // Refused here (a sandbox that forbids it): the thread renders at its process's priority.
  }
}

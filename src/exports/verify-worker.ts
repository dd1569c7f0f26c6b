/**
 * The verifier's thread (started by verify-thread.ts): reads the export's zip from its file while the main
 * thread is still writing it (zip-stream.ts), through the independent reader, and answers the ReadBack.
 * It loads no database code and never sees the writer's objects: only the file's bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LedgerCheck } from './ledger-check.ts';
import { ZipReadBack } from './verify.ts';
import { GrowingFile, readGrowingZip } from './zip-stream.ts';
import type { ToVerifier, VerifierData } from './verify-thread.ts';

async function main(port: NonNullable<typeof parentPort>, data: VerifierData): Promise<void> {
  const file = await GrowingFile.open(data.zipPath);
  let books: Extract<ToVerifier, { final: number }>['books'] = null;
  let finalSeen!: () => void;
  const finalMessage = new Promise<void>((resolve) => (finalSeen = resolve));
  port.on('message', (m: ToVerifier) => {
    if ('final' in m) {
      books = m.books;
      file.grown(m.final, true);
      finalSeen();
    } else file.grown(m.size);
  });
  try {
    const back = new ZipReadBack(data.expectedDir, data.doubleEntry ? new LedgerCheck() : null);
    const { problems } = await readGrowingZip(file, data.zipPath, (name) => back.entry(name));
    await finalMessage;
    port.postMessage({ back: back.finish(problems, books) });
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) });
  } finally {
    await file.close();
    port.close();
  }
}

if (parentPort && (workerData as VerifierData | undefined)?.kind === 'openfrmt-verify') void main(parentPort, workerData as VerifierData);

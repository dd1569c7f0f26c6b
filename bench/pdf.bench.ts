/**
 * PDF figures: (1) renders per second of the pure module — an unsigned render, a render + signature,
 * and the signature alone — on one core, sequentially; (2) time from an issue answer to
 * `document.pdf_ready` through the real path (HTTP issue on embedded PostgreSQL → the durable
 * `document.render` job in the server's job runner → pdf_files set), with the runner polling every
 * second as `npm start` does, and with an immediate poll (the processing time alone).
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import { queryOne } from '../src/platform/db/sql.ts';
import { JobRunner } from '../src/platform/jobs.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { allJobHandlers } from '../src/domains.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { renderDocumentPdf } from '../src/pdf/render.ts';
import { sampleModel } from '../src/pdf/samples.ts';
import { generateSelfSignedP12, parseP12 } from '../src/pdf/certificate.ts';
import { identityCms, pdfSigner } from '../src/pdf/sign.ts';
import { embeddedDatabases, type BenchDatabases } from './databases.ts';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const line = (label: string, value: string) => console.log(`${label.padEnd(52)} ${value}`);

async function pureFigures() {
  const at = new Date();
  const identity = parseP12(generateSelfSignedP12({ commonName: 'bench', password: 'b', now: at }), 'b');
  const signer = pdfSigner(identity, { name: 'pinkas' });
  const model = sampleModel(320, 'classic');
  for (let i = 0; i < 5; i++) await renderDocumentPdf(model, 'origin', { signer, at }); // warm up (fonts, JIT)

  const N = 100;
  let t0 = performance.now();
  for (let i = 0; i < N; i++) await renderDocumentPdf(model, 'draft', { at });
  const unsignedMs = performance.now() - t0;
  line('render, unsigned (320, one page, logo)', `${((N * 1000) / unsignedMs).toFixed(1)}/s   ${(unsignedMs / N).toFixed(1)} ms each`);

  t0 = performance.now();
  let bytes = 0;
  for (let i = 0; i < N; i++) bytes += (await renderDocumentPdf(model, 'origin', { signer, at })).length;
  const signedMs = performance.now() - t0;
  line('render + signature (origin)', `${((N * 1000) / signedMs).toFixed(1)}/s   ${(signedMs / N).toFixed(1)} ms each   ${(bytes / N / 1024).toFixed(0)} KB`);

  const cms = identityCms(identity);
  const payload = Buffer.alloc(40_000, 7);
  t0 = performance.now();
  for (let i = 0; i < N; i++) cms(createHash('sha256').update(payload).digest(), at);
  const sigMs = performance.now() - t0;
  line('signature alone (CMS, RSA-2048, key parsed once)', `${((N * 1000) / sigMs).toFixed(1)}/s   ${(sigMs / N).toFixed(1)} ms each`);
}

/** One run on a fresh pair of databases (each run gets its own set). */
async function issueToReady({ live, sandbox }: BenchDatabases, pollMs: number, count: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-bench-pdf-'));
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: dataDir });
  const logger = createLogger('silent');
  const s = createServices(config, systemClock, logger, { live, sandbox });
  const app = await buildApp(s);
  const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
  const { secret: key } = await mintKey(live.db, new Date(), { accountId: account.id, mode: 'test' });
  const call = async (url: string, body?: unknown) => {
    const res = await app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  const business = (await call('/v1/businesses', { name: 'עסק לבדיקה בע"מ', taxId: '516179157', dealerType: 'company' })).business;
  const runner = new JobRunner(s.databases, s.clock, logger, allJobHandlers(s)).start(pollMs);
  const latencies: number[] = [];
  // Warm the signer (certificate generation) and the renderer before measuring.
  for (let i = -2; i < count; i++) {
    const draft = (
      await call(`/v1/businesses/${business.id}/documents`, {
        docType: 305,
        party: { name: 'לקוח' },
        lines: [{ description: 'שירות', quantity: 1, unitPriceExVat: 10_000 }],
      })
    ).document;
    await call(`/v1/businesses/${business.id}/documents/${draft.id}/issue`);
    const t0 = performance.now();
    for (;;) {
      const r = await queryOne<{ ready: boolean }>(sandbox.db, sql`SELECT pdf_files IS NOT NULL AS ready FROM documents WHERE id = ${draft.id}`);
      if (r?.ready) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (i >= 0) latencies.push(performance.now() - t0);
  }
  await runner.stop();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  line(
    `issue → pdf_ready, job runner polling every ${pollMs} ms`,
    `p50 ${pct(latencies, 50).toFixed(0)} ms   p99 ${pct(latencies, 99).toFixed(0)} ms   max ${latencies[latencies.length - 1].toFixed(0)} ms   (${count} documents, embedded PostgreSQL)`,
  );
}

await pureFigures();
// Both runs' databases on the one embedded cluster of this process, stopped in the finally.
const sets: BenchDatabases[] = [];
try {
  sets.push(await embeddedDatabases());
  sets.push(await embeddedDatabases());
  await issueToReady(sets[0], 1_000, 10);
  await issueToReady(sets[1], 10, 20);
} finally {
  for (const set of sets.reverse()) await set.close();
}

/**
 * PDF figures. (1) CPU per document on one thread, each document a different one (number, buyer, lines and
 * amounts vary, so no cache sees the same text twice): origin + copy signed from one layout pass
 * (renderDocumentPair, what the job does), the same two as separate renders, and the stages — a layout written
 * once unsigned (a draft), the two signatures. (2) The render pool's throughput with 1 and 2 threads.
 * (3) Time from an issue answer to `document.pdf_ready` through the real path (HTTP issue on embedded
 * PostgreSQL → the durable `document.render` job in the job runner → the pool → the PDFs' links written), polling every
 * second as `npm start` does, and immediately. (4) A burst: documents issued as fast as the process can while
 * the runner renders, then how many reached `document.pdf_ready` per second, the backlog when the burst ended
 * and how long it took to clear; and the pipeline's own rate on a backlog of issued documents.
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
import { renderDocumentPair, renderDocumentPdf } from '../src/pdf/render.ts';
import { sampleLogoPng, sampleModel } from '../src/pdf/samples.ts';
import type { RenderModel } from '../src/pdf/model.ts';
import { generateSelfSignedP12, parseP12 } from '../src/pdf/certificate.ts';
import { identityCms, pdfSigner } from '../src/pdf/sign.ts';
import { createPdfRenderer } from '../src/prints/render-pool.ts';
import { PdfWriter } from '../src/pdf/writer.ts';
import { embeddedDatabases, type BenchDatabases } from './databases.ts';
import { processCpuMs } from './issue/stats.ts';
import { readdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const line = (label: string, value: string) => console.log(`${label.padEnd(60)} ${value}`);
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** The 320 sample: one page, a logo (the same bytes on every document, as a business's logo is), four payments. */
const base = sampleModel(320, 'classic');

/** The i-th document of a run: the sample with its own number, buyer, lines and amounts. */
function variedModel(i: number): RenderModel {
  const m = base;
  return {
    ...m,
    docNumber: 5000 + i,
    party: m.party ? { ...m.party, name: `לקוח מספר ${i} בע"מ (Client ${i})`, taxId: String(100_000_000 + i * 7919).slice(0, 9) } : null,
    lines: m.lines.map((l, j) => ({ ...l, description: `${l.description} ${i}-${j}`, unitPrice: l.unitPrice + i, amount: l.amount + i * (j + 1) })),
    note: `הזמנה ${i * 31} - נא לשלם תוך ${30 + (i % 15)} יום`,
  };
}

/** CPU ms per document of `fn` over `n` documents, the least of `rounds` rounds (the machine is shared). */
async function perDocument(n: number, rounds: number, fn: (i: number) => Promise<unknown> | unknown): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = cpuMs();
    for (let i = 0; i < n; i++) await fn(r * n + i);
    best = Math.min(best, (cpuMs() - t0) / n);
  }
  return best;
}

async function pureFigures() {
  const at = new Date();
  const identity = parseP12(generateSelfSignedP12({ commonName: 'bench', password: 'b', now: at }), 'b');
  const signer = pdfSigner(identity, { name: 'pinkas' });
  for (let i = 0; i < 30; i++) await renderDocumentPair(variedModel(-i - 1), { signer, at }); // warm up (fonts, JIT)
  const N = 200;
  const pair = await perDocument(N, 3, (i) => renderDocumentPair(variedModel(i), { signer, at }));
  const separate = await perDocument(N / 2, 3, async (i) => {
    await renderDocumentPdf(variedModel(10_000 + i), 'origin', { signer, at });
    await renderDocumentPdf(variedModel(10_000 + i), 'copy', { signer, at });
  });
  const draft = await perDocument(N, 3, (i) => renderDocumentPdf(variedModel(20_000 + i), 'draft', { at }));
  const cms = identityCms(identity);
  const file = (await renderDocumentPair(variedModel(0), { signer, at })).origin;
  const signatures = await perDocument(N, 3, () => {
    for (let k = 0; k < 2; k++) cms(createHash('sha256').update(file).digest(), at);
  });
  const { origin, copy } = await renderDocumentPair(variedModel(1), { signer, at });
  line(
    'origin + copy, signed, one layout pass (per document)',
    `${pair.toFixed(2)} ms CPU   ${(1000 / pair).toFixed(0)} documents/s a core   ${((origin.length + copy.length) / 2048).toFixed(0)} KB a file`,
  );
  line('origin + copy as two separate renders (per document)', `${separate.toFixed(2)} ms CPU`);
  line('  stage: one layout written once, unsigned (a draft)', `${draft.toFixed(2)} ms CPU`);
  line('  stage: two signatures (SHA-256 of the file, CMS, RSA-2048)', `${signatures.toFixed(2)} ms CPU`);
}

/**
 * Where the floor is: the same document's text runs (already wrapped and in visual order, as the writer draws
 * them) drawn into the writer's document (shared fonts, no layout, no variants, no signature) by bare pdfkit's
 * text() and by the writer's own line drawing (cached glyph runs written as TJ); and the writer with nothing
 * drawn (the fixed cost of a file).
 */
async function floorFigures() {
  type Run = { text: string; x: number; y: number; bold: boolean; size: number };
  type DrawLine = (runs: unknown, visual: string, at: { x: number; y: number }, underline: boolean) => void;
  const runs: Run[] = [];
  // The writer's one place where a line goes into the page (private: reached through the prototype here only).
  const proto = PdfWriter.prototype as unknown as { drawLine: DrawLine };
  const drawLine = proto.drawLine;
  // eslint-disable-next-line @typescript-eslint/max-params -- the private method's own shape, patched
  proto.drawLine = function (this: PdfWriter, glyphRuns, visual, at, underline) {
    const d = this.doc as unknown as { _font: { name: string }; _fontSize: number };
    runs.push({ text: visual, x: at.x, y: at.y, bold: d._font.name.includes('Bold'), size: d._fontSize });
    drawLine.call(this, glyphRuns, visual, at, underline);
  };
  await renderDocumentPdf(variedModel(0), 'draft', { at: new Date() });
  proto.drawLine = drawLine;
  const N = 200;
  const bare = await perDocument(N, 3, () => {
    const w = new PdfWriter({ title: 't', author: 'a' });
    for (const r of runs) {
      w.useFont(r.bold, r.size);
      w.doc.text(r.text, r.x, r.y, { lineBreak: false });
    }
    return w.finish();
  });
  const own = await perDocument(N, 3, () => {
    const w = new PdfWriter({ title: 't', author: 'a' });
    for (const r of runs) drawLine.call(w, w.useFont(r.bold, r.size), r.text, { x: r.x, y: r.y }, false);
    return w.finish();
  });
  const empty = await perDocument(N, 3, () => new PdfWriter({ title: 't', author: 'a' }).finish());
  line(`  floor: bare pdfkit drawing the same ${runs.length} text runs, one file`, `${bare.toFixed(2)} ms CPU`);
  line(`  floor: the writer drawing them from cached glyph runs, one file`, `${own.toFixed(2)} ms CPU`);
  line('  floor: a file with nothing drawn (document, fonts, end)', `${empty.toFixed(2)} ms CPU`);
}

/** Documents per second through a pool of `threads`, its capacity in flight. */
async function poolThroughput(threads: number, count: number) {
  const renderer = createPdfRenderer(threads);
  const at = new Date();
  const signing = { p12: generateSelfSignedP12({ commonName: 'bench', password: 'b', now: at }), password: 'b', development: true };
  const run = async (from: number, n: number) => {
    let next = from;
    const lane = async () => {
      while (next < from + n) await renderer.pair({ kind: 'pair', model: variedModel(next++), at, sandbox: false, signing });
    };
    await Promise.all(Array.from({ length: renderer.capacity }, lane));
  };
  try {
    await run(0, 40 * threads); // threads start, load the sources, warm up
    const t0 = performance.now();
    const c0 = cpuMs();
    await run(1000, count);
    const s = (performance.now() - t0) / 1000;
    line(
      `render pool, ${threads} thread${threads > 1 ? 's' : ''}, ${renderer.capacity} in flight`,
      `${(count / s).toFixed(0)} documents/s   ${((cpuMs() - c0) / count).toFixed(2)} ms CPU a document (all threads)`,
    );
  } finally {
    await renderer.close();
  }
}

/** A server's services and app on a fresh pair of databases, a sandbox key and one business. */
async function benchServer({ live, sandbox }: BenchDatabases) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-bench-pdf-'));
  const config = loadConfig({
    PINKAS_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '10000000',
    DATA_DIR: dataDir,
    // The render threads (default: cores - 1, as a server).
    ...(process.env.PDF_WORKERS ? { PDF_WORKERS: process.env.PDF_WORKERS } : {}),
  });
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
  // Several businesses: each may issue 300 documents a day.
  const businesses: { id: string }[] = [];
  // BENCH_PDF_LOGO=1: each business has the sample logo, read for each of its documents' PDFs.
  const branding = process.env.BENCH_PDF_LOGO ? { branding: { logo: `data:image/png;base64,${sampleLogoPng().toString('base64')}` } } : {};
  for (let b = 0; b < 24; b++)
    businesses.push((await call('/v1/businesses', { name: `עסק ${b} בע"מ`, taxId: '516179157', dealerType: 'company', ...branding })).business);
  /** Draft + issue of one document; answers its id. */
  const issue = async (i: number): Promise<string> => {
    const business = businesses[(i + businesses.length) % businesses.length];
    const draft = (
      await call(`/v1/businesses/${business.id}/documents`, {
        docType: 305,
        party: { name: `לקוח ${i}` },
        lines: [{ description: `שירות ${i}`, quantity: 1, unitPriceExVat: 10_000 + i }],
      })
    ).document;
    const issued = await call(`/v1/businesses/${business.id}/documents/${draft.id}/issue`);
    if (!issued.document) throw new Error(`issue refused: ${JSON.stringify(issued)}`);
    return draft.id as string;
  };
  const pending = async () =>
    Number(
      (await queryOne<{ n: number }>(
        sandbox.db,
        sql`SELECT count(*)::int AS n FROM documents d WHERE status = 'issued' AND NOT EXISTS (SELECT 1 FROM pdf_links l WHERE l.document_id = d.id)`,
      ))!.n,
    );
  const runner = (pollMs: number) => new JobRunner({ databases: s.databases, clock: s.clock, logger }, allJobHandlers(s)).start(pollMs);
  const close = async () => {
    await app.close();
    await s.pdfRenderer.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { s, issue, pending, runner, close, sandbox };
}

async function issueToReady(set: BenchDatabases, pollMs: number, count: number) {
  const server = await benchServer(set);
  const runner = server.runner(pollMs);
  const latencies: number[] = [];
  // Warm the signer (certificate generation), the pool's thread and the renderer before measuring.
  for (let i = -3; i < count; i++) {
    const id = await server.issue(i);
    const t0 = performance.now();
    for (;;) {
      const r = await queryOne<{ ready: boolean }>(server.sandbox.db, sql`SELECT EXISTS (SELECT 1 FROM pdf_links WHERE document_id = ${id}) AS ready`);
      if (r?.ready) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (i >= 0) latencies.push(performance.now() - t0);
  }
  await runner.stop();
  await server.close();
  latencies.sort((a, b) => a - b);
  line(
    `issue → pdf_ready, job runner polling every ${pollMs} ms`,
    `p50 ${pct(latencies, 50).toFixed(0)} ms   p99 ${pct(latencies, 99).toFixed(0)} ms   max ${latencies[latencies.length - 1].toFixed(0)} ms   (${count} documents)`,
  );
}

/** Issues `count` documents, `inFlight` at a time, as fast as the process answers; answers the seconds it took. */
async function issueMany(issue: (i: number) => Promise<string>, count: number, inFlight: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await issue(next++);
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** Waits until no issued document lacks its PDFs; looks every 100 ms (each look is a scan of the documents, PostgreSQL CPU the figures count). */
async function untilRendered(pending: () => Promise<number>): Promise<number> {
  const t0 = performance.now();
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  return (performance.now() - t0) / 1000;
}

/** BENCH_PDF_PROFILE=file: a V8 CPU profile of the event loop while the backlog drains (open it in Chrome's DevTools). */
async function startProfile(): Promise<() => Promise<object>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return async () => {
    const { profile } = await post('Profiler.stop');
    session.disconnect();
    return profile;
  };
}

/** CPU of every thread of this process and of every process of the database cluster, ms, by id. */
async function cpuSnapshot(database: BenchDatabases['sandbox']) {
  const threads = new Map(readdirSync('/proc/self/task').map((t) => [Number(t), processCpuMs(process.pid, Number(t))]));
  const pids = await database.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity');
  return { threads, postgres: new Map(pids.rows.map((r) => [r.pid, processCpuMs(r.pid)])) };
}

/**
 * Where a document's CPU went between two snapshots: the event loop, the render threads (the `renderThreads`
 * busiest threads besides it), V8's and libuv's helper threads (the rest), and PostgreSQL.
 */
function cpuPerDocument(before: Awaited<ReturnType<typeof cpuSnapshot>>, after: typeof before, docs: number, renderThreads: number): string {
  const delta = (a: Map<number, number>, b: Map<number, number>) => [...b].map(([id, ms]) => [id, ms - (a.get(id) ?? 0)] as const);
  const threads = delta(before.threads, after.threads);
  const main = threads.find(([id]) => id === process.pid)?.[1] ?? 0;
  const others = threads
    .filter(([id]) => id !== process.pid)
    .map(([, ms]) => ms)
    .sort((a, b) => b - a);
  const render = others.slice(0, renderThreads).reduce((s, ms) => s + ms, 0);
  const helpers = others.slice(renderThreads).reduce((s, ms) => s + ms, 0);
  const pg = delta(before.postgres, after.postgres).reduce((s, [, ms]) => s + ms, 0);
  const per = (ms: number) => (ms / docs).toFixed(2);
  return `process ${per(main + render + helpers)} ms (event loop ${per(main)}, render threads ${per(render)}, helper threads ${per(helpers)})   PostgreSQL ${per(pg)} ms`;
}

/**
 * A burst of issuing with the runner rendering meanwhile (what a month-end import does to one process): the
 * rates during the burst, the backlog it leaves and the time to clear it. Then the pipeline alone: a backlog of
 * issued documents rendered and published by the runner and the pool (claims, the pool, the publishing
 * transaction), in documents reaching pdf_ready per second.
 */
async function burst(set: BenchDatabases, count: number) {
  const server = await benchServer(set);
  await server.issue(-1); // warm the issue path
  let runner = server.runner(1_000);
  await untilRendered(server.pending);
  const issueS = await issueMany(server.issue, count, 16);
  const backlog = await server.pending();
  const clearS = await untilRendered(server.pending);
  line(
    `burst of ${count}: issued (16 in flight) / reached pdf_ready during it`,
    `${(count / issueS).toFixed(0)} / ${((count - backlog) / issueS).toFixed(0)} documents/s   backlog at its end ${backlog}, cleared in ${clearS.toFixed(1)} s`,
  );
  await runner.stop();
  await issueMany((i) => server.issue(count + i), count, 16);
  const cpu0 = await cpuSnapshot(server.sandbox);
  const profile = process.env.BENCH_PDF_PROFILE ? await startProfile() : null;
  runner = server.runner(1_000);
  const drainS = await untilRendered(server.pending);
  const cpu1 = await cpuSnapshot(server.sandbox);
  if (profile) writeFileSync(process.env.BENCH_PDF_PROFILE!, JSON.stringify(await profile()));
  const threads = server.s.pdfRenderer.threads;
  line(`backlog of ${count} issued documents → pdf_ready (${threads} render thread${threads === 1 ? '' : 's'})`, `${(count / drainS).toFixed(0)} documents/s`);
  line('  CPU a document reaching pdf_ready', cpuPerDocument(cpu0, cpu1, count, threads));
  await runner.stop();
  await server.close();
}

const only = process.env.BENCH_PDF_PARTS?.split(',') ?? ['pure', 'floor', 'pool', 'ready', 'burst'];
if (only.includes('pure')) await pureFigures();
if (only.includes('floor')) await floorFigures();
if (only.includes('pool')) for (const threads of [1, 2]) await poolThroughput(threads, 1_000);
// Each run's databases on the one embedded cluster of this process, stopped in the finally.
const sets: BenchDatabases[] = [];
try {
  if (only.includes('ready')) {
    sets.push(await embeddedDatabases());
    sets.push(await embeddedDatabases());
    await issueToReady(sets[0], 1_000, 10);
    await issueToReady(sets[1], 10, 20);
  }
  if (only.includes('burst')) {
    sets.push(await embeddedDatabases());
    await burst(sets[sets.length - 1], Number(process.env.BENCH_PDF_BURST ?? 2_000));
  }
} finally {
  for (const set of sets.reverse()) await set.close();
}

// The render pool (render-pool.ts): the job renders and signs in a worker thread, or in the calling thread with
// PDF_WORKERS=0; a thread that dies fails the job's attempt, which is retried, and the pool goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { createPdfRenderer } from '../../src/prints/render-pool.ts';
import { sampleModel } from '../../src/pdf/samples.ts';
import { checkPdfSignature } from '../pdf/signature-check.ts';
import { pdfText } from '../pdf/extract-text.ts';
import { issueDoc, pdfPath, renderRunner, tempDataDir } from './helpers.ts';
import { BURST_REQUESTS, renderJobHandler } from '../../src/prints/render-job.ts';
import { RENDER_NICE_STEP } from '../../src/prints/render-task.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { pdfFilesOf } from '../helpers/pdf-files.ts';
import http from 'node:http';
import { countRequestsInFlight, requestsInFlight } from '../../src/platform/http/requests-in-flight.ts';

const dying = new URL('./fixtures/dying-render-worker.ts', import.meta.url);

async function rendered(env: TestEnv): Promise<{ origin: Buffer; copy: Buffer }> {
  const a = await env.account();
  const b = await env.business(a.test);
  const doc = await issueDoc(env, a.test, b.id);
  expect(await renderRunner(env).runDue('sandbox')).toBe(1);
  const [origin, copy] = [
    await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.test }),
    await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.test }),
  ];
  expect([origin.headers['x-print-variant'], copy.headers['x-print-variant']]).toEqual(['origin', 'copy']);
  return { origin: origin.raw, copy: copy.raw };
}

describe.each([
  ['one thread', '1'],
  ['in the calling thread (PDF_WORKERS=0)', '0'],
])('rendering %s', (_name, workers) => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ env: { PDF_WORKERS: workers, DATA_DIR: tempDataDir() } });
  });
  afterAll(() => env.close());

  it('publishes a signed origin and copy', async () => {
    expect(env.s.pdfRenderer.threads).toBe(Number(workers));
    const { origin, copy } = await rendered(env);
    for (const file of [origin, copy]) expect(checkPdfSignature(file)).toMatchObject({ coversWholeFile: true, digestMatches: true, signatureValid: true });
    expect(await pdfText(origin)).toContain('מקור');
    expect(await pdfText(copy)).toContain('העתק');
  });
});

describe('a render thread that dies', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ env: { PDF_WORKERS: '1', DATA_DIR: tempDataDir() } });
  });
  afterAll(() => env.close());

  it('fails the attempt; the job is retried after its backoff and publishes', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const doc = await issueDoc(env, a.test, b.id);
    const real = env.s.pdfRenderer;
    const broken = createPdfRenderer(1, { entry: dying });
    env.s.pdfRenderer = broken;
    try {
      expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    } finally {
      env.s.pdfRenderer = real;
      await broken.close();
    }
    const [job] = await env.sql<any>('sandbox', `SELECT attempts, done_at, failed_at, run_at, last_error FROM jobs WHERE ref_id = '${doc.id}'`);
    expect(job).toMatchObject({ attempts: 1, done_at: null, failed_at: null });
    expect(job.last_error).toMatch(/exit/i);
    expect(new Date(job.run_at).getTime()).toBe(env.clock.now().getTime() + 2_000);
    expect((await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.test })).body.reason).toBe('pdf_pending');

    // Not before its backoff; then the retry renders in a healthy pool.
    expect(await renderRunner(env).runDue('sandbox')).toBe(0);
    env.clock.advance(2_000);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    const print = await env.call('POST', pdfPath(b.id, doc.id, 'print'), { key: a.test });
    expect(print.status).toBe(200);
    expect(checkPdfSignature(print.raw).signatureValid).toBe(true);
  });

  it('does not take the pool down: the next render is answered too, by the thread that replaced it', async () => {
    const pool = createPdfRenderer(1, { entry: dying });
    try {
      const task = { kind: 'draft' as const, model: sampleModel(305), at: new Date(), sandbox: false };
      await expect(pool.draft(task)).rejects.toThrow(/exit/i);
      await expect(pool.draft(task)).rejects.toThrow(/exit/i);
    } finally {
      await pool.close();
    }
  });
});

describe('jobs of a kind that allows several at once', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ env: { PDF_WORKERS: '1', DATA_DIR: tempDataDir() } });
  });
  afterAll(() => env.close());

  /** Runs the due render jobs; answers how many rendered at once at most (together: more than one; the first read may go alone). */
  async function mostAtOnce(expected: number): Promise<number> {
    const real = env.s.pdfRenderer;
    let inFlight = 0;
    let most = 0;
    env.s.pdfRenderer = {
      ...real,
      capacity: real.capacity,
      async pair(task) {
        most = Math.max(most, ++inFlight);
        try {
          return await real.pair(task);
        } finally {
          inFlight--;
        }
      },
    };
    try {
      expect(await renderRunner(env).runDue('sandbox')).toBe(expected);
    } finally {
      env.s.pdfRenderer = real;
    }
    return most;
  }

  it('keep the pool fed: several renders are in flight together, every document is published once', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const docs = [];
    for (let i = 0; i < 12; i++) docs.push(await issueDoc(env, a.test, b.id));
    const real = env.s.pdfRenderer;
    const most = await mostAtOnce(12);
    // More jobs in flight than the pool renders at once: the others read, store and publish meanwhile.
    const concurrency = renderJobHandler(env.s).concurrency!;
    expect(concurrency).toBeGreaterThan(real.capacity);
    expect(most).toBe(Math.min(docs.length, concurrency));
    // The render thread runs below the event loop.
    const nice = (task: string) => Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
    const main = nice(String(process.pid));
    const threads = readdirSync('/proc/self/task').map(nice);
    expect(threads).toContain(Math.min(19, main + RENDER_NICE_STEP));
    const [{ n }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS n FROM documents WHERE ${pdfFilesOf('documents.id')} IS NOT NULL`);
    expect(n).toBe(12);
    const [{ events }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS events FROM outbox_events WHERE event = 'document.pdf_ready'`);
    expect(events).toBe(12);
  });

  it('render one at a time while the process answers a burst of requests, and together again once the oldest has waited PDF_YIELD_MS', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    // A server of this process holding requests open: with BURST_REQUESTS of them, the process answers a burst.
    const waiting: http.ServerResponse[] = [];
    const answer = () => waiting.splice(0).forEach((res) => res.end('ok'));
    const server = http.createServer((_req, res) => void waiting.push(res));
    countRequestsInFlight(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const before = requestsInFlight();
    const agent = new http.Agent({ keepAlive: false });
    const request = () =>
      new Promise<string>((resolve, reject) =>
        http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => res.on('data', () => {}).on('end', () => resolve('answered'))).on('error', reject),
      );
    const held = Array.from({ length: BURST_REQUESTS - 1 }, request);
    // One more whose client goes away before the answer: it stops counting when its connection closes.
    const dropped = http.get({ host: '127.0.0.1', port, path: '/', agent }).on('error', () => {});
    try {
      await expect.poll(requestsInFlight).toBe(before + BURST_REQUESTS);
      dropped.destroy();
      await expect.poll(requestsInFlight).toBe(before + BURST_REQUESTS - 1);
      // One request fewer than a burst: renders go on together.
      for (let i = 0; i < 6; i++) await issueDoc(env, a.test, b.id);
      expect(await mostAtOnce(6)).toBeGreaterThan(1);
      held.push(request());
      await expect.poll(requestsInFlight).toBe(before + BURST_REQUESTS);
      for (let i = 0; i < 6; i++) await issueDoc(env, a.test, b.id);
      expect(await mostAtOnce(6)).toBe(1);
      // PDFs that have waited PDF_YIELD_MS (default 30 s) no longer give way.
      for (let i = 0; i < 6; i++) await issueDoc(env, a.test, b.id);
      env.clock.advance(env.s.config.prints.yieldMs);
      expect(await mostAtOnce(6)).toBeGreaterThan(1);
      // With no request in flight they run together at once.
      answer();
      expect(await Promise.all(held)).toEqual(held.map(() => 'answered'));
      await expect.poll(requestsInFlight).toBe(before);
      for (let i = 0; i < 6; i++) await issueDoc(env, a.test, b.id);
      expect(await mostAtOnce(6)).toBeGreaterThan(1);
    } finally {
      answer();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

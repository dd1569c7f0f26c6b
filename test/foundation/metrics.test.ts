import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { once } from 'node:events';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { alive, killServer, postmasterPid, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { JobRunner } from '../../src/platform/jobs.ts';
import { recordEvent } from '../../src/platform/outbox.ts';
import { allJobHandlers } from '../../src/domains.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';
import type { WebhookSender } from '../../src/webhooks/sender.ts';
import { insertPendingIssued } from '../allocation/fixtures.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv({ env: { METRICS_TOKEN: TOKEN } });
  a = await env.account();
});
afterAll(async () => env?.close());

const scrape = (token = TOKEN) => env.call('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });

/** The value of one series in a Prometheus text answer; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics access', () => {
  it('answers 503 unconfigured naming METRICS_TOKEN when no token is configured', async () => {
    const bare = await createTestEnv();
    try {
      const r = await bare.call('GET', '/metrics');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ reason: 'unconfigured' });
      expect(r.body.error).toContain('METRICS_TOKEN');
    } finally {
      await bare.close();
    }
  });

  it('refuses a missing or wrong Bearer token with 401', async () => {
    const none = await env.call('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ reason: 'unauthorized' });
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect((await scrape(`${TOKEN}x`)).status).toBe(401);
    expect((await env.call('GET', '/metrics', { headers: { authorization: TOKEN } })).status).toBe(401);
  });

  it('checks METRICS_TOKEN when the configuration loads', () => {
    expect(() => loadConfig({ PINKAS_ENV: 'test', METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ PINKAS_ENV: 'test', METRICS_TOKEN: 'has a space in it 0123' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ PINKAS_ENV: 'test' }).metricsToken).toBeNull();
  });
});

describe('/metrics content', () => {
  it('counts requests by route pattern and status, with Node defaults and pool gauges', async () => {
    // The registry is the process's: what this test adds is read against what was there before it.
    const before = (await scrape()).raw.toString();
    const b = await env.business(a.test);
    await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test });
    await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test });
    await env.call('GET', '/v1/no-such-route', { key: a.test });
    const r = await scrape();
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = r.raw.toString();
    const added = (series: string) => (sample(text, series) ?? 0) - (sample(before, series) ?? 0);
    expect(added('pinkas_http_requests_total{method="GET",route="/v1/businesses/:bid",status_code="200"}')).toBe(2);
    expect(added('pinkas_http_requests_total{method="POST",route="/v1/businesses",status_code="201"}')).toBe(1);
    expect(added('pinkas_http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(1);
    // Never the raw URL: one series per route, not per business.
    expect(text).not.toContain(b.id);
    expect(added('pinkas_http_request_duration_seconds_count{method="GET",route="/v1/businesses/:bid",status_code="200"}')).toBe(2);
    expect(text).toContain('pinkas_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/businesses/:bid",status_code="200"}');
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'pinkas_db_pool_connections{mode="live"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'pinkas_db_pool_waiting_clients{mode="sandbox"}')).toBe(0);
  });

  it('counts documents issued and credit notes per type once committed, not a repeated issue', async () => {
    const before = (await scrape()).raw.toString();
    const count = (text: string, type: number) => sample(text, `pinkas_documents_issued_total{mode="sandbox",doc_type="${type}"}`) ?? 0;
    const b = await env.business(a.test);
    const draft = await env.call('POST', `/v1/businesses/${b.id}/documents`, {
      key: a.test,
      body: { docType: 305, party: { name: 'לקוח', taxId: TAX_IDS.person }, lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }] },
    });
    const id = draft.body.document.id;
    expect((await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/issue`, { key: a.test })).status).toBe(201);
    const again = await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/issue`, { key: a.test });
    expect(again.body.deduped).toBe(true);
    expect((await env.call('POST', `/v1/businesses/${b.id}/documents/${id}/credit-note`, { key: a.test, body: {} })).status).toBe(201);
    const after = (await scrape()).raw.toString();
    expect(count(after, 305) - count(before, 305)).toBe(1);
    expect(count(after, 330) - count(before, 330)).toBe(1);
  });

  it('reads job, webhook and outbox queues from the databases at scrape time', async () => {
    const due = new Date(env.clock.now().getTime() - 90_000).toISOString();
    const later = new Date(env.clock.now().getTime() + 60_000).toISOString();
    await env.sql(
      'live',
      `INSERT INTO jobs(id, kind, ref_id, run_at, created_at) VALUES
         ('job_m1', 'metrics.test', 'r1', '${due}', '${due}'), ('job_m2', 'metrics.test', 'r2', '${later}', '${due}'),
         ('job_m3', 'metrics.done', 'r3', '${due}', '${due}')`,
    );
    await env.sql('live', `UPDATE jobs SET done_at = '${due}' WHERE id = 'job_m3'`);
    const text = (await scrape()).raw.toString();
    expect(sample(text, 'pinkas_jobs_pending{mode="live",kind="metrics.test"}')).toBe(2);
    expect(sample(text, 'pinkas_jobs_oldest_due_age_seconds{mode="live",kind="metrics.test"}')).toBe(90);
    expect(sample(text, 'pinkas_jobs_pending{mode="live",kind="metrics.done"}')).toBeUndefined();
    expect(sample(text, 'pinkas_webhook_deliveries_pending{mode="live"}')).toBe(0);
    expect(sample(text, 'pinkas_webhook_deliveries_oldest_pending_age_seconds{mode="live"}')).toBe(0);
    // The businesses created above wrote events that no dispatcher fanned out (none runs in these tests).
    const [{ n }] = await env.sql<{ n: number }>('sandbox', 'SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL');
    expect(n).toBeGreaterThan(0);
    expect(sample(text, 'pinkas_outbox_events_pending{mode="sandbox"}')).toBe(n);
    expect(sample(text, 'pinkas_outbox_oldest_pending_age_seconds{mode="sandbox"}')).toBeGreaterThanOrEqual(0);
  });
});

describe('/metrics outcome counters', () => {
  const delta = (before: string, after: string, series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);

  it('counts webhook delivery attempts by outcome', async () => {
    setWebhookResolver(env.s, async () => ['93.184.216.34']);
    // Answers by path: /ok takes the delivery, /down answers 503 (tried again later).
    const sender = { send: async (url: string) => ({ status: url.endsWith('/ok') ? 200 : 503, durationMs: 1, error: null, body: '' }) };
    const dispatcher = new WebhookDispatcher(env.s, { sender: sender as unknown as WebhookSender });
    const owner = await env.account();
    for (const path of ['ok', 'down']) {
      expect((await env.call('POST', '/v1/webhooks', { key: owner.test, body: { url: `https://hooks.example.com/${path}` } })).status).toBe(201);
    }
    const before = (await scrape()).raw.toString();
    await env.db.sandbox.db.transaction((tx) =>
      recordEvent(tx, env.clock.now(), {
        event: 'expense.recorded',
        accountId: owner.id,
        businessId: null,
        data: { expenseId: 'exp_metrics_1', amountIncVat: 100, supplierName: null },
      }),
    );
    await dispatcher.runOnce('sandbox');
    const after = (await scrape()).raw.toString();
    expect(delta(before, after, 'pinkas_webhook_delivery_attempts_total{mode="sandbox",outcome="delivered"}')).toBe(1);
    expect(delta(before, after, 'pinkas_webhook_delivery_attempts_total{mode="sandbox",outcome="retry"}')).toBe(1);
    expect(sample(after, 'pinkas_webhook_deliveries_pending{mode="sandbox"}')).toBe(1);
  });

  it('counts allocation answers of the background requests', async () => {
    const b = await env.business(a.test);
    await insertPendingIssued(env, 'sandbox', b);
    await insertPendingIssued(env, 'sandbox', b, { note: 'הערה [sim:432]' });
    const before = (await scrape()).raw.toString();
    await new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, allJobHandlers(env.s)).runDue('sandbox');
    const after = (await scrape()).raw.toString();
    expect(delta(before, after, 'pinkas_allocation_outcomes_total{mode="sandbox",outcome="granted"}')).toBe(1);
    expect(delta(before, after, 'pinkas_allocation_outcomes_total{mode="sandbox",outcome="refused"}')).toBe(1);
  });
});

describe('/metrics of a supervised server (WEB_CONCURRENCY=2)', () => {
  const dataDir = tempDataDir('pinkas-metrics-');
  let server: ServerProcess | null = null;
  afterAll(async () => {
    if (server) await killServer(server);
    const pm = postmasterPid(dataDir);
    if (pm && alive(pm)) process.kill(pm, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sums the requests of every worker process in one scrape', async () => {
    server = await startServer(dataDir, { via: 'node', env: { WEB_CONCURRENCY: '2', METRICS_TOKEN: TOKEN } });
    // A new connection per request, so that they spread over the web workers.
    for (let i = 0; i < 8; i++) await (await fetch(`${server.base}/healthz`, { headers: { connection: 'close' } })).text();
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } });
      expect(r.status).toBe(200);
      const text = await r.text();
      expect(sample(text, 'pinkas_http_requests_total{method="GET",route="/healthz",status_code="200"}')).toBe(8);
      // The Node metrics of all three workers (two web, one background) are summed as well.
      expect(text).toContain('nodejs_heap_size_used_bytes');
      expect(sample(text, 'pinkas_jobs_pending{mode="live",kind="metrics.test"}')).toBeUndefined();
      expect(sample(text, 'pinkas_webhook_deliveries_pending{mode="live"}')).toBe(0);
    }
  }, 120_000);

  it("forwards the web workers' requests in flight to the background worker (its render jobs give way to a burst)", async () => {
    const url = new URL(server!.base);
    // Requests held open: authenticated, headers sent, the body not yet (so the API waits for it); each on its own
    // connection, so they spread over the web workers.
    const held = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const socket = net.connect(Number(url.port), url.hostname);
        await once(socket, 'connect');
        socket.write(
          `POST /v1/businesses HTTP/1.1\r\nhost: ${url.host}\r\nx-api-key: ${server!.firstKey()}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
        );
        return socket;
      }),
    );
    const inFlight = async () => {
      const text = await (await fetch(`${server!.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } })).text();
      return { here: sample(text, 'pinkas_requests_in_flight{counted="here"}'), elsewhere: sample(text, 'pinkas_requests_in_flight{counted="elsewhere"}') };
    };
    let seen = await inFlight();
    for (let i = 0; i < 100 && !(seen.elsewhere! >= 4); i++) seen = await inFlight();
    // The web workers count the 4 held and the scrape; the background worker heard of the 4 at least.
    expect(seen.here).toBeGreaterThanOrEqual(5);
    expect(seen.elsewhere).toBeGreaterThanOrEqual(4);
    for (const socket of held) socket.destroy();
    for (let i = 0; i < 100 && !(seen.elsewhere! <= 1); i++) seen = await inFlight();
    expect(seen.elsewhere).toBeLessThanOrEqual(1);
  }, 60_000);
});

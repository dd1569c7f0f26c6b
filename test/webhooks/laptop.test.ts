/**
 * Webhooks on a laptop (issue 32): a sandbox endpoint of a server not in production may be
 * http://localhost, delivered over plain HTTP to this machine only; live endpoints and production
 * servers keep the https-and-public rules, at registration and at every delivery.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { checkTargetUrl, loopbackHttpAllowed } from '../../src/webhooks/ssrf.ts';

interface Got {
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

/** A plain HTTP receiver on 127.0.0.1, as a developer runs one. */
async function startReceiver(): Promise<{ server: Server; port: number; got: Got[] }> {
  const got: Got[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, got };
}

let dev: TestEnv;
let prod: TestEnv;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let a: TestAccount;

beforeAll(async () => {
  receiver = await startReceiver();
  // No WEBHOOK_ALLOW_PRIVATE_TARGETS, no CA file: what a new user has.
  dev = await createTestEnv({ env: { PINKAS_ENV: 'development', EXCHANGE_RATES_URL: 'off' } });
  prod = await createTestEnv({ env: { PINKAS_ENV: 'production', EXCHANGE_RATES_URL: 'off' } });
  a = await dev.account();
});
afterAll(async () => {
  await dev?.close();
  await prod?.close();
  await new Promise((resolve) => receiver?.server.close(resolve));
});

const create = (env: TestEnv, key: string, url: string) => env.call('POST', '/v1/webhooks', { key, body: { url } });

describe('a sandbox endpoint on a server not in production', () => {
  it('may be http://localhost, 127.0.0.1 or [::1], and receives signed deliveries over plain HTTP', async () => {
    for (const host of ['localhost', '127.0.0.1', '127.0.0.2', '[::1]']) {
      const res = await create(dev, a.test, `http://${host}:${receiver.port}/hooks`);
      expect(res.status, `${host}: ${JSON.stringify(res.body)}`).toBe(201);
      await dev.call('DELETE', `/v1/webhooks/${res.body.webhook.id}`, { key: a.test });
    }
    const wh = (await create(dev, a.test, `http://localhost:${receiver.port}/hooks`)).body.webhook;
    const b = await dev.business(a.test);
    expect((await dev.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test })).status).toBe(200);
    await new WebhookDispatcher(dev.s).runOnce('sandbox');
    expect(receiver.got).toHaveLength(1);
    const [req] = receiver.got;
    expect(req.headers['x-service-event']).toBe('business.status_changed');
    expect(verifyWebhook(wh.secret, req.raw, req.headers['x-service-signature'] as string, { now: dev.clock.now() }).ok).toBe(true);
    const [delivery] = (await dev.call('GET', `/v1/webhooks/${wh.id}/deliveries`, { key: a.test })).body.deliveries;
    expect(delivery).toMatchObject({ status: 'delivered', attempts: [{ responseStatus: 204, error: null }] });
    const probe = await dev.call('POST', `/v1/webhooks/${wh.id}/test`, { key: a.test });
    expect(probe.body.delivered).toBe(true);
  });

  it('still refuses plain http anywhere but this machine, and credentials', async () => {
    for (const [url, problem] of [
      ['http://example.com/hooks', 'body.url: must use https'],
      ['http://10.0.0.1/hooks', 'body.url: must use https'],
      ['http://localhost.example.com/hooks', 'body.url: must use https'],
      ['http://user:pw@localhost:8080/hooks', 'body.url: must not carry credentials'],
      // https to loopback keeps today's rules (a certificate would be needed anyway).
      ['https://localhost:8080/hooks', 'body.url: is refused'],
    ]) {
      const res = await create(dev, a.test, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toContain(problem);
    }
  });
});

describe('live keys and production servers keep the rules', () => {
  it('a live endpoint may not be http://localhost, nor change to it', async () => {
    const res = await create(dev, a.live, `http://localhost:${receiver.port}/hooks`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('body.url: must use https (plain http to localhost is for sandbox keys, on a server that is not in production)');
  });

  it('a production server refuses it for sandbox keys too', async () => {
    const p = await prod.account();
    const res = await create(prod, p.test, `http://localhost:${receiver.port}/hooks`);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('must use https');
  });

  it('a delivery re-checks: a live endpoint (or a production server) never sends plain http', async () => {
    const before = receiver.got.length;
    const p = await prod.account();
    const rows = [
      [dev, a.id, 'live'],
      [prod, p.id, 'sandbox'],
    ] as const;
    for (const [env, accountId, mode] of rows) {
      // Written around the API (say, by a migration of an older server): the dispatcher still refuses it.
      await env.sql(
        mode,
        `INSERT INTO webhook_endpoints(id, account_id, url, secret, created_at, updated_at)
         VALUES ('we_plain_${mode}', '${accountId}', 'http://127.0.0.1:${receiver.port}/hooks', 'whsec_x', now(), now())`,
      );
      await env.sql(
        mode,
        `INSERT INTO outbox_events(id, event, account_id, data, created_at) VALUES ('evt_plain_${mode}', 'expense.recorded', '${accountId}', '{}', now())`,
      );
      await new WebhookDispatcher(env.s).runOnce(mode);
      const [attempt] = await env.sql(
        mode,
        `SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = 'we_plain_${mode}'`,
      );
      expect(attempt.error).toMatch(/^refused target: must use https/);
    }
    expect(receiver.got.length).toBe(before);
  });

  it('the rule itself: sandbox outside production only', () => {
    expect(loopbackHttpAllowed('development', 'sandbox')).toBe(true);
    expect(loopbackHttpAllowed('test', 'sandbox')).toBe(true);
    expect(loopbackHttpAllowed('production', 'sandbox')).toBe(false);
    expect(loopbackHttpAllowed('development', 'live')).toBe(false);
    expect(checkTargetUrl('http://0x7f.1:8080/', { allowPrivate: false, loopbackHttp: true })).toMatchObject({ ok: true, loopback: true });
    expect(checkTargetUrl('http://[::ffff:127.0.0.1]/', { allowPrivate: false, loopbackHttp: true }).ok).toBe(false);
    expect(checkTargetUrl('http://localhost/', { allowPrivate: true, loopbackHttp: false }).ok).toBe(false);
  });
});

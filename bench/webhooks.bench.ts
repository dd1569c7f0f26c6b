/**
 * Webhook figures on embedded PostgreSQL: fan-out of outbox events into deliveries, and delivery
 * throughput to a local HTTPS receiver (keep-alive, signed, recorded), plus signature checks/s.
 * BENCH_DATABASE_URL=postgres://… runs the database part on a server too, in scratch databases
 * created through that URL and dropped afterwards.
 */
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import type { Database } from '../src/platform/db/engine.ts';
import { createServices } from '../src/services.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { recordEvent } from '../src/platform/outbox.ts';
import { newId } from '../src/platform/ids.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { closeWebhookSender, setWebhookResolver } from '../src/webhooks/runtime.ts';
import { signWebhook, verifyWebhook } from '../src/webhooks/signature.ts';
import { Receiver } from '../test/webhooks/receiver.ts';
import { embeddedDatabases, serverDatabases } from './databases.ts';

const EVENTS = 2_000;
const ENDPOINTS = 3;

async function bench(label: string, sandbox: Database, live: Database, receiver: Receiver) {
  const config = loadConfig({
    PINKAS_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: '/nonexistent',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_CA_FILE: receiver.caFile,
  });
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  setWebhookResolver(s, async () => ['127.0.0.1']);
  const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
  const now = new Date().toISOString();
  for (let i = 0; i < ENDPOINTS; i++) {
    await sandbox.db.execute(
      sql`INSERT INTO webhook_endpoints(id, account_id, url, events, secret, created_at, updated_at)
          VALUES (${newId('we')}, ${account.id}, ${receiver.url(`/bench/${i}`)}, '{}', 'whsec_bench', ${now}, ${now})`,
    );
  }
  await sandbox.db.transaction(async (tx) => {
    for (let i = 0; i < EVENTS; i++)
      await recordEvent(tx, new Date(), {
        event: 'expense.recorded',
        accountId: account.id,
        businessId: null,
        data: { expenseId: `exp_bench_${i}`, amountIncVat: i, supplierName: null },
      });
  });
  const dispatcher = new WebhookDispatcher(s, { batch: 50, concurrency: 16 });
  let t = performance.now();
  let events = 0;
  for (;;) {
    const n = await dispatcher.fanOut(sandbox, 200);
    if (n === 0) break;
    events += n;
  }
  const fanMs = performance.now() - t;
  t = performance.now();
  const r = await dispatcher.runOnce('sandbox');
  const sendMs = performance.now() - t;
  const deliveries = EVENTS * ENDPOINTS;
  console.log(`${label}: fan-out ${events} events → ${deliveries} deliveries in ${fanMs.toFixed(0)} ms (${((events / fanMs) * 1000).toFixed(0)} events/s)`);
  console.log(
    `${label}: sent ${r.attempted} deliveries in ${sendMs.toFixed(0)} ms (${((r.attempted / sendMs) * 1000).toFixed(0)} deliveries/s, HTTPS keep-alive, concurrency 16)`,
  );
  await closeWebhookSender(s);
}

async function main() {
  const receiver = new Receiver();
  await receiver.start();
  try {
    const embedded = await embeddedDatabases();
    try {
      await bench('embedded PostgreSQL', embedded.sandbox, embedded.live, receiver);
    } finally {
      await embedded.close();
    }
    const url = process.env.BENCH_DATABASE_URL;
    if (url) {
      const server = await serverDatabases(undefined, url);
      if (server) {
        try {
          await bench('PostgreSQL', server.sandbox, server.live, receiver);
        } finally {
          await server.close();
        }
      }
    }
  } finally {
    await receiver.stop();
  }

  const body = Buffer.from(JSON.stringify({ id: 'del_x', event: 'document.issued', data: { documentId: 'doc_x', total: 11800 } }));
  const header = signWebhook('whsec_bench', body, Math.floor(Date.now() / 1000));
  const n = 100_000;
  const t = performance.now();
  for (let i = 0; i < n; i++) verifyWebhook('whsec_bench', body, header);
  const ms = performance.now() - t;
  console.log(`verifyWebhook: ${((n / ms) * 1000).toFixed(0)} checks/s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

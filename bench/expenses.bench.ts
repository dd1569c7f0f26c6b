/**
 * Expenses figures on embedded PostgreSQL: draft+record throughput, receipt upload
 * (JSON data URI, full decode check) throughput, and a 60-id thumbnail batch.
 */
import sharp from 'sharp';
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { decodeCheck } from '../src/expenses/receipt-image.ts';
import { embeddedDatabases } from './databases.ts';

const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: '/nonexistent' });
const { live, sandbox, close } = await embeddedDatabases();
try {
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  const app = await buildApp(s);
  try {
    await app.ready();
    const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
    const { secret: key } = await mintKey(live.db, new Date(), { accountId: account.id, mode: 'test' });
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await app.inject({
        method: method as 'POST',
        url,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const business = async () => (await call('POST', '/v1/businesses', { name: 'bench', taxId: '516179157', dealerType: 'company' })).business.id as string;
    const rate = (n: number, ms: number) => `${n} in ${ms.toFixed(0)} ms = ${((n * 1000) / ms).toFixed(0)}/s`;

    // 1. Draft + record, sequential (the daily backstop is 300 rows per business: spread over businesses).
    {
      const n = 600;
      const bids = [await business(), await business(), await business()];
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const bid = bids[i % 3];
        const d = await call('POST', `/v1/businesses/${bid}/expenses`, {
          categoryKey: 'office',
          supplier: { name: `ספק ${i}` },
          supplierDocDate: '2026-01-15',
          amountExVat: 10000 + i,
          vatAmount: 1800,
        });
        await call('POST', `/v1/businesses/${bid}/expenses/${d.expense.id}/record`);
      }
      console.log(`draft + record (2 requests each): ${rate(n, performance.now() - t0)}`);
    }

    // 2. Uploads of phone-sized JPEG receipts (1600×1200, ~quality 80), JSON data URI.
    const photos: Buffer[] = [];
    for (let i = 0; i < 60; i++) {
      photos.push(
        await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128 + i, sigma: 30 } } })
          .jpeg({ quality: 80 })
          .toBuffer(),
      );
    }
    const bid = await business();
    const ids: string[] = [];
    {
      const t0 = performance.now();
      for (const p of photos) {
        const r = await call('POST', `/v1/businesses/${bid}/expenses/upload`, { file: `data:image/jpeg;base64,${p.toString('base64')}` });
        ids.push(r.expense.receiptFileId);
      }
      const avgKb = photos.reduce((a, p) => a + p.length, 0) / photos.length / 1024;
      console.log(`upload 1600×1200 JPEG (~${avgKb.toFixed(0)} KB, decode-checked, stored): ${rate(photos.length, performance.now() - t0)}`);
    }

    // 3. A full thumbnail batch.
    {
      const t0 = performance.now();
      const r = await call('POST', `/v1/businesses/${bid}/files/thumbs`, { ids });
      const ms = performance.now() - t0;
      const bytes = Object.values(r.thumbs as Record<string, string>).reduce((a, u) => a + u.length, 0);
      console.log(`thumbs batch of ${ids.length}: ${ms.toFixed(0)} ms (${(ms / ids.length).toFixed(1)} ms each), answer ${(bytes / 1024).toFixed(0)} KB`);
    }

    // 4. The decode check alone on a 12 MP photo.
    {
      const big = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
        .jpeg({ quality: 85 })
        .toBuffer();
      const t0 = performance.now();
      for (let i = 0; i < 5; i++) await decodeCheck(big);
      console.log(`decode check of a 4000×3000 JPEG (${(big.length / 1048576).toFixed(1)} MB): ${((performance.now() - t0) / 5).toFixed(0)} ms`);
    }
    console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    await app.close();
  }
} finally {
  await close();
}

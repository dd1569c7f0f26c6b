import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { FakeTwilio } from '../console/fake-twilio.ts';
import { approveWithCli } from '../console/helpers.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots land in .tmp/e2e; `E2E_SCREENSHOTS_DIR=docs` refreshes the committed ones. */
const SHOTS = path.resolve(process.env.E2E_SCREENSHOTS_DIR ?? '.tmp/e2e');

let env: TestEnv;
let browser: Browser;
let base = '';
const sms = new FakeTwilio();

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  mkdirSync(SHOTS, { recursive: true });
  await sms.start();
  env = await createTestEnv({ env: sms.env() });
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await env?.close();
  await sms.stop();
});

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, `console-${name}.png`), fullPage: true });
}

describe('console in a browser', () => {
  it('sign-up, operator approval, sign-in with the SMS code, mint a key, use it, revoke it, see 401', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    const email = 'founder@acme-integrations.example';
    const password = 'correct horse battery staple';

    // Sign-up: the account waits for the operator.
    await page.goto(`${base}/console`);
    await page.click('text=Create one');
    await page.fill('#f-name', 'Acme Integrations Ltd');
    await page.fill('#f-email', email);
    await page.fill('#f-phone', '050-765-4321');
    await page.fill('#f-password', password);
    await shot(page, 'sign-up');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('main')).toContain('waiting for approval');
    const [row] = await env.sql<{ id: string; approval_status: string }>('live', `SELECT id, approval_status FROM accounts WHERE email = '${email}'`);
    expect(row.approval_status).toBe('pending');

    // The operator approves with the CLI command.
    await approveWithCli(env, row.id);

    // Sign-in: password, then the code captured by the fake SMS gateway.
    await page.goto(`${base}/console/sign-in`);
    await page.fill('#f-email', email);
    await page.fill('#f-password', password);
    await shot(page, 'sign-in');
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/console/verify`);
    await shot(page, 'verify');
    const code = sms.lastCode('+972507654321');
    await page.fill('#f-code', code);
    await page.click('form[action="/console/verify"] button[type=submit]');
    await page.waitForURL(`${base}/console/keys`);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'pinkas_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Lax');
    expect(await page.evaluate<string>('document.cookie')).not.toContain('pinkas_session');

    // Mint a sandbox key: shown once, with a copy button.
    await page.fill('#f-label', 'billing server');
    await page.check('input[name=mode][value=test]');
    await page.check('input[name=scopes][value=businesses]');
    await page.check('input[name=scopes][value=documents]');
    await page.uncheck('input[name=scopes][value=expenses]');
    await page.uncheck('input[name=scopes][value=export]');
    expect(await page.isDisabled('input[name=scopes][value=ocr]')).toBe(true);
    await page.click('#mint button[type=submit]');
    await page.waitForSelector('#new-key');
    const secret = await page.inputValue('#new-key');
    expect(secret).toMatch(/^bk_test_[0-9A-Za-z]{32}$/);
    await page.click('[data-copy="new-key"]');
    await expect.poll(() => page.textContent('[data-copy="new-key"]')).toBe('Copied');
    await shot(page, 'keys-minted');

    // The key works on the API.
    const ok = await fetch(`${base}/v1/keys`, { headers: { 'X-Api-Key': secret } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-service-mode')).toBe('sandbox');
    const created = await fetch(`${base}/v1/businesses`, {
      method: 'POST',
      headers: { 'X-Api-Key': secret, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'חנות הדוגמה בע"מ', taxId: TAX_IDS.company, dealerType: 'company' }),
    });
    expect(created.status).toBe(201);

    // Usage: a chart per day and the business.
    await page.click('nav >> text=Usage');
    await page.selectOption('#f-mode', 'sandbox');
    await page.click('form.filters button');
    await page.waitForURL(/mode=sandbox/);
    expect(await page.locator('svg.chart').count()).toBe(5);
    expect(await page.textContent('table.businesses')).toContain('חנות הדוגמה');
    await shot(page, 'usage');

    // Hebrew, right to left.
    await page.click('a.lang');
    await page.waitForSelector('html[dir=rtl]');
    expect(await page.getAttribute('html', 'lang')).toBe('he');
    await shot(page, 'usage-he');
    await page.click('nav >> text=מפתחות API');
    await page.waitForSelector('html[dir=rtl]');
    await shot(page, 'keys-he');
    await page.click('a.lang');
    await page.waitForSelector('html[dir=ltr]');

    // Revoke it (the confirm dialog is accepted); the API answers 401.
    await page.goto(`${base}/console/keys`);
    const row1 = page.locator('#keys tbody tr', { hasText: 'billing server' });
    await row1.locator('button.danger').click();
    await expect.poll(() => page.textContent('main')).toContain('was revoked');
    await shot(page, 'keys-revoked');
    const refused = await fetch(`${base}/v1/keys`, { headers: { 'X-Api-Key': secret } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ reason: 'unauthorized' });

    // Sign out: the keys page is closed again.
    await page.click('nav button.link');
    await page.waitForURL(`${base}/console/sign-in`);
    await page.goto(`${base}/console/keys`);
    expect(page.url()).toBe(`${base}/console/sign-in`);
    await context.close();
  });
});

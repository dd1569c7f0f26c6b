import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/platform/config.ts';
import { AppError } from '../../src/platform/errors.ts';
import { LogSmsSender, smsSenderFor, TwilioSmsSender } from '../../src/console/sms.ts';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { query } from '../../src/platform/db/sql.ts';
import { createServices } from '../../src/services.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { ConsoleClient, textOf } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { signUpThroughConsole } from './helpers.ts';

const fake = new FakeTwilio();
beforeAll(async () => {
  await fake.start();
});
afterAll(async () => {
  await fake.stop();
});

describe('Twilio Messages API client', () => {
  it('posts To/From/Body form-encoded with basic auth to the account Messages resource', async () => {
    const sender = new TwilioSmsSender({ baseUrl: fake.url, accountSid: fake.accountSid, authToken: fake.authToken, from: '+15005550006' });
    await sender.send('+972501234567', 'Your pinkas sign-in code: 123456.');
    expect(fake.messages.at(-1)).toEqual({ accountSid: fake.accountSid, to: '+972501234567', from: '+15005550006', body: 'Your pinkas sign-in code: 123456.' });
  });

  it('turns a refusal into a 502 provider error carrying the gateway message', async () => {
    const bad = new TwilioSmsSender({ baseUrl: fake.url, accountSid: fake.accountSid, authToken: 'wrong', from: '+15005550006' });
    const err = await bad.send('+972501234567', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(502);
    expect((err as AppError).reason).toBe('provider');
    expect((err as AppError).message).toContain('HTTP 401: Authenticate (code 20003)');
  });

  it('reports an unreachable gateway as 502', async () => {
    const down = new TwilioSmsSender({ baseUrl: 'http://127.0.0.1:9', accountSid: 'AC1', authToken: 't', from: '+1' }, 2000);
    const err = (await down.send('+972501234567', 'x').catch((e: unknown) => e)) as AppError;
    expect(err.status).toBe(502);
    expect(err.message).toContain('could not be reached');
  });
});

describe('without a gateway', () => {
  it('development and test write the code to the server log', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const sender = smsSenderFor(loadConfig({ PINKAS_ENV: 'development' }), logger);
    expect(sender).toBeInstanceOf(LogSmsSender);
    await sender!.send('+972501234567', 'Your pinkas sign-in code: 654321.');
    const entry = JSON.parse(lines[0]);
    expect(entry.to).toBe('+972501234567');
    expect(entry.sms).toContain('654321');
  });

  it('production has no sender, and the console refuses sign-in with a clear message (Secure cookies on)', async () => {
    expect(smsSenderFor(loadConfig({ PINKAS_ENV: 'production' }), pino({ level: 'silent' }))).toBeNull();
    const env = await createTestEnv({ env: { PINKAS_ENV: 'production' } });
    try {
      const c = new ConsoleClient(env.app);
      const page = await c.get('/console/sign-in');
      expect(page.status).toBe(503);
      expect(textOf(page.body)).toContain('no SMS gateway configured');
      expect(page.body).toContain('TWILIO_ACCOUNT_SID');
      expect(page.setCookies.find((x) => x.name === 'pinkas_pre')?.secure).toBe(true);
      const account = await signUpThroughConsole(env, c);
      const res = await c.post('/console/sign-in', { email: account.email, password: account.password });
      expect(res.status).toBe(503);
      expect(c.cookies.has('pinkas_session')).toBe(false);
      expect(await env.sql('live', `SELECT 1 FROM console_sessions`)).toHaveLength(0);
    } finally {
      await env.close();
    }
  });

  it('the development sign-in works end to end with the code read from the server log', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const live = await freshDatabase('live');
    const sandbox = await freshDatabase('sandbox');
    const config = loadConfig({ PINKAS_ENV: 'development', LOG_LEVEL: 'info', DATA_DIR: '/nonexistent' });
    const s = createServices(config, new ManualClock('2026-03-01T08:00:00.000Z'), logger, { live: live.database, sandbox: sandbox.database });
    const app = await buildApp(s);
    try {
      const env = { sql: (mode: 'live', text: string) => query(s.databases[mode].db, sql.raw(text)) } as unknown as TestEnv;
      const c = new ConsoleClient(app);
      const account = await signUpThroughConsole(env, c);
      await c.get('/console/sign-in');
      const res = await c.post('/console/sign-in', { email: account.email, password: account.password });
      expect(res.location).toBe('/console/verify');
      const logged = lines.map((l) => JSON.parse(l)).find((e) => typeof e.sms === 'string');
      expect(logged.to).toBe(account.phone);
      const code = String(logged.sms).match(/\b(\d{6})\b/)![1];
      const ok = await c.post('/console/verify', { code });
      expect(ok.location).toBe('/console/keys');
    } finally {
      await app.close();
      await live.drop();
      await sandbox.drop();
    }
  });
});

describe('configuration', () => {
  it('names the missing variable when the gateway is half configured', () => {
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: 'AC1' })).toThrow(ConfigError);
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: 'AC1' })).toThrow(/TWILIO_AUTH_TOKEN/);
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't' })).toThrow(/SMS_FROM/);
    expect(() => loadConfig({ CONSOLE_SECURE_COOKIES: 'yes' })).toThrow(/CONSOLE_SECURE_COOKIES/);
    const c = loadConfig({ TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't', SMS_FROM: '+1555' });
    expect(c.console.sms).toEqual({ baseUrl: 'https://api.twilio.com', accountSid: 'AC1', authToken: 't', from: '+1555' });
    expect(loadConfig({ PINKAS_ENV: 'production', CONSOLE_SECURE_COOKIES: 'false' }).console.secureCookies).toBe(false);
    expect(loadConfig({ PINKAS_ENV: 'development' }).console.secureCookies).toBe(false);
  });
});

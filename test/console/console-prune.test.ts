import { afterAll, beforeAll, expect, it } from 'vitest';
import { pruneConsoleRecords } from '../../src/console/prune.ts';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { signedInClient } from './helpers.ts';

let env: TestEnv;
const sms = new FakeTwilio();
beforeAll(async () => {
  await sms.start();
  env = await createTestEnv({ env: sms.env() });
});
afterAll(async () => {
  await env?.close();
  await sms.stop();
});

it('drops old attempts after a day and dead sessions with their codes after 30 days, keeping live ones', async () => {
  const { c } = await signedInClient(env, sms);
  await c.post('/console/sign-out');
  const counts = async () => {
    const [r] = await env.sql<{ a: number; o: number; s: number }>(
      'live',
      `SELECT (SELECT count(*)::int FROM console_sign_in_attempts) AS a, (SELECT count(*)::int FROM console_otps) AS o,
              (SELECT count(*)::int FROM console_sessions) AS s`,
    );
    return r;
  };
  const before = await counts();
  expect(before.a).toBeGreaterThan(0);
  expect(await pruneConsoleRecords(env.db.live.db, env.clock.now())).toEqual({ attempts: 0, codes: 0, sessions: 0 });

  env.clock.advance(2 * 86_400_000);
  const { c: fresh } = await signedInClient(env, sms);
  const day2 = await pruneConsoleRecords(env.db.live.db, env.clock.now());
  expect(day2.attempts).toBe(before.a);
  expect(day2.sessions).toBe(0);

  env.clock.advance(31 * 86_400_000);
  const later = await pruneConsoleRecords(env.db.live.db, env.clock.now());
  expect(later.sessions).toBeGreaterThanOrEqual(1);
  expect(later.codes).toBeGreaterThanOrEqual(1);
  const after = await counts();
  expect(after.s).toBe(0);
  expect(after.o).toBe(0);
  // The recent sign-in's session was pruned only because it expired 30 days ago; its cookie is dead anyway.
  expect((await fresh.get('/console/keys')).location).toBe('/console/sign-in');
});

import { parseArgs } from '../../src/cli/args.ts';
import { commands } from '../../src/cli/commands.ts';
import type { TestEnv } from '../helpers/env.ts';
import { ConsoleClient } from './browser.ts';
import type { FakeTwilio } from './fake-twilio.ts';

let seq = 0;

/** Signs up through the console (account pending) and answers the account id and credentials. */
export async function signUpThroughConsole(env: TestEnv, c: ConsoleClient, name = 'Acme Integrations') {
  seq++;
  const email = `owner${seq}-${Date.now()}@example.com`;
  const phone = `+97254${String(seq).padStart(7, '0')}`;
  const password = 'correct horse battery';
  await c.get('/console/sign-up');
  const res = await c.post('/console/sign-up', { name, email, phone, password });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status}`);
  const [row] = await env.sql<{ id: string }>('live', `SELECT id FROM accounts WHERE email = '${email}'`);
  return { id: row.id, email, phone, password };
}

/** The operator's approval, through the CLI command itself (its logic, on the test databases). */
export async function approveWithCli(env: TestEnv, accountId: string) {
  return commands['accounts approve'].run(env.s, parseArgs(['accounts', 'approve', accountId]));
}

/** A client signed in (password + SMS code) on an account made through the console. */
export async function signedInClient(env: TestEnv, sms: FakeTwilio, opts: { approve?: boolean; ip?: string } = {}) {
  const c = new ConsoleClient(env.app, opts.ip ?? `192.0.2.${(seq % 250) + 1}`);
  const account = await signUpThroughConsole(env, c);
  if (opts.approve !== false) await approveWithCli(env, account.id);
  await c.get('/console/sign-in');
  const r = await c.post('/console/sign-in', { email: account.email, password: account.password });
  if (r.location !== '/console/verify') throw new Error(`sign-in failed: ${r.status}`);
  const v = await c.post('/console/verify', { code: sms.lastCode(account.phone) });
  if (v.location !== '/console/keys') throw new Error(`verify failed: ${v.status}`);
  return { c, account };
}

/** Mints a key through the console's form and answers its secret (shown once on the page). */
export async function mintThroughConsole(c: ConsoleClient, mode: 'live' | 'test', scopes = ['businesses', 'documents', 'expenses', 'export']): Promise<string> {
  await c.get('/console/keys');
  const res = await c.post('/console/keys', { label: `${mode} key`, mode, scopes });
  const secret = res.body.match(/id="new-key" readonly value="(bk_(?:live|test)_[0-9A-Za-z]{32})"/)?.[1];
  if (!secret) throw new Error(`mint failed: ${res.status}`);
  return secret;
}

import type { Executor } from '../platform/db/engine.ts';
import { notFound } from '../platform/errors.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { accountLedger, ensureChart, getAccount, listAccounts, type AccountView } from './store.ts';

/** The chart of accounts, the dealer type's default chart written first when the business has none yet. */
export async function chartOfAccounts(ex: Executor, b: BusinessRecord, at: Date): Promise<AccountView[]> {
  await ensureChart(ex, b.id, b.dealerType, at);
  return listAccounts(ex, b.id);
}

/** One account and its lines between `from` and `to` with the opening balance; 404 for an unknown code. */
export async function accountWithLedger(ex: Executor, b: BusinessRecord, { code, range, at }: { code: string; range: { from: string; to: string }; at: Date }) {
  await ensureChart(ex, b.id, b.dealerType, at);
  const account = await getAccount(ex, b.id, code);
  if (!account) throw notFound('account');
  return { account, ...(await accountLedger(ex, b.id, code, range)) };
}

import {
  createAccount,
  listAccounts,
  setAccountLimits,
  setAccountStatus,
  listKeys,
  mintKey,
  revokeKey,
  getPlan,
  listPlans,
  upsertPlan,
} from '../accounts/index.ts';
import { setApprovalStatus, setBusinessPlan } from '../businesses/index.ts';
import { verifyBooks } from '../documents/index.ts';
import { migrate } from '../platform/db/migrate.ts';
import { flag, modeFlag, optionalLimit, UsageError } from './args.ts';
import { restoreCommand } from './restore.ts';
import { migrateCommand, sweepCommand, verifyCommand } from './files.ts';

export type { Command } from './command.ts';
import type { Command } from './command.ts';

const APPROVAL = ['approved', 'pending', 'suspended'] as const;

/** Every operator command, keyed by "group verb". Domains add their own (e.g. backups restore). */
export const commands: Record<string, Command> = {
  'accounts create': {
    description: 'Create an account, approved',
    options: { '--name <N>': 'the account name (required)' },
    async run(s, args) {
      const a = await createAccount(s.databases.live.db, s.clock.now(), { name: flag(args, 'name', true), approvalStatus: 'approved' });
      return { json: { id: a.id, name: a.name, approvalStatus: a.approvalStatus }, text: `account ${a.id} (${a.name}) created, approved` };
    },
  },
  'accounts approve': {
    description: 'Approve an account (its keys may then work)',
    argument: 'ACCOUNT_ID',
    async run(s, args) {
      const id = args.positionals[2];
      if (!id) throw new UsageError('accounts approve needs ACCOUNT_ID');
      const a = await setAccountStatus(s.databases.live.db, id, 'approved');
      return { json: { id: a.id, name: a.name, approvalStatus: a.approvalStatus }, text: `account ${a.id} approved` };
    },
  },
  'accounts suspend': {
    description: 'Suspend an account (its keys are refused)',
    argument: 'ACCOUNT_ID',
    async run(s, args) {
      const id = args.positionals[2];
      if (!id) throw new UsageError('accounts suspend needs ACCOUNT_ID');
      const a = await setAccountStatus(s.databases.live.db, id, 'suspended');
      return { json: { id: a.id, name: a.name, approvalStatus: a.approvalStatus }, text: `account ${a.id} suspended` };
    },
  },
  'accounts list': {
    description: 'List the accounts',
    async run(s) {
      const accounts = await listAccounts(s.databases.live.db);
      return { json: { accounts }, text: accounts.map((a) => `${a.id}  ${a.approvalStatus.padEnd(9)}  ${a.name}`).join('\n') || '(none)' };
    },
  },
  'accounts set-limits': {
    description: "Set an account's own limits (over its plan's)",
    argument: 'ACCOUNT_ID',
    options: {
      '--max-keys <N>': 'most active keys',
      '--ocr <on|off>': 'receipt scanning granted',
      '--max-docs <N|none>': 'documents a month; none: the plan decides',
      '--max-expenses <N|none>': 'expenses a month; none: the plan decides',
    },
    async run(s, args) {
      const id = args.positionals[2];
      if (!id) throw new UsageError('accounts set-limits needs ACCOUNT_ID');
      const ocr = flag(args, 'ocr');
      if (ocr !== undefined && ocr !== 'on' && ocr !== 'off') throw new UsageError('--ocr must be on or off');
      const maxKeys = optionalLimit(args, 'max-keys');
      if (maxKeys === null) throw new UsageError('--max-keys needs a number');
      const a = await setAccountLimits(s.databases.live.db, id, {
        maxActiveKeys: maxKeys,
        ocrGranted: ocr === undefined ? undefined : ocr === 'on',
        maxDocsPerMonth: optionalLimit(args, 'max-docs'),
        maxExpensesPerMonth: optionalLimit(args, 'max-expenses'),
      });
      return {
        json: { account: a },
        text: `account ${a.id}: max keys ${a.maxActiveKeys}, ocr ${a.ocrGranted ? 'on' : 'off'}, docs/month ${a.maxDocsPerMonth ?? 'plan'}, expenses/month ${a.maxExpensesPerMonth ?? 'plan'}`,
      };
    },
  },
  'keys create': {
    description: 'Mint an API key (the secret is shown once)',
    options: {
      '--account <ID>': 'the account (required)',
      '--mode <test|live>': 'sandbox or live books (required)',
      '--label <L>': 'a name to tell keys apart',
      '--scopes <a,b>': 'comma-separated scopes (default: all but ocr)',
      '--expires <ISO-DATE-TIME>': 'when the key stops working',
    },
    async run(s, args) {
      const mode = flag(args, 'mode', true);
      if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode must be test or live');
      const expires = flag(args, 'expires');
      if (expires !== undefined && Number.isNaN(Date.parse(expires))) throw new UsageError('--expires must be an ISO date-time');
      const { key, secret } = await mintKey(s.databases.live.db, s.clock.now(), {
        accountId: flag(args, 'account', true),
        mode,
        label: flag(args, 'label') ?? null,
        scopes: flag(args, 'scopes')
          ?.split(',')
          .map((x) => x.trim())
          .filter(Boolean),
        expiresAt: expires ? new Date(expires) : null,
      });
      return {
        json: { id: key.id, key: secret, prefix: key.prefix, mode: key.mode, scopes: key.scopes },
        text: `key ${key.id} (${key.mode}, scopes ${key.scopes.join(',')}). Shown once:\n${secret}`,
      };
    },
  },
  'keys revoke': {
    description: 'Revoke a key',
    argument: 'KEY_ID',
    async run(s, args) {
      const id = args.positionals[2];
      if (!id) throw new UsageError('keys revoke needs KEY_ID');
      const key = await revokeKey(s.databases.live.db, s.clock.now(), id);
      return { json: { id: key.id, revokedAt: key.revokedAt }, text: `key ${key.id} revoked at ${key.revokedAt}` };
    },
  },
  'keys list': {
    description: "List an account's keys",
    options: { '--account <ID>': 'the account (required)' },
    async run(s, args) {
      const keys = await listKeys(s.databases.live.db, flag(args, 'account', true));
      return {
        json: { keys },
        text: keys.map((k) => `${k.id}  ${k.prefix}…  ${k.mode}  ${k.revokedAt ? 'revoked' : 'active'}  ${k.label ?? ''}`).join('\n') || '(none)',
      };
    },
  },
  'businesses set-status': {
    description: "Set a business's approval status",
    argument: 'BUSINESS_ID',
    options: { '--status <approved|pending|suspended>': 'the new status (required)', '--mode <live|test>': 'the books it is in (required)' },
    async run(s, args) {
      const id = args.positionals[2];
      if (!id) throw new UsageError('businesses set-status needs BUSINESS_ID');
      const status = flag(args, 'status', true);
      if (!(APPROVAL as readonly string[]).includes(status)) throw new UsageError('--status must be approved, pending or suspended');
      const b = await setApprovalStatus(s, modeFlag(args), id, status as (typeof APPROVAL)[number]);
      return { json: { id: b.id, approvalStatus: b.approvalStatus }, text: `business ${b.id} is now ${b.approvalStatus}` };
    },
  },
  'plans create': {
    description: 'Create or change a plan',
    options: {
      '--key <K>': "the plan's key (required)",
      '--name <N>': "the plan's name (required)",
      '--max-docs <N|none>': 'documents a month; none: unlimited',
      '--max-expenses <N|none>': 'expenses a month; none: unlimited',
    },
    async run(s, args) {
      const plan = await upsertPlan(s.databases.live.db, s.clock.now(), {
        key: flag(args, 'key', true),
        name: flag(args, 'name', true),
        maxDocsPerMonth: optionalLimit(args, 'max-docs') ?? null,
        maxExpensesPerMonth: optionalLimit(args, 'max-expenses') ?? null,
      });
      return {
        json: { plan },
        text: `plan ${plan.key}: docs/month ${plan.maxDocsPerMonth ?? 'unlimited'}, expenses/month ${plan.maxExpensesPerMonth ?? 'unlimited'}`,
      };
    },
  },
  'plans list': {
    description: 'List the plans',
    async run(s) {
      const plans = await listPlans(s.databases.live.db);
      return {
        json: { plans },
        text: plans.map((p) => `${p.key}  ${p.name}  docs ${p.maxDocsPerMonth ?? '∞'}  expenses ${p.maxExpensesPerMonth ?? '∞'}`).join('\n') || '(none)',
      };
    },
  },
  'plans assign': {
    description: 'Put a business on a plan',
    argument: 'BUSINESS_ID',
    options: { '--plan <K|none>': 'the plan key; none: the free defaults (required)', '--mode <live|test>': 'the books it is in (required)' },
    async run(s, args) {
      const id = args.positionals[2];
      if (!id) throw new UsageError('plans assign needs BUSINESS_ID');
      const key = flag(args, 'plan', true);
      if (key !== 'none' && !(await getPlan(s.databases.live.db, key))) throw new UsageError(`no plan "${key}"`);
      const b = await setBusinessPlan(s, modeFlag(args), id, key === 'none' ? null : key);
      return { json: { id: b.id, planKey: b.planKey }, text: `business ${b.id} is on plan ${b.planKey ?? '(free defaults)'}` };
    },
  },
  migrate: {
    description: 'Apply the pending migrations to both databases',
    async run(s) {
      const live = await migrate(s.databases.live);
      const sandbox = await migrate(s.databases.sandbox);
      return { json: { live, sandbox }, text: `live: ${live.length} applied; sandbox: ${sandbox.length} applied (the rest were up to date)` };
    },
  },
  'audit verify': {
    description: 'Verify the audit chains, the protecting triggers and the issued documents',
    options: { '--mode <live|test>': 'the books to verify (required)' },
    async run(s, args) {
      const r = await verifyBooks(s.databases[modeFlag(args)].db);
      // Chains, protecting triggers, issued documents against their issue audit rows (src/platform/audit.ts).
      const line = (p: (typeof r.problems)[number]) =>
        p.chain === 'triggers' || p.chain === 'documents' ? p.problem : `${p.chain} #${p.seq ?? '-'}: ${p.problem}`;
      return {
        json: { ...r },
        text: r.ok
          ? `audit trail intact: ${r.chains} chains, ${r.rows} rows, ${r.triggers} protecting triggers enabled, ${r.documents} issued documents match their issue record`
          : `AUDIT TRAIL BROKEN:\n${r.problems.map(line).join('\n')}`,
      };
    },
  },
  'backups restore': restoreCommand,
  'files verify': verifyCommand,
  'files migrate': migrateCommand,
  'files sweep': sweepCommand,
};

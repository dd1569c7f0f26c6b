import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.ts';
import type { Services } from '../platform/http/services.ts';
import { randomToken } from '../platform/ids.ts';
import { accountWithKeys, revokeThroughConsole, usageView } from './account-data.ts';
import { accountMode } from './browse-scope.ts';
import { frameOf, signedIn, stateOf } from './context.ts';
import { field, fieldList } from './forms.ts';
import { t, type Lang } from './i18n.ts';
import { mintThroughConsole } from './mint.ts';
import { mintTokenOf } from './mint-tokens.ts';
import { SESSION_COOKIE } from './sessions.ts';
import { keysPage, type KeysView } from './views/keys-page.ts';
import { USAGE_DAY_CHOICES, usagePage } from './views/usage-page.ts';

const htmlType = 'text/html; charset=utf-8';

/** mintKey's refusals in the page's language; anything else keeps the service's own message. */
function mintRefusal(lang: Lang, err: AppError): string {
  if (err.reason === 'approval_required') return t(lang, 'keys_pending');
  if (err.reason === 'forbidden' && err.message.includes('ocr')) return t(lang, 'ocr_not_granted');
  const limit = err.reason === 'conflict' ? err.message.match(/\(limit (\d+)\)/) : null;
  if (limit) return t(lang, 'keys_limit', { max: limit[1] });
  return err.message;
}

async function renderKeys(
  s: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  { accountId, status, extra = {} }: { accountId: string; status: number; extra?: Partial<KeysView> },
) {
  const { account, keys } = await accountWithKeys(s.databases.live, accountId);
  // Every rendering of the form carries a fresh token: submitting it again is a repeat, a new form is a new key.
  const mintToken = randomToken(24);
  return reply
    .status(status)
    .type(htmlType)
    .send(keysPage(frameOf(req), { account, keys, nowMs: s.clock.now().getTime(), mintToken, ...extra }));
}

export function registerAccountPages(c: FastifyInstance, s: Services): void {
  registerKeysPage(c, s);
  registerMintForm(c, s);
  registerRevokeForm(c, s);
  registerUsagePage(c, s);
}

function registerKeysPage(c: FastifyInstance, s: Services): void {
  c.get('/keys', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const revoked = (req.query as { revoked?: string }).revoked;
    const lang = stateOf(req).lang;
    const message =
      typeof revoked === 'string' && /^bk_(live|test)_[0-9A-Za-z]{0,4}$/.test(revoked)
        ? { kind: 'ok' as const, text: t(lang, 'revoked_done', { prefix: revoked }) }
        : undefined;
    return renderKeys(s, req, reply, { accountId, status: 200, extra: { message } });
  });
}

function registerMintForm(c: FastifyInstance, s: Services): void {
  c.post('/keys', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const lang = stateOf(req).lang;
    const form = { label: field(req.body, 'label').trim(), mode: field(req.body, 'mode'), scopes: fieldList(req.body, 'scopes') };
    if (form.mode !== 'live' && form.mode !== 'test') {
      return renderKeys(s, req, reply, { accountId, status: 400, extra: { form, message: { kind: 'error', text: 'mode: must be live or test' } } });
    }
    if (form.scopes.length === 0) {
      return renderKeys(s, req, reply, {
        accountId,
        status: 400,
        extra: { form, message: { kind: 'error', text: `${t(lang, 'scopes')}: ${t(lang, 'err_required')}` } },
      });
    }
    try {
      const token = mintTokenOf(req);
      const sessionToken = req.cookies[SESSION_COOKIE]!;
      const outcome = await mintThroughConsole(s, { accountId, form: { ...form, mode: form.mode }, token, sessionToken });
      if (outcome.kind === 'conflict') {
        return renderKeys(s, req, reply, { accountId, status: 409, extra: { form, message: { kind: 'error', text: t(lang, 'mint_token_conflict') } } });
      }
      if (outcome.kind === 'repeat') {
        // Same flag as the JSON API's replays, for scripts posting the form.
        reply.header('Idempotent-Replayed', 'true');
        return renderKeys(s, req, reply, { accountId, status: 200, extra: { repeated: { key: outcome.key, secret: outcome.secret } } });
      }
      return renderKeys(s, req, reply, { accountId, status: 201, extra: { minted: { secret: outcome.secret, key: outcome.key } } });
    } catch (err) {
      if (err instanceof AppError) {
        return renderKeys(s, req, reply, { accountId, status: err.status, extra: { form, message: { kind: 'error', text: mintRefusal(lang, err) } } });
      }
      throw err;
    }
  });
}

function registerRevokeForm(c: FastifyInstance, s: Services): void {
  c.post('/keys/:id/revoke', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const id = (req.params as { id: string }).id;
    try {
      const key = await revokeThroughConsole(s, id, accountId);
      return reply.redirect(`/console/keys?revoked=${encodeURIComponent(key.prefix)}`, 303);
    } catch (err) {
      if (err instanceof AppError)
        return renderKeys(s, req, reply, { accountId, status: err.status, extra: { message: { kind: 'error', text: err.message } } });
      throw err;
    }
  });
}

function registerUsagePage(c: FastifyInstance, s: Services): void {
  c.get('/usage', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const q = req.query as { mode?: string; days?: string };
    // Without a choice, the mode the account has keys in (a sandbox-only integrator sees its sandbox figures).
    const mode = q.mode === 'sandbox' || q.mode === 'live' ? q.mode : await accountMode(s, accountId);
    const days = USAGE_DAY_CHOICES.includes(Number(q.days)) ? Number(q.days) : 30;
    return reply.type(htmlType).send(usagePage(frameOf(req), await usageView(s, accountId, mode, days)));
  });
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../platform/http/api.ts';
import type { Mode } from '../platform/db/engine.ts';
import { AppError } from '../platform/errors.ts';
import { validationMessage, type AjvError } from '../platform/http/error-handler.ts';
import type { Services } from '../platform/http/services.ts';
import { endpointWithDeliveries, listWebhooks, replayAccountWebhook, retryAccountDelivery, WebhookReplay, type WebhookReplayBody } from '../webhooks/index.ts';
import { accountMode, dataPage, MODES, PAGE_ROWS } from './browse-scope.ts';
import { signedIn, stateOf } from './context.ts';
import { cursorOf, pathParam, type RawQuery } from './request-parts.ts';
import { field } from './forms.ts';
import { t } from './i18n.ts';
import { webhookPage, webhookPath, webhooksPage, webhooksPath, type WebhookPageView } from './views/webhooks-page.ts';

const htmlType = 'text/html; charset=utf-8';
const DAY_MS = 86_400_000;

/** A webhook page's request: its query is the redirect's outcome and the deliveries' cursor. */
type WebhookPageRequest = FastifyRequest<{ Querystring: RawQuery }>;

type BodyCheck = ((body: unknown) => boolean) & { errors?: AjvError[] | null };

export function registerWebhookPages(c: Api, s: Services): void {
  c.get('/webhooks', async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    return reply.redirect(webhooksPath(await accountMode(s, accountId)), 303);
  });
  // The API's own check of a replay body (the app's validator compiler, strict as for JSON bodies).
  const replayCheck = c.validatorCompiler!({ schema: WebhookReplay, method: 'POST', url: '/v1/webhooks/:id/replay', httpPart: 'body' }) as BodyCheck;
  for (const mode of MODES) {
    registerWebhooksPage(c, s, mode);
    registerWebhookPage(c, s, mode);
    registerRetryForm(c, s, mode);
    registerReplayForm(c, s, mode, replayCheck);
  }
}

function registerWebhooksPage(c: Api, s: Services, mode: Mode): void {
  c.get<{ Querystring: RawQuery }>(`/${mode}/webhooks`, async (req, reply) => {
    const p = await dataPage(s, req, reply);
    if (!p) return reply;
    const cursor = cursorOf(req.query);
    const result = await listWebhooks(s.databases[mode].db, p.accountId, { take: PAGE_ROWS, cursor });
    return reply.type(htmlType).send(webhooksPage(p.f, { user: p.user, mode, cursor, ...result }));
  });
}

/** What the redirect after a resend or a replay says (its query), in the page's language. */
function outcomeMessage(req: WebhookPageRequest): WebhookPageView['message'] {
  const lang = stateOf(req).lang;
  const q = req.query;
  if (q.resent === '1' || q.resent === '0') {
    return {
      kind: q.resent === '1' ? 'ok' : 'error',
      text: t(lang, 'resend_done', { outcome: t(lang, q.resent === '1' ? 'resend_delivered' : 'resend_failed') }),
    };
  }
  const { replayed, created } = q;
  if (typeof replayed === 'string' && typeof created === 'string' && /^\d{1,9}$/.test(replayed) && /^\d{1,9}$/.test(created)) {
    return { kind: 'ok', text: t(lang, 'replay_done', { replayed, created }) };
  }
  return undefined;
}

async function renderWebhook(
  s: Services,
  req: WebhookPageRequest,
  reply: FastifyReply,
  o: { mode: Mode; status: number; message?: WebhookPageView['message']; since?: string },
) {
  const p = await dataPage(s, req, reply);
  if (!p) return reply;
  const cursor = cursorOf(req.query);
  const id = pathParam(req, 'id');
  const result = await endpointWithDeliveries(s.databases[o.mode].db, p.accountId, id, { take: PAGE_ROWS, cursor });
  const since = o.since ?? new Date(s.clock.now().getTime() - DAY_MS).toISOString();
  const view = { user: p.user, mode: o.mode, cursor, ...result, message: o.message ?? outcomeMessage(req), since };
  return reply.status(o.status).type(htmlType).send(webhookPage(p.f, view));
}

/** One endpoint: its deliveries (request, response status and body excerpt, attempts), resend and replay. */
function registerWebhookPage(c: Api, s: Services, mode: Mode): void {
  c.get<{ Querystring: RawQuery }>(`/${mode}/webhooks/:id`, async (req, reply) => renderWebhook(s, req, reply, { mode, status: 200 }));
}

/** The API's retry: the delivery sent again now under its id; the page says whether it went through. */
function registerRetryForm(c: Api, s: Services, mode: Mode): void {
  c.post<{ Querystring: RawQuery }>(`/${mode}/webhooks/:id/deliveries/:deliveryId/retry`, async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const id = pathParam(req, 'id');
    const deliveryId = pathParam(req, 'deliveryId');
    try {
      const { delivered } = await retryAccountDelivery(s, { mode, accountId, webhookId: id, deliveryId });
      return reply.redirect(`${webhookPath(mode, id)}?resent=${delivered ? 1 : 0}`, 303);
    } catch (err) {
      if (err instanceof AppError && err.status !== 404)
        return renderWebhook(s, req, reply, { mode, status: err.status, message: { kind: 'error', text: err.message } });
      throw err;
    }
  });
}

/** The form as the API's body: `failed=true`, or `since` (a date-time, as the API takes it). */
function replayBodyOf(form: unknown): Record<string, unknown> {
  if (field(form, 'failed') === 'true') return { failed: true };
  return { since: field(form, 'since').trim() };
}

/** The API's replay, refused with the API's message when the API would refuse it. */
function registerReplayForm(c: Api, s: Services, mode: Mode, check: BodyCheck): void {
  c.post<{ Querystring: RawQuery }>(`/${mode}/webhooks/:id/replay`, async (req, reply) => {
    const accountId = signedIn(req, reply);
    if (!accountId) return reply;
    const id = pathParam(req, 'id');
    const body = replayBodyOf(req.body);
    const since = typeof body.since === 'string' ? body.since : undefined;
    const refuse = (status: number, text: string) => renderWebhook(s, req, reply, { mode, status, message: { kind: 'error', text }, since });
    if (!check(body)) return refuse(400, validationMessage('body', check.errors ?? []));
    try {
      const result = await replayAccountWebhook(s, { mode, accountId, webhookId: id }, body as WebhookReplayBody);
      return reply.redirect(`${webhookPath(mode, id)}?replayed=${result.replayed}&created=${result.created}`, 303);
    } catch (err) {
      if (err instanceof AppError && err.status !== 404) return refuse(err.status, err.message);
      throw err;
    }
  });
}

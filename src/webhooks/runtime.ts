import type { Services } from '../platform/http/services.ts';
import { WebhookSender, type Resolver } from './sender.ts';

/** One SSRF-safe sender (and its connection pool) per service instance, shared by routes and dispatchers. */
const senders = new WeakMap<Services, WebhookSender>();

export function webhookSender(s: Services): WebhookSender {
  let sender = senders.get(s);
  if (!sender) {
    sender = new WebhookSender(s.config.webhooks);
    senders.set(s, sender);
  }
  return sender;
}

/** Tests (and embedders) play DNS: every later registration check and delivery resolves through it. */
export function setWebhookResolver(s: Services, resolver: Resolver): void {
  webhookSender(s).resolver = resolver;
}

export async function closeWebhookSender(s: Services): Promise<void> {
  const sender = senders.get(s);
  senders.delete(s);
  await sender?.close();
}

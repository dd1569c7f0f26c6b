import type { WebhooksConfig } from '../platform/config.ts';
import type { Services } from '../platform/http/services.ts';
import { WebhookSender, type Resolver } from './sender.ts';

declare module '../platform/http/services.ts' {
  interface Services {
    /** One SSRF-safe sender (and its connection pool) per service instance, shared by routes and dispatchers. */
    webhookSender: WebhookSender;
  }
}

export function createWebhookSender(config: WebhooksConfig): WebhookSender {
  return new WebhookSender(config);
}

export function webhookSender(s: Services): WebhookSender {
  return s.webhookSender;
}

/** Tests (and embedders) play DNS: every later registration check and delivery resolves through it. */
export function setWebhookResolver(s: Services, resolver: Resolver): void {
  s.webhookSender.resolver = resolver;
}

export async function closeWebhookSender(s: Services): Promise<void> {
  await s.webhookSender.close();
}

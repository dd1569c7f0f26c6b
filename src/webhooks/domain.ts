import type { Domain } from '../domains.ts';
import { registerWebhookRoutes } from './routes.ts';
import { WebhookDispatcher } from './dispatcher.ts';

/** Webhooks: endpoint routes, and a dispatcher in every API process (safe with many). */
export const webhooksDomain: Domain = {
  name: 'webhooks',
  api: registerWebhookRoutes,
  worker: (s) => new WebhookDispatcher(s).start(),
};

import type { Domain } from '../domain.ts';
import { registerWebhookRoutes } from './routes.ts';
import { releaseDeliveryLeases, WebhookDispatcher } from './dispatcher.ts';
import { WebhookSender } from './sender.ts';

/** Webhooks: endpoint routes, and a dispatcher in every API process (safe with many). */
export const webhooksDomain: Domain = {
  name: 'webhooks',
  api: registerWebhookRoutes,
  releaseLeases: releaseDeliveryLeases,
  worker: (s) => {
    // Its own connection pool: the server closes the routes' pool first, while this one may still be sending.
    const sender = new WebhookSender(s.config.webhooks);
    const loop = new WebhookDispatcher(s, { sender }).start();
    return {
      stop: async () => {
        await loop.stop();
        await sender.close();
      },
    };
  },
};

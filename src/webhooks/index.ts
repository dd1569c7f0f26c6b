/** The webhooks domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { createWebhookSender } from './runtime.ts';
export { envelope } from './delivery-rows.ts';
export { signWebhook } from './signature.ts';
export { type DeliveryWithRequest, endpointWithDeliveries, replayAccountWebhook, retryAccountDelivery } from './account-actions.ts';
export { listWebhooks } from './endpoints.ts';
export { WebhookReplay, type WebhookReplayBody, type WebhookView } from './schemas.ts';

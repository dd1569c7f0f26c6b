export { Pinkas, modeOfKey, type Mode, type PinkasOptions } from './client.js';
export { PinkasError } from './errors.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export { verifyWebhook, type VerifyResult } from './webhooks.js';
export type { paths, components, operations } from './generated/schema.js';

import type { components } from './generated/schema.js';
type Schemas = components['schemas'];
/** The API's named types (the OpenAPI document's components), by name. */
export type Document = Schemas['Document'];
export type DocumentPage = Schemas['DocumentPage'];
export type Business = Schemas['Business'];
export type BusinessList = Schemas['BusinessList'];
export type Party = Schemas['Party'];
export type PartyPage = Schemas['PartyPage'];
export type Expense = Schemas['Expense'];
export type ExpensePage = Schemas['ExpensePage'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpointPage = Schemas['WebhookEndpointPage'];
export type Delivery = Schemas['Delivery'];
export type DeliveryPage = Schemas['DeliveryPage'];
/** Every failure: `{error, reason, requestId}`. */
export type ApiError = Schemas['Error'];

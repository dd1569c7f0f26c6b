export { Pinkas, modeOfKey, type Mode, type PinkasOptions } from './client.js';
export { PinkasError } from './errors.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export { verifyWebhook, type VerifyResult } from './webhooks.js';
export type { paths, components, operations } from './generated/schema.js';

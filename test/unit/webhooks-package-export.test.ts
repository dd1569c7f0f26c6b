import { describe, expect, it } from 'vitest';
// Integrators import the verifier by the package name (package.json "exports").
import { signWebhook, verifyWebhook } from 'pinkas/webhooks';

describe('pinkas/webhooks export', () => {
  it('exposes verifyWebhook and signWebhook', () => {
    const header = signWebhook('whsec_x', '{}', 1000);
    expect(verifyWebhook('whsec_x', '{}', header, { now: 1_000_000 })).toEqual({ ok: true, timestamp: 1000 });
  });
});

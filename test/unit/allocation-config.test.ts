import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

const base = { PINKAS_ENV: 'test', DATA_DIR: '/nonexistent' };

describe('ITA configuration', () => {
  it('is off by default (the simulator answers outside live production)', () => {
    const c = loadConfig(base).allocation;
    expect(c.ita).toBeNull();
    expect(c.timeoutMs).toBe(10_000);
    expect(c.expiryWarningMs).toBe(72 * 3_600_000);
  });
  it('defaults to the ITA sandbox hosts and our own callback', () => {
    const c = loadConfig({ ...base, ITA_CLIENT_ID: 'id', ITA_CLIENT_SECRET: 'secret', PUBLIC_BASE_URL: 'https://api.example/' }).allocation.ita!;
    expect(c).toEqual({
      oauthBaseUrl: 'https://openapi.taxes.gov.il/shaam/tsandbox',
      apiBaseUrl: 'https://ita-api.taxes.gov.il/shaam/tsandbox',
      clientId: 'id',
      clientSecret: 'secret',
      redirectUri: 'https://api.example/ita/callback',
      scope: 'scope',
      softwareNumber: 99_999_999,
    });
  });
  it.each([
    [{ ITA_CLIENT_ID: 'id' }, 'ITA_CLIENT_SECRET'],
    [{ ITA_CLIENT_ID: 'id', ITA_CLIENT_SECRET: 's', ITA_API_BASE_URL: 'not a url' }, 'ITA_API_BASE_URL'],
    [{ ITA_CLIENT_ID: 'id', ITA_CLIENT_SECRET: 's', ITA_SOFTWARE_NUMBER: '123456789' }, 'ITA_SOFTWARE_NUMBER'],
    [{ ITA_TIMEOUT_MS: 'soon' }, 'ITA_TIMEOUT_MS'],
    [{ ITA_EXPIRY_WARNING_HOURS: '0' }, 'ITA_EXPIRY_WARNING_HOURS'],
  ])('%j is refused naming %s', (env, variable) => {
    try {
      loadConfig({ ...base, ...env });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe(variable);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

const base = { PINKAS_ENV: 'test', DATA_DIR: '/nonexistent' };
const fails = (env: Record<string, string>, variable: string) => {
  try {
    loadConfig({ ...base, ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(variable);
    return;
  }
  throw new Error(`expected a ConfigError for ${variable}`);
};

describe('webhook configuration', () => {
  it('defaults: private targets refused, 10 s deadline, 1 s poll, no extra CA', () => {
    expect(loadConfig(base).webhooks).toEqual({ allowPrivateTargets: false, caFile: null, timeoutMs: 10_000, pollMs: 1_000 });
  });

  it('reads the switches', () => {
    const c = loadConfig({
      ...base,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_POLL_MS: '250',
      WEBHOOK_CA_FILE: 'package.json',
    });
    expect(c.webhooks).toMatchObject({ allowPrivateTargets: true, timeoutMs: 300, pollMs: 250 });
    expect(c.webhooks.caFile).toMatch(/\/package\.json$/);
  });

  it('refuses bad values, naming the variable', () => {
    fails({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS');
    fails({ PINKAS_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS');
    fails({ WEBHOOK_CA_FILE: '/no/such/ca.pem' }, 'WEBHOOK_CA_FILE');
    fails({ WEBHOOK_TIMEOUT_MS: '10s' }, 'WEBHOOK_TIMEOUT_MS');
    fails({ WEBHOOK_TIMEOUT_MS: '0' }, 'WEBHOOK_TIMEOUT_MS');
    fails({ WEBHOOK_POLL_MS: '-1' }, 'WEBHOOK_POLL_MS');
  });
});

describe('boolean settings', () => {
  const switches = {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: (c: ReturnType<typeof loadConfig>) => c.webhooks.allowPrivateTargets,
    CONSOLE_SECURE_COOKIES: (c: ReturnType<typeof loadConfig>) => c.console.secureCookies,
    FILES_S3_PATH_STYLE: (c: ReturnType<typeof loadConfig>) => c.files.s3!.forcePathStyle,
    SMTP_SECURE: (c: ReturnType<typeof loadConfig>) => c.prints.smtp!.secure,
  };
  const needs = { FILES_S3_BUCKET: 'b', FILES_S3_REGION: 'us-east-1', SMTP_HOST: 'smtp.example.com', SMTP_FROM: 'a@example.com' };

  it('each accepts 1, 0, true and false (any case, spaces trimmed)', () => {
    for (const [name, read] of Object.entries(switches)) {
      for (const [word, value] of [
        ['1', true],
        ['true', true],
        [' TRUE ', true],
        ['0', false],
        ['false', false],
        ['False', false],
      ] as const) {
        expect(read(loadConfig({ ...base, ...needs, [name]: word })), `${name}=${word}`).toBe(value);
      }
    }
  });

  it('each refuses other words, naming the variable and the accepted ones', () => {
    for (const name of Object.keys(switches)) {
      fails({ ...needs, [name]: 'yes' }, name);
      expect(() => loadConfig({ ...base, ...needs, [name]: 'on' })).toThrow(/must be 1, 0, true or false, got "on"/);
    }
  });

  it('production still refuses private webhook targets, however the switch is spelled', () => {
    fails({ PINKAS_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS');
    expect(loadConfig({ ...base, PINKAS_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: '0' }).webhooks.allowPrivateTargets).toBe(false);
  });
});

import { request } from 'undici';
import type { Config } from '../platform/config.ts';
import { AppError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';

/** Sends one text message. Implementations throw AppError 502 `provider` when the gateway refuses. */
export interface SmsSender {
  readonly name: string;
  send(to: string, body: string): Promise<void>;
}

/**
 * Twilio's Messages API (also spoken by several compatible gateways): POST
 * `{base}/2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded `To`, `From`, `Body`,
 * HTTP basic auth with the account SID and auth token. 201 with the message resource on success.
 */
export class TwilioSmsSender implements SmsSender {
  readonly name = 'twilio';
  constructor(
    private readonly cfg: { baseUrl: string; accountSid: string; authToken: string; from: string },
    private readonly timeoutMs = 10_000,
  ) {}

  async send(to: string, body: string): Promise<void> {
    const url = `${this.cfg.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(this.cfg.accountSid)}/Messages.json`;
    const auth = Buffer.from(`${this.cfg.accountSid}:${this.cfg.authToken}`).toString('base64');
    let status: number;
    let text: string;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { authorization: `Basic ${auth}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ To: to, From: this.cfg.from, Body: body }).toString(),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw new AppError('provider', `the SMS gateway could not be reached (${(err as Error).message})`);
    }
    if (status < 200 || status >= 300) {
      let detail = `HTTP ${status}`;
      try {
        const j = JSON.parse(text) as { code?: unknown; message?: unknown };
        if (j.message) detail += `: ${String(j.message).slice(0, 200)}${j.code ? ` (code ${String(j.code)})` : ''}`;
      } catch {
        /* not JSON: the status says enough */
      }
      throw new AppError('provider', `the SMS gateway refused the message: ${detail}`);
    }
  }
}

/** Development and tests without a gateway: the message (code included) goes to the server log. */
export class LogSmsSender implements SmsSender {
  readonly name = 'log';
  constructor(private readonly logger: Logger) {}
  async send(to: string, body: string): Promise<void> {
    this.logger.warn({ to, sms: body }, 'console SMS not sent (no SMS gateway configured); the message is logged instead');
  }
}

/** The sender the configuration asks for; null in production without a gateway (sign-in refuses). */
export function smsSenderFor(config: Config, logger: Logger): SmsSender | null {
  if (config.console.sms) return new TwilioSmsSender(config.console.sms);
  return config.env === 'production' ? null : new LogSmsSender(logger);
}

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedSms {
  accountSid: string;
  to: string;
  from: string;
  body: string;
}

/**
 * A local server speaking Twilio's Messages API: POST /2010-04-01/Accounts/{sid}/Messages.json,
 * form-encoded To/From/Body, HTTP basic auth (sid:token). Answers 201 with a message resource,
 * 401 on bad credentials, 400 on a missing parameter, or a forced failure status.
 */
export class FakeTwilio {
  readonly messages: CapturedSms[] = [];
  /** The next request answers this status (e.g. 500) instead of accepting the message. */
  failNext: number | null = null;
  private server: Server | null = null;
  url = '';

  constructor(
    readonly accountSid = 'AC00000000000000000000000000000001',
    readonly authToken = 'test-auth-token',
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res.writeHead.bind(res), (b) => res.end(b)));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The environment that points the service at this server. */
  env(): Record<string, string> {
    return { TWILIO_BASE_URL: this.url, TWILIO_ACCOUNT_SID: this.accountSid, TWILIO_AUTH_TOKEN: this.authToken, SMS_FROM: '+15005550006' };
  }

  /** The 6-digit code of the latest message to a number. */
  lastCode(to?: string): string {
    const m = [...this.messages].reverse().find((x) => !to || x.to === to);
    const code = m?.body.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code was sent${to ? ` to ${to}` : ''}`);
    return code;
  }

  private async handle(req: IncomingMessage, writeHead: (s: number, h: Record<string, string>) => unknown, end: (b: string) => void) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const json = (status: number, body: unknown) => {
      writeHead(status, { 'content-type': 'application/json' });
      end(JSON.stringify(body));
    };
    const match = req.url?.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/);
    if (req.method !== 'POST' || !match) return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    const auth = req.headers.authorization ?? '';
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    if (auth !== expected || decodeURIComponent(match[1]) !== this.accountSid) {
      return json(401, { code: 20003, message: 'Authenticate', status: 401 });
    }
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return json(400, { code: 20001, message: 'Content-Type must be form-encoded', status: 400 });
    }
    if (this.failNext !== null) {
      const status = this.failNext;
      this.failNext = null;
      return json(status, { code: 30008, message: 'Unknown error', status });
    }
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const to = form.get('To');
    const from = form.get('From');
    const body = form.get('Body');
    if (!to) return json(400, { code: 21604, message: "A 'To' phone number is required.", status: 400 });
    if (!from) return json(400, { code: 21603, message: "A 'From' phone number is required.", status: 400 });
    if (!body) return json(400, { code: 21602, message: 'Message body is required.', status: 400 });
    this.messages.push({ accountSid: match[1], to, from, body });
    return json(201, {
      sid: `SM${String(this.messages.length).padStart(32, '0')}`,
      account_sid: this.accountSid,
      to,
      from,
      body,
      status: 'queued',
      num_segments: '1',
      api_version: '2010-04-01',
    });
  }
}

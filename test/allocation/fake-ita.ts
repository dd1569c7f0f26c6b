/**
 * A local HTTP server that speaks the ITA protocol of israel-tax.md §4.4–4.6, for tests:
 *   GET  /longtimetoken/oauth2/authorize   consent (auto-granted for `consentVatNumbers`), 302 to redirect_uri
 *   POST /longtimetoken/oauth2/token       authorization_code and refresh_token grants (form-encoded, client auth)
 *   POST /Invoices/v2/Approval             bearer token; 401 / 406 / 422 / validation errors 432, 434, 436; approval
 * Faults for the transport branches: `faults.push('500' | 'hang' | 'reset' | '401')` applies to the next approval.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkDigitSum } from '../../src/platform/tax-id.ts';

interface Grant {
  vatNumbers: Set<number>;
  expiresAt: number;
}

export interface FakeItaOptions {
  now: () => Date;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export type Fault = '500' | 'hang' | 'reset' | '401';

const UNAUTHORIZED = {
  httpCode: '401',
  httpMessage: 'Unauthorized',
  moreInformation: 'Cannot pass the security checks that are required by the target API or operation, Enable debug headers for more details.',
};

export class FakeIta {
  url = '';
  /** VAT numbers the next consent grants. */
  consentVatNumbers: number[] = [];
  /** Next approvals' faults, in order. */
  faults: Fault[] = [];
  /** Every request received: path and parsed body. */
  readonly log: { method: string; path: string; body: any; authorization: string | undefined }[] = [];
  accessTtlSeconds = 601;
  refreshTtlSeconds = 2_592_000;

  private server: http.Server;
  private counter = 0;
  private readonly codes = new Map<string, Grant & { redirectUri: string }>();
  private readonly accessTokens = new Map<string, Grant>();
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly approved = new Map<string, string>();
  private readonly hanging = new Set<http.ServerResponse>();

  constructor(private readonly opts: FakeItaOptions) {
    this.server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => this.route(req, res, raw));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Expires every access token now (the next approval answers 401 until a refresh). */
  expireAccessTokens(): void {
    for (const g of this.accessTokens.values()) g.expiresAt = 0;
  }

  /** The dealer revoked the consent: refresh tokens stop working. */
  revokeAll(): void {
    this.refreshTokens.clear();
    this.accessTokens.clear();
  }

  approvals(): any[] {
    return this.log.filter((l) => l.path === '/Invoices/v2/Approval').map((l) => l.body);
  }

  private token(prefix: string): string {
    return `${prefix}_${++this.counter}_${Math.random().toString(36).slice(2, 10)}`;
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: any = raw;
    if (String(req.headers['content-type'] ?? '').includes('json')) {
      try {
        body = JSON.parse(raw);
      } catch {
        return this.send(res, 422, { httpCode: '422', moreInformation: 'malformed JSON' });
      }
    } else if (String(req.headers['content-type'] ?? '').includes('x-www-form-urlencoded')) {
      body = Object.fromEntries(new URLSearchParams(raw));
    }
    this.log.push({ method: req.method ?? '', path: url.pathname, body, authorization: req.headers.authorization });
    if (req.method === 'GET' && url.pathname === '/longtimetoken/oauth2/authorize') return this.authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/longtimetoken/oauth2/token') return this.tokenEndpoint(req, body, res);
    if (req.method === 'POST' && url.pathname === '/Invoices/v2/Approval') return this.approval(req, body, res);
    this.send(res, 404, { httpCode: '404', moreInformation: 'No resources match requested URI' });
  }

  private authorize(url: URL, res: http.ServerResponse) {
    const q = url.searchParams;
    if (q.get('client_id') !== this.opts.clientId) return this.send(res, 400, { error: 'invalid_client' });
    // Exactly one registered redirect URI, compared case-sensitively.
    if (q.get('redirect_uri') !== this.opts.redirectUri) return this.send(res, 400, { error: 'invalid_request', error_description: 'redirect_uri mismatch' });
    const back = new URL(this.opts.redirectUri);
    back.searchParams.set('state', q.get('state') ?? '');
    if (q.get('response_type') !== 'code') back.searchParams.set('error', 'unsupported_response_type');
    else {
      const code = this.token('code');
      this.codes.set(code, {
        vatNumbers: new Set(this.consentVatNumbers),
        expiresAt: this.opts.now().getTime() + 600_000,
        redirectUri: q.get('redirect_uri')!,
      });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  private clientOk(req: http.IncomingMessage, body: Record<string, string>): boolean {
    const auth = req.headers.authorization ?? '';
    if (auth.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':');
      return id === this.opts.clientId && secret === this.opts.clientSecret;
    }
    return body.client_id === this.opts.clientId && body.client_secret === this.opts.clientSecret;
  }

  private issue(res: http.ServerResponse, vatNumbers: Set<number>, refreshExpiresAt: number) {
    const now = this.opts.now().getTime();
    const access = this.token('at');
    const refresh = this.token('rt');
    this.accessTokens.set(access, { vatNumbers, expiresAt: now + this.accessTtlSeconds * 1000 });
    this.refreshTokens.set(refresh, { vatNumbers, expiresAt: refreshExpiresAt });
    this.send(res, 200, {
      token_type: 'Bearer',
      access_token: access,
      scope: 'scope',
      expires_in: this.accessTtlSeconds,
      consented_on: Math.floor(now / 1000),
      refresh_token: refresh,
      refresh_token_expires_in: Math.round((refreshExpiresAt - now) / 1000),
    });
  }

  private tokenEndpoint(req: http.IncomingMessage, body: Record<string, string>, res: http.ServerResponse) {
    if (typeof body !== 'object' || !this.clientOk(req, body)) return this.send(res, 401, { error: 'invalid_client' });
    const now = this.opts.now().getTime();
    if (body.grant_type === 'authorization_code') {
      const grant = this.codes.get(body.code ?? '');
      this.codes.delete(body.code ?? '');
      if (!grant || grant.expiresAt <= now || grant.redirectUri !== body.redirect_uri)
        return this.send(res, 400, { error: 'invalid_grant', error_description: 'code invalid, used or expired' });
      return this.issue(res, grant.vatNumbers, now + this.refreshTtlSeconds * 1000);
    }
    if (body.grant_type === 'refresh_token') {
      const grant = this.refreshTokens.get(body.refresh_token ?? '');
      if (!grant || grant.expiresAt <= now) return this.send(res, 400, { error: 'invalid_grant', error_description: 'refresh token invalid or expired' });
      this.refreshTokens.delete(body.refresh_token);
      // The consent keeps its original end: a refresh does not extend it.
      return this.issue(res, grant.vatNumbers, grant.expiresAt);
    }
    return this.send(res, 400, { error: 'unsupported_grant_type' });
  }

  private approval(req: http.IncomingMessage, body: any, res: http.ServerResponse) {
    const fault = this.faults.shift();
    if (fault === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (fault === 'reset') return req.socket.destroy();
    if (fault === '500') return this.send(res, 500, { Status: 500, Message: 'Internal Server Error', Error_Id: 'e-500' });
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const grant = this.accessTokens.get(bearer);
    if (fault === '401' || !grant || grant.expiresAt <= this.opts.now().getTime()) return this.send(res, 401, UNAUTHORIZED);
    const required = [
      'invoice_id',
      'invoice_type',
      'vat_number',
      'invoice_date',
      'invoice_issuance_date',
      'accounting_software_number',
      'amount_before_discount',
      'discount',
      'payment_amount',
      'vat_amount',
      'payment_amount_including_vat',
    ];
    for (const f of required) if (body?.[f] === undefined) return this.send(res, 422, { httpCode: '422', moreInformation: `missing ${f}` });
    for (const f of ['vat_number', 'customer_vat_number', 'invoice_type', 'payment_amount', 'vat_amount']) {
      if (body[f] !== undefined && typeof body[f] !== 'number') return this.send(res, 422, { httpCode: '422', moreInformation: `${f} must be a number` });
    }
    if (!grant.vatNumbers.has(body.vat_number)) return this.send(res, 406, { Status: 406, Message: 'Not Acceptable', Error_Id: 'e-406' });
    const refuse = (code: number, message: string, param: string) =>
      this.send(res, 400, { Status: 400, approved: false, Confirmation_Number: 0, Message: { errors: [{ code, message, param, location: 'validation' }] } });
    const customer = String(body.customer_vat_number ?? '').padStart(9, '0');
    if (customer.length !== 9 || checkDigitSum(customer) % 10 !== 0) return refuse(432, 'Customer VAT Number is incorrect', 'customer_vat_number');
    const today = this.opts.now().getTime();
    if (today - new Date(`${body.invoice_date}T00:00:00Z`).getTime() > 14 * 86_400_000)
      return refuse(434, 'Invoice date is more than two weeks old', 'invoice_date');
    const rate = body.invoice_date >= '2025-01-01' ? 0.18 : 0.17;
    if (body.vat_amount > Math.round(body.payment_amount * rate * 100) / 100 + 0.01)
      return refuse(436, 'VAT amount is greater than the calculated VAT', 'vat_amount');
    const key = `${body.vat_number}:${body.invoice_id}`;
    let confirmation = this.approved.get(key);
    if (!confirmation) {
      confirmation = `2026${String(++this.counter).padStart(13, '0')}${String(100_000_000 + this.counter * 7919)}`;
      this.approved.set(key, confirmation);
    }
    this.send(res, 200, { Status: 200, Message: 'Invoice approved', Confirmation_Number: confirmation, approved: true });
  }
}

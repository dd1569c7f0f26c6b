import type { FastifyInstance } from 'fastify';

export interface Page {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location?: string;
  /** After a 303, the page the browser landed on (as a browser follows the redirect). */
  next?: Page;
  setCookies: { name: string; value: string; httpOnly?: boolean; secure?: boolean; sameSite?: string; path?: string; maxAge?: number }[];
}

/**
 * A cookie-keeping client over app.inject that behaves like a browser submitting the console's
 * forms: it remembers cookies and the CSRF token of the last page it saw.
 */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrf = '';
  constructor(
    private readonly app: FastifyInstance,
    public ip = '203.0.113.10',
    public lang: 'en' | 'he' = 'en',
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private async run(method: 'GET' | 'POST', url: string, payload?: string, extraHeaders: Record<string, string> = {}): Promise<Page> {
    const headers: Record<string, string> = { 'accept-language': this.lang, ...extraHeaders };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    if (payload !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await this.app.inject({ method, url, headers, payload, remoteAddress: this.ip });
    const setCookies = res.cookies as Page['setCookies'];
    for (const c of setCookies) {
      const expired = c.maxAge === 0 || c.value === '' || ((c as { expires?: Date }).expires && (c as { expires?: Date }).expires!.getTime() < Date.now());
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const body = res.body;
    const token = body.match(/name="_csrf" value="([^"]+)"/)?.[1];
    if (token) this.csrf = token;
    return { status: res.statusCode, headers: res.headers, body, location: res.headers.location, setCookies };
  }

  get(url: string): Promise<Page> {
    return this.run('GET', url);
  }

  /** Submits a form; the CSRF token of the last page is added unless `csrf` says otherwise. */
  post(url: string, form: Record<string, string | string[]> = {}, opts: { csrf?: string | false } = {}): Promise<Page> {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
    if (opts.csrf !== false) p.append('_csrf', opts.csrf ?? this.csrf);
    return this.run('POST', url, p.toString()).then(async (res) => {
      if (res.status === 303 && res.location) res.next = await this.run('GET', res.location);
      return res;
    });
  }
}

/** Text of the page without tags, for assertions on what a person reads. */
export function textOf(body: string): string {
  return body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

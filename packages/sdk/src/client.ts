/**
 * The client: openapi-fetch over the generated `paths`, so every call is typed by path and method
 * (with path autocompletion) and stays in step with the API by regeneration alone. This layer adds
 * what a generator cannot: the key and its mode, an Idempotency-Key on every create, safe retries,
 * errors thrown as PinkasError, cursor iteration, and waiting for a rendered PDF.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { PinkasError } from './errors.js';
import { IDEMPOTENT_OPERATIONS } from './generated/idempotent.js';
import type { paths } from './generated/schema.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type Mode = 'live' | 'sandbox';

export interface PinkasOptions {
  /** `bk_test_…` works on the sandbox books, `bk_live_…` on the live ones. */
  key: string;
  /** The service's origin, e.g. `https://pinkas.example.com` (the paths carry `/v1`). */
  baseUrl: string;
  retry?: RetryOptions;
  /** Injected by tests or for a proxy; default globalThis.fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Which books a key works on, from its prefix. */
export function modeOfKey(key: string): Mode {
  if (key.startsWith('bk_test_')) return 'sandbox';
  if (key.startsWith('bk_live_')) return 'live';
  throw new TypeError('a pinkas API key starts with bk_test_ (sandbox) or bk_live_ (live)');
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** The 2xx body of an operation (parsed per `parseAs`). */
type Success<Op, Init> = Op extends Record<string | number, any> ? Exclude<FetchResponse<Op, Init, MediaType>['data'], undefined> : never;
/** openapi-fetch's method signature, answering the success body and throwing PinkasError otherwise. */
type Method<M extends HttpMethod> = <Path extends PathsWithMethod<paths, M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Success<paths[Path][M], Init>>;

export class Pinkas {
  readonly mode: Mode;
  /** The underlying openapi-fetch client ({data, error, response} answers, nothing thrown). */
  readonly raw: Client<paths>;
  readonly get: Method<'get'> = (url: string, init?: object) => this.#send('GET', url, init);
  readonly post: Method<'post'> = (url: string, init?: object) => this.#send('POST', url, init);
  readonly put: Method<'put'> = (url: string, init?: object) => this.#send('PUT', url, init);
  readonly patch: Method<'patch'> = (url: string, init?: object) => this.#send('PATCH', url, init);
  readonly delete: Method<'delete'> = (url: string, init?: object) => this.#send('DELETE', url, init);

  constructor(o: PinkasOptions) {
    this.mode = modeOfKey(o.key);
    const transport = o.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.raw = createClient<paths>({ baseUrl: o.baseUrl.replace(/\/+$/, ''), headers: { 'X-Api-Key': o.key }, fetch: retryingFetch(transport, o.retry) });
    this.raw.use(idempotencyKeys);
  }

  async #send(method: string, url: string, init: object | undefined): Promise<never> {
    const r = await (this.raw.request as (m: string, u: string, i?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(
      method.toLowerCase(),
      url,
      init,
    );
    if (!r.response.ok) throw PinkasError.from(r.response, r.error);
    return r.data as never;
  }

  /**
   * Every page of a list, following `nextCursor` until the last page (a list without a cursor
   * answers one page). `init` is the first page's; `query.cursor` is set for the next ones.
   */
  async *pages<Path extends PathsWithMethod<paths, 'get'>, Init extends MaybeOptionalInit<paths[Path], 'get'>>(
    url: Path,
    ...init: InitParam<Init>
  ): AsyncGenerator<Success<paths[Path]['get'], Init>> {
    const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let cursor: unknown;
    do {
      const query = cursor === undefined ? first.params?.query : { ...first.params?.query, cursor };
      const page = (await this.#send('GET', url, { ...first, params: { ...first.params, query } })) as Record<string, unknown>;
      yield page as Success<paths[Path]['get'], Init>;
      cursor = page.nextCursor ?? undefined;
    } while (typeof cursor === 'string');
  }

  /** Every item of a list across its pages: `key` names the page's array (e.g. `documents`). */
  async *all<
    Path extends PathsWithMethod<paths, 'get'>,
    Key extends keyof Success<paths[Path]['get'], Init>,
    Init extends MaybeOptionalInit<paths[Path], 'get'>,
  >(url: Path, key: Key, ...init: InitParam<Init>): AsyncGenerator<Success<paths[Path]['get'], Init>[Key] extends readonly (infer T)[] ? T : never> {
    const pages = this.pages as (url: string, init?: object) => AsyncGenerator<Record<PropertyKey, unknown>>;
    for await (const page of pages.call(this, url, init[0])) yield* page[key] as Iterable<never>;
  }

  /**
   * An issued document's PDF (its origin the first time, copies after). Issuing renders it in a
   * background job: until then the API answers 409 `pdf_pending` with Retry-After, waited here up
   * to `maxWaitMs` (default 60 s).
   */
  async documentPdf(
    bid: string,
    id: string,
    o: { kind?: 'auto' | 'origin' | 'copy'; maxWaitMs?: number; sleep?: (ms: number) => Promise<void> } = {},
  ): Promise<Uint8Array> {
    const sleep = o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    let waited = 0;
    for (;;) {
      try {
        const body = o.kind ? { kind: o.kind } : {};
        const pdf = await this.post('/v1/businesses/{bid}/documents/{id}/print', { params: { path: { bid, id } }, body, parseAs: 'arrayBuffer' });
        return new Uint8Array(pdf);
      } catch (err) {
        if (!(err instanceof PinkasError) || err.reason !== 'pdf_pending') throw err;
        const wait = (err.retryAfter ?? 1) * 1000;
        if (waited + wait > (o.maxWaitMs ?? 60_000)) throw err;
        waited += wait;
        await sleep(wait);
      }
    }
  }

  /** A stored file's bytes (an export's zip, a receipt image, a PDF). */
  async file(id: string): Promise<Uint8Array> {
    const bytes = await this.get('/v1/files/{id}', { params: { path: { id } }, parseAs: 'arrayBuffer' });
    return new Uint8Array(bytes);
  }
}

/** An Idempotency-Key on every create that has none: a retry of the same call then never creates twice. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', `sdk_${randomUUID()}`);
    }
    return request;
  },
};

/**
 * The fetch function orval's generated client calls (its `mutator`, orval's way to give a client a base
 * URL and credentials): the API key in `X-Api-Key`, answers as orval's fetch client types them,
 * `{data, status, headers}`, a JSON body parsed and any other kept as a Blob.
 */
let base = '';
let apiKey = '';

export function configure(o: { baseUrl: string; key: string }): void {
  base = o.baseUrl;
  apiKey = o.key;
}

export async function orvalFetch<T>(url: string, options: RequestInit): Promise<T> {
  const headers = new Headers(options.headers);
  headers.set('x-api-key', apiKey);
  const res = await fetch(`${base}${url}`, { ...options, headers });
  const data = (res.headers.get('content-type') ?? '').includes('json') ? await res.json() : await res.blob();
  return { data, status: res.status, headers: res.headers } as T;
}

/**
 * One JSON request to an outside service (the tax authority's allocation API, the donation system): its
 * answer's status and parsed body (null when empty or not JSON), its transport failures made the caller's
 * error, named for the service — a timeout (no answer in time, or an answer cut off) or the network.
 * Redirects are not followed: a service that moved answers with its 3xx.
 */
export async function callJson(
  url: string,
  init: RequestInit,
  o: { timeoutMs: number; service: string; fail: (message: string, kind: 'timeout' | 'network') => Error },
): Promise<{ status: number; json: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(o.timeoutMs), redirect: 'manual' });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw o.fail(`${o.service} did not answer within ${o.timeoutMs} ms`, 'timeout');
    throw o.fail(`cannot reach ${o.service}: ${e.message}`, 'network');
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw o.fail(`${o.service}'s answer was cut off or exceeded ${o.timeoutMs} ms`, 'timeout');
  }
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json };
}

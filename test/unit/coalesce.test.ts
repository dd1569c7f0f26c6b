import { describe, expect, it } from 'vitest';
import { coalesce } from '../../src/platform/coalesce.ts';

/** A `send` that records each call's items and answers when released. */
function recorder(fail: (items: number[]) => boolean = () => false) {
  const calls: number[][] = [];
  const pending: (() => void)[] = [];
  const send = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push(items);
      pending.push(() => (fail(items) ? reject(new Error(`refused ${items.join(',')}`)) : resolve(items.map((i) => `answer ${i}`))));
    });
  const releaseAll = async () => {
    while (pending.length > 0) {
      pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { calls, send, releaseAll };
}

describe('coalesce', () => {
  it('sends a lone call at once, then what arrived meanwhile together, up to max, each caller getting its own answer', async () => {
    const r = recorder();
    const call = coalesce(r.send, { max: 3 });
    const answers = Promise.all([1, 2, 3, 4, 5, 6].map((i) => call(i)));
    expect(r.calls).toEqual([[1]]);
    await r.releaseAll();
    expect(await answers).toEqual([1, 2, 3, 4, 5, 6].map((i) => `answer ${i}`));
    expect(r.calls).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('sends each item of a failed batch alone, so only the failing item fails its caller', async () => {
    const r = recorder((items) => items.includes(3));
    const call = coalesce(r.send, { max: 10 });
    const results = Promise.allSettled([1, 2, 3, 4].map((i) => call(i)));
    await r.releaseAll();
    const settled = await results;
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason.message).toBe('refused 3');
    expect(r.calls).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('refuses an answer that does not have one result per item', async () => {
    const call = coalesce(async (items: number[]) => items.slice(1), { max: 10 });
    await expect(call(1)).rejects.toThrow(/1 items sent, 0 results/);
  });
});

/**
 * One call at a time to `send`, with whatever arrived meanwhile: a call made while none is in flight goes at
 * once and alone; calls made while one is in flight wait for it and then go together (up to `max`), as a
 * database's group commit does. So a lone caller waits no longer than before, and callers that arrive together
 * share a round trip. `send` answers one result per item, in order. When a call of several items fails, each
 * is sent again alone, so an item that fails fails only its own caller.
 */
export function coalesce<In, Out>(send: (items: In[]) => Promise<Out[]>, opts: { max: number }): (item: In) => Promise<Out> {
  interface Waiting {
    item: In;
    resolve: (out: Out) => void;
    reject: (err: unknown) => void;
  }
  const queue: Waiting[] = [];
  let inFlight = false;

  const sendAlone = async (w: Waiting) => {
    try {
      w.resolve(await sendChecked([w.item]).then((r) => r[0]));
    } catch (err) {
      w.reject(err);
    }
  };
  const sendChecked = async (items: In[]) => {
    const results = await send(items);
    if (results.length !== items.length) throw new Error(`coalesce: ${items.length} items sent, ${results.length} results answered`);
    return results;
  };
  const flush = async () => {
    inFlight = true;
    const batch = queue.splice(0, opts.max);
    try {
      const results = await sendChecked(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      if (batch.length === 1) batch[0].reject(err);
      else for (const w of batch) await sendAlone(w);
    } finally {
      inFlight = false;
      if (queue.length > 0) void flush();
    }
  };
  return (item) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!inFlight) void flush();
    });
}

/**
 * Run `worker` over items pulled lazily from `source`, at most `concurrency` at a time. Items are pulled
 * only when a slot is free, so a 100,000-case source is never materialised. When `signal` aborts, no new
 * item is pulled; in-flight workers are awaited (they see the same signal and should stop quickly).
 */
export async function runPool<T>(
  source: Iterable<T> | AsyncIterable<T>,
  concurrency: number,
  worker: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const limit = Math.max(1, Math.floor(concurrency));
  const iterator: Iterator<T> | AsyncIterator<T> =
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<T>)[Symbol.asyncIterator]()
      : (source as Iterable<T>)[Symbol.iterator]();
  let exhausted = false;
  let failure: unknown = null;
  // Pulls are serialised: two lanes never call next() at the same time on an async generator.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const p = pulling.then(() => iterator.next());
    pulling = p.catch(() => undefined);
    return p;
  };

  // Lanes are started one at a time, each when the previous one got an item, never `limit` of them up front:
  // `--concurrency 1e9` used to allocate a billion lanes and run out of memory before the first case.
  const lanes: Promise<void>[] = [];
  const lane = async (): Promise<void> => {
    while (!exhausted && failure === null && !signal?.aborted) {
      let item: IteratorResult<T>;
      try {
        item = await next();
      } catch (err) {
        failure = err;
        return;
      }
      if (item.done) {
        exhausted = true;
        return;
      }
      if (signal?.aborted) return;
      if (lanes.length < limit) lanes.push(lane());
      try {
        await worker(item.value);
      } catch (err) {
        failure = err;
        return;
      }
    }
  };

  lanes.push(lane());
  // Lanes never reject (they record `failure`), and one may start another while awaited: walk the growing list.
  for (let i = 0; i < lanes.length; i++) await lanes[i];
  if (!exhausted) await iterator.return?.();
  if (failure !== null) throw failure;
}

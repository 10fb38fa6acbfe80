/**
 * `items[index]` where the surrounding code already keeps the index in range (paired arrays, sorted
 * samples, a computed rank): a miss is a bug, so it throws a RangeError naming the index and length
 * instead of letting `undefined` flow on as a number or string.
 */
export function itemAt<T>(items: ArrayLike<T>, index: number): T {
  if (!Number.isInteger(index) || index < 0 || index >= items.length) {
    throw new RangeError(`index ${index} is out of range (length ${items.length})`);
  }
  // In range, so the element exists (it is undefined only where T itself allows it).
  return items[index] as T;
}

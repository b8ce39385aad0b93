/** Map helpers shared by the core's memo tables. */

/** The value of `key` in `map`, made by `make` and kept there the first time it is asked for. */
export function getOrSet<K extends object | string | number, V>(
  map: Pick<Map<K, V>, 'has' | 'get' | 'set'> | WeakMap<K & object, V>,
  key: K,
  make: () => V,
): V {
  const m = map as Pick<Map<K, V>, 'has' | 'get' | 'set'>;
  // One lookup when the key is there (a stored `undefined` needs the second).
  const known = m.get(key);
  if (known !== undefined || m.has(key)) return known as V;
  const value = make();
  m.set(key, value);
  return value;
}

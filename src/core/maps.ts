/** Map helpers shared by the core's memo tables. */

/** The value of `key` in `map`, made by `make` and kept there the first time it is asked for. */
export function getOrSet<K extends object | string | number, V>(
  map: Pick<Map<K, V>, 'has' | 'get' | 'set'> | WeakMap<K & object, V>,
  key: K,
  make: () => V,
): V {
  const m = map as Pick<Map<K, V>, 'has' | 'get' | 'set'>;
  if (m.has(key)) return m.get(key) as V;
  const value = make();
  m.set(key, value);
  return value;
}

// Indexes kept as a map of sets (objects by label, routes by host, services by selector, children
// by owner): an entry whose set empties goes with it, so an index stays as large as what it
// indexes rather than growing with every label, host or owner ever seen.

export function addTo<K, V>(map: Map<K, Set<V>>, entry: K, value: V): void {
  let values = map.get(entry);
  if (!values) {
    values = new Set();
    map.set(entry, values);
  }
  values.add(value);
}

export function removeFrom<K, V>(map: Map<K, Set<V>>, entry: K, value: V): void {
  const values = map.get(entry);
  if (!values) return;
  values.delete(value);
  if (values.size === 0) map.delete(entry);
}

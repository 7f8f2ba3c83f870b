/**
 * Text that comes from outside the service — workload logs, messages CI and the cluster wrote,
 * pull-request titles — reaches the agent wrapped where it stands, `{ "untrusted_data": "…" }`,
 * so a line in a log that reads like an instruction arrives labelled as data. The server's
 * instructions and each tool's description say what the wrapper means.
 */

export const untrustedKey = 'untrusted_data';

/** Keys from the result's root; `*` is every element of an array or every value of an object. */
export type FieldPath = readonly string[];

/** The value with the string at each path wrapped; how many strings were. */
export function markUntrusted(
  value: object,
  paths: readonly FieldPath[],
): { value: Record<string, unknown>; marked: number } {
  let marked = 0;
  const wrap = (item: unknown, path: FieldPath): unknown => {
    if (path.length === 0) {
      if (typeof item !== 'string') return item;
      marked += 1;
      return { [untrustedKey]: item };
    }
    const [head, ...rest] = path as [string, ...string[]];
    if (Array.isArray(item)) return head === '*' ? item.map((element) => wrap(element, rest)) : item;
    if (typeof item !== 'object' || item === null) return item;
    const record = item as Record<string, unknown>;
    const keys = head === '*' ? Object.keys(record) : Object.hasOwn(record, head) ? [head] : [];
    return { ...record, ...Object.fromEntries(keys.map((key) => [key, wrap(record[key], rest)])) };
  };
  let result: unknown = value;
  for (const path of paths) result = wrap(result, path);
  return { value: result as Record<string, unknown>, marked };
}

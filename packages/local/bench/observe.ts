/**
 * Readiness as a benchmark observes it: every composition's phase from the composition list, one
 * request per 200. Polling each composition's status instead made most of a burst's load (21,000+
 * status reads for 200 compositions; docs/performance.md, Burst).
 */
export async function listPhases(apiUrl: string): Promise<{ id: string; phase: string }[]> {
  const all: { id: string; phase: string }[] = [];
  let after: string | null = null;
  do {
    const query: string = `limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page = (await (await fetch(`${apiUrl}/v1/compositions?${query}`)).json()) as {
      items: { id: string; phase: string }[];
      next_cursor: string | null;
    };
    all.push(...page.items);
    after = page.next_cursor;
  } while (after);
  return all;
}

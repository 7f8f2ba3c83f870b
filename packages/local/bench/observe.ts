/**
 * The API as the benchmarks use it: creating demo compositions and watching them, over HTTP as a
 * client would.
 */

const demoComponents = ['service-a', 'service-b', 'service-c', 'service-d'];

/**
 * Creates demo composition `name`, overriding one component with an image tagged `tag`: by default
 * the `n`th of service-a…d in turn, so a run spreads over every component. Answers its id.
 */
export async function createComposition(
  apiUrl: string,
  n: number,
  options: { name: string; tag: string; component?: string; ttl?: string },
): Promise<string> {
  const component = options.component ?? (demoComponents[n % demoComponents.length] as string);
  const response = await fetch(`${apiUrl}/v1/compositions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      project: 'demo',
      baseline: 'staging',
      name: options.name,
      ...(options.ttl ? { ttl: options.ttl } : {}),
      overrides: { [component]: { image: `registry.example.com/demo/${component}:${options.tag}` } },
    }),
  });
  if (response.status !== 202)
    throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** One composition's phase, from its status. */
export async function phaseOf(apiUrl: string, id: string): Promise<string> {
  return ((await (await fetch(`${apiUrl}/v1/compositions/${id}/status`)).json()) as { phase: string }).phase;
}

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

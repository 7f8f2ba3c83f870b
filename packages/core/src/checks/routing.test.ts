import { describe, expect, it } from 'vitest';
import { hopLimits, hopsOf } from './hop-report.ts';
import { routingTarget, routingVerdict } from './routing.ts';

const a1 = 'registry.example.com/demo/service-a:1.0.0';
const b1 = 'registry.example.com/demo/service-b:1.0.0';
const b2 = 'registry.example.com/demo/service-b:2.0.0';
const c1 = 'registry.example.com/demo/service-c:1.0.0';

/** A local workload's answer: `component@image`, calling `calls` in turn. */
function report(component: string | null, image: string | null, ...calls: unknown[]) {
  return {
    component,
    image,
    pod: component ? `${component}-abc` : null,
    namespace: 'staging',
    routing_key: 'c-1',
    calls: calls.map((body) => ({ service: 'next', status: 200, body })),
  };
}

const chain = (b: string) => report('service-a', a1, report('service-b', b, report('service-c', c1)));

describe('the hop report', () => {
  it('flattens into the hops it went through, depth first', () => {
    expect(hopsOf(chain(b2))).toEqual([
      { component: 'service-a', image: a1, pod: 'service-a-abc', routing_key: 'c-1' },
      { component: 'service-b', image: b2, pod: 'service-b-abc', routing_key: 'c-1' },
      { component: 'service-c', image: c1, pod: 'service-c-abc', routing_key: 'c-1' },
    ]);
  });

  it('needs only component, image and the calls’ bodies', () => {
    expect(hopsOf({ component: 'service-a', image: a1 })).toEqual([
      { component: 'service-a', image: a1, pod: null, routing_key: null },
    ]);
  });

  it('adds no hop for a call answered by something else than a workload', () => {
    const failed = report('service-a', a1, { error: 'no_ready_endpoints', reason: 'none ready' });
    expect(hopsOf(failed)?.map((h) => h.component)).toEqual(['service-a']);
    expect(hopsOf(report('service-a', a1, report(null, null, report('service-c', c1))))).toHaveLength(1);
  });

  it.each([
    ['a problem answer', { error: 'no_route', reason: 'no rule matches' }],
    ['text', 'hello'],
    ['nothing', null],
    ['a workload that does not know its component', report(null, a1)],
    ['calls that are not a list', { component: 'service-a', image: a1, calls: 'none' }],
  ])('says nothing of what served for %s', (_, body) => {
    expect(hopsOf(body)).toBeNull();
  });
});

describe('reading an untrusted preview answer', () => {
  it(`reads at most ${hopLimits.maxDepth} levels of calls from a hostile body of 20,000 levels`, () => {
    let body: unknown = report('service-c', c1);
    for (let i = 0; i < 20_000; i++) body = report('service-b', b2, body);
    const hops = hopsOf(body);
    expect(hops).toHaveLength(hopLimits.maxDepth);
    expect(hops?.[0]).toMatchObject({ component: 'service-b', image: b2 });
  });

  it(`reads at most ${hopLimits.maxHops} hops of a wide body`, () => {
    const wide = report('service-a', a1, ...Array.from({ length: 5_000 }, () => report('service-b', b2)));
    expect(hopsOf(wide)).toHaveLength(hopLimits.maxHops);
  });
});

describe('the routing target', () => {
  const preview = 'http://c-1.preview.localhost:8082/';

  it.each([
    ['/', 'http://c-1.preview.localhost:8082/'],
    ['/health?full=1', 'http://c-1.preview.localhost:8082/health?full=1'],
    ['/http://127.0.0.1:9299/x', 'http://c-1.preview.localhost:8082/http://127.0.0.1:9299/x'],
    ['//127.0.0.1:9299/x', 'http://c-1.preview.localhost:8082//127.0.0.1:9299/x'],
    ['/../../etc', 'http://c-1.preview.localhost:8082/etc'],
  ])('keeps %s on the preview URL', (path, url) => {
    expect(routingTarget(preview, path)).toBe(url);
  });

  it.each(['http://127.0.0.1:9299/x', '@127.0.0.1:9299/x', '/\\127.0.0.1:9299/x', '/\t/127.0.0.1/x', ''])(
    'refuses %j: it is not a path',
    (path) => {
      expect(routingTarget(preview, path)).toBeNull();
    },
  );
});

describe('the routing verdict', () => {
  const images = { 'service-b': b2 };
  const answered = (body: unknown, status = 200) => ({ status, body, error: null });

  it('passes when the expected status came back and every override answered with its image', () => {
    expect(routingVerdict(answered(chain(b2)), images, 200)).toEqual({
      status: 'passed',
      message: 'every overridden component answered with its override image',
      http_status: 200,
      coverage: { 'service-b': 'verified' },
    });
  });

  it('passes a composition without overrides once the URL answers as expected', () => {
    expect(routingVerdict(answered('ok'), {}, 200)).toMatchObject({
      status: 'passed',
      message: 'the preview URL answered',
    });
  });

  it('fails when nothing answered, with nothing known of the overrides', () => {
    expect(routingVerdict({ status: null, body: null, error: 'ECONNREFUSED' }, images, 200)).toEqual({
      status: 'failed',
      message: 'the preview URL did not answer: ECONNREFUSED',
      http_status: null,
      coverage: { 'service-b': 'unknown' },
    });
  });

  it('fails on another status, still saying what was covered', () => {
    expect(routingVerdict(answered(chain(b2), 503), images, 200)).toEqual({
      status: 'failed',
      message: 'the preview URL answered 503, expected 200',
      http_status: 503,
      coverage: { 'service-b': 'verified' },
    });
  });

  it('fails naming the overrides served by another image', () => {
    const verdict = routingVerdict(answered(chain(b1)), { ...images, 'service-c': c1 }, 200);
    expect(verdict).toMatchObject({
      status: 'failed',
      message: 'not served by the override image: service-b',
      coverage: { 'service-b': 'mismatch', 'service-c': 'verified' },
    });
  });

  it('is unknown, never passed, when an override was not reached or the answer does not say', () => {
    const notReached = routingVerdict(answered(report('service-a', a1)), images, 200);
    expect(notReached).toMatchObject({
      status: 'unknown',
      message: 'the preview URL answered, but these overrides are not proven: service-b (not_reached)',
      coverage: { 'service-b': 'not_reached' },
    });
    expect(routingVerdict(answered('<html>'), images, 200)).toMatchObject({
      status: 'unknown',
      coverage: { 'service-b': 'unknown' },
    });
  });

  it('counts a component served by several images as a mismatch unless every one is the override', () => {
    const twice = report('service-a', a1, report('service-b', b2), report('service-b', b1));
    expect(routingVerdict(answered(twice), images, 200).coverage).toEqual({ 'service-b': 'mismatch' });
  });
});

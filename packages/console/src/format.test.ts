import { Compositions } from '@svc/core';
import { describe, expect, it } from 'vitest';
import {
  ago,
  costEstimate,
  count,
  curlCommand,
  interval,
  phaseReason,
  pullRequestUrl,
  readable,
  remaining,
  when,
} from './format.ts';

const now = new Date('2026-11-26T10:00:00.000Z');

describe('remaining', () => {
  it('shows hours and minutes, then minutes and seconds, then seconds', () => {
    expect(remaining('2026-11-26T12:05:30.000Z', now)).toBe('2h 05m');
    expect(remaining('2026-11-26T10:04:09.000Z', now)).toBe('4m 09s');
    expect(remaining('2026-11-26T10:00:12.000Z', now)).toBe('12s');
  });

  it('reads expired at and past the end', () => {
    expect(remaining('2026-11-26T10:00:00.000Z', now)).toBe('expired');
    expect(remaining('2026-11-26T09:00:00.000Z', now)).toBe('expired');
  });
});

it('when reads a moment in UTC, with the year only when it is not this one', () => {
  expect(when('2026-11-26T14:05:59.000Z', now)).toBe('26 Nov 14:05 UTC');
  expect(when('2027-01-02T03:04:00.000Z', now)).toBe('2 Jan 2027 03:04 UTC');
  expect(when('not a time', now)).toBe('not a time');
});

it('interval reads whole seconds as seconds and anything finer as milliseconds, as htmx takes both', () => {
  expect(interval(3000)).toBe('3s');
  expect(interval(250)).toBe('250ms');
  expect(interval(1500)).toBe('1500ms');
});

it('readable turns machine states into words', () => {
  expect(readable('not_started')).toBe('not started');
  expect(readable('waiting_for_build')).toBe('waiting for build');
  expect(readable('ready')).toBe('ready');
});

it('count agrees the noun with the number', () => {
  expect(count(1, 'pod')).toBe('1 pod');
  expect(count(2, 'pod')).toBe('2 pods');
  expect(count(0, 'pod')).toBe('0 pods');
});

it('ago says how long since', () => {
  expect(ago('2026-11-26T09:57:00.000Z', now)).toBe('3m 00s ago');
  expect(ago('2026-11-26T10:00:00.000Z', now)).toBe('just now');
});

it('the curl line carries the routing baggage and quotes for the shell', () => {
  expect(curlCommand('http://c-1.preview.localhost:8082/', 'c-1')).toBe(
    "curl -sS -H 'baggage: preview-route=c-1' 'http://c-1.preview.localhost:8082/'",
  );
  expect(curlCommand("http://x/'a", 'c-1')).toContain(`'http://x/'\\''a'`);
});

it('the cost estimate is what the overrides reserve over the TTL', () => {
  expect(
    costEstimate(
      { cpu_millicores: 500, memory_mib: 2048, pods: 2 },
      { ttl: '4h', expires_at: '2026-11-26T14:00:00.000Z' },
      now,
    ),
  ).toEqual({ cpuCoreHours: 2, memoryGibHours: 8, pods: 2, hours: 4 });
  expect(
    costEstimate({ cpu_millicores: 100, memory_mib: 128, pods: 1 }, { ttl: null, expires_at: null }, now),
  ).toBeNull();
});

it('a forge owner links to its pull request; anything else does not', () => {
  expect(pullRequestUrl('acme/shop#42', 'https://github.com/')).toBe('https://github.com/acme/shop/pull/42');
  expect(pullRequestUrl('user:bob', 'https://github.com')).toBeNull();
});

describe('phaseReason', () => {
  const view = (phase: Compositions.Phase, blockers: Compositions.Blocker[] = []) =>
    ({
      phase,
      generation: 2,
      observed_generation: 1,
      expires_at: '2026-11-26T14:00:00.000Z',
      latest_operation: { id: 'op-1', kind: 'update', status: 'running' },
      observed: { blockers },
    }) as unknown as Compositions.CompositionView;

  it('names the first blocker of a failed composition', () => {
    const blocker = {
      code: 'image_pull_failed',
      message: 'image x cannot be pulled',
      component: 'service-b',
    };
    expect(phaseReason(view(Compositions.Phase.Failed, [blocker]), now)).toBe(
      'image x cannot be pulled (service-b)',
    );
  });

  it('says which generation is rolling out and which is ready', () => {
    expect(phaseReason(view(Compositions.Phase.Updating), now)).toBe(
      'Rolling out generation 2 (update operation op-1, running).',
    );
    expect(phaseReason(view(Compositions.Phase.Ready), now)).toContain('Generation 1 is rolled out');
  });

  it('explains an expired composition', () => {
    expect(phaseReason(view(Compositions.Phase.Expired), now)).toContain('26 Nov 14:00 UTC');
  });
});

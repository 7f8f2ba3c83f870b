import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Baseline } from '../catalog/schema.ts';
import { demoProject } from '../testing/fixtures.ts';
import {
  commandWake,
  crawlerUserAgentPattern,
  defaultCrawlerUserAgents,
  defaultSleepSettings,
  heldAwake,
  observeSleep,
  podHoursSaved,
  type SleepRecord,
  SleepState,
  sleepAfter,
  sleepView,
  WakeCause,
  wakeCause,
} from './sleep.ts';

const at = new Date('2026-03-01T12:00:00.000Z');
const awake: SleepRecord = { after_seconds: 300, state: SleepState.Awake, since: '2026-03-01T11:00:00.000Z' };

describe("a baseline's sleep.after", () => {
  const baseline = (sleep: unknown) => v.safeParse(Baseline, { ...demoProject().baselines[0], sleep });

  it('takes durations between 5s and 24h and refuses others, naming the field', () => {
    expect(baseline({ after: '30m' }).success).toBe(true);
    expect(baseline(null).success).toBe(true);
    for (const after of ['4s', '25h', 'soon', '']) {
      const parsed = baseline({ after });
      expect(parsed.success).toBe(false);
      expect(v.getDotPath(parsed.issues?.[0] as v.BaseIssue<unknown>)).toBe('sleep.after');
    }
  });

  it('is off when neither the baseline nor the stage sets it', () => {
    expect(sleepAfter({}, defaultSleepSettings)).toBeNull();
  });

  it("takes the stage's default when the baseline says nothing, and null turns it off", () => {
    const settings = { ...defaultSleepSettings, defaultAfterSeconds: 900 };
    expect(sleepAfter({}, settings)).toEqual({ seconds: 900, cutFrom: null });
    expect(sleepAfter({ sleep: null }, settings)).toBeNull();
  });

  it("is cut to the stage's maximum", () => {
    const settings = { ...defaultSleepSettings, maxAfterSeconds: 600 };
    expect(sleepAfter({ sleep: { after: '1h' } }, settings)).toEqual({ seconds: 600, cutFrom: 3600 });
    expect(sleepAfter({ sleep: { after: '5m' } }, settings)).toEqual({ seconds: 300, cutFrom: null });
  });
});

describe('observing the forks', () => {
  it('sleeps when every fork is at zero replicas, and says slept since now', () => {
    const next = observeSleep(awake, [{ desired: 0, ready: 0 }], at);
    expect(next).toEqual({
      record: { ...awake, state: 'sleeping', since: at.toISOString() },
      event: 'slept',
    });
  });

  it('stays awake while one fork still runs', () => {
    const forks = [
      { desired: 0, ready: 0 },
      { desired: 1, ready: 1 },
    ];
    expect(observeSleep(awake, forks, at)).toEqual({ record: awake, event: null });
  });

  it('wakes (woke) when a fork scales up from zero, then is awake once every fork is ready', () => {
    const sleeping = { ...awake, state: SleepState.Sleeping };
    const waking = observeSleep(sleeping, [{ desired: 2, ready: 0 }], at);
    expect(waking.event).toBe('woke');
    expect(waking.record.state).toBe('waking');
    const later = new Date(at.getTime() + 1000);
    const up = observeSleep(waking.record, [{ desired: 2, ready: 2 }], later);
    expect(up).toEqual({
      record: { ...waking.record, state: 'awake', since: later.toISOString() },
      event: null,
    });
  });

  it('goes straight from sleeping to awake (woke) when the forks were ready before it looked', () => {
    const sleeping = { ...awake, state: SleepState.Sleeping };
    expect(observeSleep(sleeping, [{ desired: 1, ready: 1 }], at).event).toBe('woke');
  });

  it('never sleeps a composition without forks', () => {
    expect(observeSleep(awake, [], at).event).toBeNull();
  });
});

describe('a wake command', () => {
  const sleeping = { ...awake, state: SleepState.Sleeping };

  it('makes a sleeping composition waking from now, its forks held up for its after', () => {
    expect(commandWake(sleeping, at)).toEqual({
      ...sleeping,
      state: 'waking',
      since: at.toISOString(),
      awake_until: '2026-03-01T12:05:00.000Z',
    });
  });

  it('leaves an awake or waking composition as it is', () => {
    expect(commandWake(awake, at)).toBeNull();
    expect(commandWake({ ...awake, state: SleepState.Waking }, at)).toBeNull();
  });

  it('holds the forks up until awake_until, not at or after it', () => {
    const held = commandWake(sleeping, at) as SleepRecord;
    expect(heldAwake(held, at)).toBe(true);
    expect(heldAwake(held, new Date('2026-03-01T12:05:00.000Z'))).toBe(false);
    expect(heldAwake(awake, at)).toBe(false);
  });

  it('while it holds, a fork still at zero is waking, not asleep; once over, asleep again', () => {
    const held = commandWake(sleeping, at) as SleepRecord;
    const soon = new Date(at.getTime() + 1000);
    expect(observeSleep(held, [{ desired: 0, ready: 0 }], soon)).toEqual({ record: held, event: null });
    const up = observeSleep(held, [{ desired: 1, ready: 1 }], soon);
    expect(up).toEqual({ record: { ...held, state: 'awake', since: soon.toISOString() }, event: null });
    const over = new Date('2026-03-01T12:05:01.000Z');
    expect(observeSleep(up.record, [{ desired: 0, ready: 0 }], over).event).toBe('slept');
  });
});

describe('pod-hours saved', () => {
  const event = (type: string, at: string, data: Record<string, unknown> = {}) => ({
    type,
    at: `2026-03-01T${at}:00.000Z`,
    data,
  });

  it('adds each slept-to-woke interval times the forks that slept, and asleep still, until now', () => {
    const events = [
      event('woke', '11:30'),
      event('slept', '11:00', { forks: 2 }),
      event('created', '09:00'),
      event('slept', '11:45', { forks: 3 }),
    ];
    // 30 min × 2 forks, then 15 min (11:45 to 12:00) × 3 forks.
    expect(podHoursSaved(events, 1, at)).toBeCloseTo(1 + 0.75);
  });

  it("counts a slept event that does not say its forks with the composition's forks now", () => {
    expect(podHoursSaved([event('slept', '10:00'), event('woke', '11:00')], 3, at)).toBe(3);
  });

  it('is zero for a composition that never slept, and a woke without a slept before it counts nothing', () => {
    expect(podHoursSaved([], 2, at)).toBe(0);
    expect(podHoursSaved([event('woke', '10:00'), event('woke', '11:00')], 2, at)).toBe(0);
  });
});

describe('what woke it', () => {
  it('is the command that asked, else a waiting message, else a request', () => {
    expect(wakeCause({ commanded: true, queuedMessages: 3 })).toBe(WakeCause.Command);
    expect(wakeCause({ commanded: false, queuedMessages: 1 })).toBe(WakeCause.Message);
    expect(wakeCause({ commanded: false, queuedMessages: 0 })).toBe(WakeCause.Request);
  });
});

describe('the crawler User-Agent match', () => {
  const pattern = new RegExp(crawlerUserAgentPattern(defaultCrawlerUserAgents) ?? '');

  it('matches the unfurlers and crawlers as they introduce themselves', () => {
    for (const agent of [
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Twitterbot/1.0',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'WhatsApp/2.23.20.0',
    ]) {
      expect(pattern.test(agent), agent).toBe(true);
    }
  });

  it('leaves browsers and tools alone', () => {
    for (const agent of [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36',
      'curl/8.5.0',
    ]) {
      expect(pattern.test(agent), agent).toBe(false);
    }
  });

  it('escapes what a configured name holds, so a dot matches only a dot', () => {
    const custom = new RegExp(crawlerUserAgentPattern(['bot.example']) ?? '');
    expect(custom.test('bot.example/1')).toBe(true);
    expect(custom.test('botXexample/1')).toBe(false);
  });

  it('is no match at all for an empty list', () => {
    expect(crawlerUserAgentPattern([])).toBeNull();
  });
});

describe('the sleep answer', () => {
  it('says state, since and after; null when the composition never sleeps', () => {
    expect(sleepView(awake)).toEqual({ state: 'awake', since: awake.since, after: '5m' });
    expect(sleepView(null)).toBeNull();
    expect(sleepView(undefined)).toBeNull();
  });
});

/**
 * Sleep (docs/sleep.md): a composition's forks scale to zero after its baseline's `sleep.after`
 * without a request routed to them or a message on their isolated queue, and wake on the next one.
 * The cluster's autoscaler (KEDA) does the scaling; these rules decide what `after` a composition
 * gets, what its forks' replicas say its state is, and which callers never wake it.
 */
import * as v from 'valibot';
import { type Baseline, SleepAfter } from '../catalog/schema.ts';
import { formatDuration, parseDuration } from '../duration.ts';

export const SleepState = { Awake: 'awake', Sleeping: 'sleeping', Waking: 'waking' } as const;
export type SleepState = (typeof SleepState)[keyof typeof SleepState];

/** What woke a sleeping composition. */
export const WakeCause = { Request: 'request', Message: 'message', Command: 'command' } as const;
export type WakeCause = (typeof WakeCause)[keyof typeof WakeCause];

/**
 * Link unfurlers and crawlers, matched as substrings of `User-Agent` as they send it (case
 * included): a link pasted in a chat or found by a search engine reaches the baseline, never the
 * sleeping forks. Each is the product token its owner documents.
 */
export const defaultCrawlerUserAgents = [
  'Slackbot',
  'Slack-ImgProxy',
  'Twitterbot',
  'facebookexternalhit',
  'Facebot',
  'LinkedInBot',
  'Discordbot',
  'TelegramBot',
  'WhatsApp',
  'SkypeUriPreview',
  'MicrosoftPreview',
  'Mastodon',
  'redditbot',
  'Pinterestbot',
  'Embedly',
  'Iframely',
  'Googlebot',
  'GoogleOther',
  'Google-InspectionTool',
  'bingbot',
  'Applebot',
  'DuckDuckBot',
  'YandexBot',
  'Baiduspider',
  'GPTBot',
  'ClaudeBot',
  'PerplexityBot',
] as const;

/** A stage's sleep settings (`SLEEP_SETTINGS`, docs/deploy.md). */
export interface SleepSettings {
  /** `after` for a baseline that sets no `sleep`; null: those baselines never sleep. */
  defaultAfterSeconds: number | null;
  /** No baseline's forks stay up idle longer than this: a longer `after` is cut to it. */
  maxAfterSeconds: number;
  crawlerUserAgents: readonly string[];
}

/** Off unless a baseline turns it on, cut to 24 h, with the documented crawler list. */
export const defaultSleepSettings: SleepSettings = {
  defaultAfterSeconds: null,
  maxAfterSeconds: 24 * 3600,
  crawlerUserAgents: defaultCrawlerUserAgents,
};

/** A crawler's `User-Agent` token: printable, no regular-expression syntax needed to read it. */
const CrawlerToken = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9 ._+/-]{0,63}$/, 'a User-Agent token: letters, digits, space . _ + / -'),
);

/** `SLEEP_SETTINGS` as written: durations as in a catalog, the crawler list replacing the default one. */
export const SleepSettingsInput = v.strictObject({
  default_after: v.optional(v.nullable(SleepAfter), null),
  max_after: v.optional(SleepAfter, '24h'),
  crawler_user_agents: v.optional(v.pipe(v.array(CrawlerToken), v.maxLength(200, 'at most 200 entries')), [
    ...defaultCrawlerUserAgents,
  ]),
});

export function sleepSettingsOf(input: v.InferOutput<typeof SleepSettingsInput>): SleepSettings {
  return {
    defaultAfterSeconds: input.default_after === null ? null : parseDuration(input.default_after),
    maxAfterSeconds: parseDuration(input.max_after) ?? defaultSleepSettings.maxAfterSeconds,
    crawlerUserAgents: input.crawler_user_agents,
  };
}

/** A composition's sleep as stored: its idle time and the state last observed, since when. */
export interface SleepRecord {
  after_seconds: number;
  state: SleepState;
  since: string;
  /**
   * Until when a wake command holds its forks up (their ScaledObjects' minimum at 1); null or
   * absent (older records): no command holds them.
   */
  awake_until?: string | null;
}

/** How long a composition on `baseline` stays idle before its forks sleep, and the `after` it asked for when cut. */
export function sleepAfter(
  baseline: Pick<Baseline, 'sleep'>,
  settings: SleepSettings,
): { seconds: number; cutFrom: number | null } | null {
  if (baseline.sleep === null) return null;
  const asked = baseline.sleep ? parseDuration(baseline.sleep.after) : settings.defaultAfterSeconds;
  if (asked === null) return null;
  return asked > settings.maxAfterSeconds
    ? { seconds: settings.maxAfterSeconds, cutFrom: asked }
    : { seconds: asked, cutFrom: null };
}

/** A fork as its Deployment reports it: the replicas it should run now, and those ready. */
export interface ForkScale {
  desired: number;
  ready: number;
}

/**
 * The state the forks' replicas say: every fork scaled to zero is sleeping; coming back from sleep
 * with a fork not yet ready is waking; otherwise awake. A composition without forks never sleeps.
 */
function observedSleepState(previous: SleepState, forks: readonly ForkScale[]): SleepState {
  if (forks.length === 0) return SleepState.Awake;
  if (forks.every((f) => f.desired === 0)) return SleepState.Sleeping;
  const coming = previous === SleepState.Sleeping || previous === SleepState.Waking;
  return coming && forks.some((f) => f.ready < f.desired) ? SleepState.Waking : SleepState.Awake;
}

/** Whether a wake command holds the forks up at `now`. */
export function heldAwake(record: SleepRecord, now: Date): boolean {
  return Boolean(record.awake_until) && now.getTime() < Date.parse(record.awake_until ?? '');
}

/**
 * What an observation changes: the record, and the event it is (`slept` going to sleep, `woke`
 * leaving it). While a wake command holds the forks up, one still at zero is coming up (its
 * autoscaler has yet to act on the command), not asleep.
 */
export function observeSleep(
  record: SleepRecord,
  forks: readonly ForkScale[],
  now: Date,
): { record: SleepRecord; event: 'slept' | 'woke' | null } {
  const commanded = heldAwake(record, now);
  const seen = commanded ? forks.map((f) => (f.desired === 0 ? { desired: 1, ready: 0 } : f)) : forks;
  const state = observedSleepState(record.state, seen);
  if (state === record.state) return { record, event: null };
  const event =
    state === SleepState.Sleeping ? 'slept' : record.state === SleepState.Sleeping ? 'woke' : null;
  return { record: { ...record, state, since: now.toISOString() }, event };
}

/**
 * Why a composition woke, from what the observer saw: a wake it asked for itself, else a message
 * waiting on an isolated queue, else a request (the interceptor is the only other way up).
 */
export function wakeCause(evidence: { commanded: boolean; queuedMessages: number }): WakeCause {
  if (evidence.commanded) return WakeCause.Command;
  return evidence.queuedMessages > 0 ? WakeCause.Message : WakeCause.Request;
}

/**
 * A wake command: a sleeping composition is waking from `now`, its forks held up for `after` (so
 * they sleep again after as long without a request or message as they would have after one). An
 * awake or waking composition is left as it is: null.
 */
export function commandWake(record: SleepRecord, now: Date): SleepRecord | null {
  if (record.state !== SleepState.Sleeping) return null;
  const awakeUntil = new Date(now.getTime() + record.after_seconds * 1000).toISOString();
  return { ...record, state: SleepState.Waking, since: now.toISOString(), awake_until: awakeUntil };
}

/** A `slept` or `woke` event as pod-hours need it; a `slept` event says how many forks went to sleep. */
export interface SleepEvent {
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/**
 * The pod-hours a composition's sleep saved up to `now`: for each time it slept, until it woke (or
 * until now, asleep still), the forks that slept times the hours. A fork counts as one pod, the
 * least it runs awake. `slept` events of before the count was recorded take `forks`, the
 * composition's forks now. Events in any order; a `woke` with no `slept` before it counts nothing.
 */
export function podHoursSaved(events: readonly SleepEvent[], forks: number, now: Date): number {
  const ordered = events
    .filter((e) => e.type === 'slept' || e.type === 'woke')
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  let asleep: { since: number; forks: number } | null = null;
  let podMs = 0;
  for (const event of ordered) {
    const at = Date.parse(event.at);
    if (event.type === 'slept' && !asleep) {
      const recorded = event.data.forks;
      asleep = { since: at, forks: typeof recorded === 'number' ? recorded : forks };
    } else if (event.type === 'woke' && asleep) {
      podMs += (at - asleep.since) * asleep.forks;
      asleep = null;
    }
  }
  if (asleep) podMs += Math.max(0, now.getTime() - asleep.since) * asleep.forks;
  return podMs / 3_600_000;
}

/** Characters a regular expression gives a meaning to, escaped (RE2 and JavaScript agree on these). */
const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * The `User-Agent` header match (Gateway API `RegularExpression`, a full match) of any listed
 * crawler; null for an empty list.
 */
export function crawlerUserAgentPattern(userAgents: readonly string[]): string | null {
  if (userAgents.length === 0) return null;
  return `^.*(${userAgents.map(escapeRegex).join('|')}).*$`;
}

/** A composition's `sleep` as answered: null when it never sleeps. */
export function sleepView(
  record: SleepRecord | null | undefined,
): { state: SleepState; since: string; after: string } | null {
  if (!record) return null;
  return { state: record.state, since: record.since, after: formatDuration(record.after_seconds) };
}

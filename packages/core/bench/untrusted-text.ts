/**
 * `npm run bench:text`: scanning untrusted text takes time linear in its size. A draft's
 * configuration comes from outside, so a pattern that retries a long scan from
 * almost every position (quadratic) would let one request hold a core for seconds. Each input is
 * timed at 16 KiB and at 64 KiB, side by side: a linear scan takes about 4 times as long at four
 * times the size, a quadratic one about 16 times. The bench fails when a ratio passes 10.
 */
import { refusedContent } from '../src/drafts/refusal.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const quadraticFloor = 10;

const filled = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Each makes a quadratic pattern retry a long scan from almost every position. */
const pathological: Record<string, (size: number) => string> = {
  'blank lines': (n) => filled('\n', n),
  'spaces and newlines': (n) => filled(' \n', n),
  'tabs before an assignment that never comes': (n) => filled('\t', n),
  'upper-case letters (key words)': (n) => filled('A', n),
  'dotted words (URL schemes)': (n) => filled('a.', n),
  'dashed words': (n) => filled('a-', n),
  'a URL user that never ends': (n) => `a://${filled('b:', n)}`,
  'JWT-like runs': (n) => filled('eyJa-', n),
  'Slack-like runs': (n) => filled('xoxa-', n),
  'GitLab-like runs': (n) => filled('glpat-', n),
  'service-token-like runs': (n) => filled('svc_a-', n),
  'export with no name': (n) => filled('export ', n),
  'camel case': (n) => filled('aB', n),
  'PEM headers that never close': (n) => filled('-----BEGIN A', n),
};

/**
 * Milliseconds per call, the fastest of a few rounds (the least disturbed by a noisy machine); a
 * round repeats the call for at least 20 ms, so sub-millisecond calls are not timer noise.
 */
function fastest(run: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    let calls = 0;
    do {
      run();
      calls++;
    } while (performance.now() - started < 20);
    best = Math.min(best, (performance.now() - started) / calls);
  }
  return best;
}

function scanConfiguration(text: string) {
  refusedContent({ value: text, [text.slice(0, 4096)]: 'key too' }, '/configuration');
}

let worst = 0;
console.log('input                                          16 KiB ms   64 KiB ms   ratio');
for (const [name, make] of Object.entries(pathological)) {
  const [smallText, largeText] = [make(16 * 1024), make(64 * 1024)];
  const small = fastest(() => scanConfiguration(smallText));
  const large = fastest(() => scanConfiguration(largeText));
  const ratio = large / small;
  worst = Math.max(worst, ratio);
  console.log(
    `${name.padEnd(46)} ${small.toFixed(3).padStart(9)}   ${large.toFixed(3).padStart(9)}   ${ratio.toFixed(1).padStart(5)}`,
  );
}
console.log(`worst ratio ${worst.toFixed(1)} (linear ≈ 4, quadratic ≈ 16; fails above ${quadraticFloor})`);
if (worst > quadraticFloor) process.exitCode = 1;

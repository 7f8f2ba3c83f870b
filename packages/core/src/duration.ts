/** Durations as users write them: `30m`, `2h`, `1h30m`, `90s`. Units in descending order, each at most once. */
const pattern = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

export function parseDuration(text: string): number | null {
  if (text === '') return null;
  const match = pattern.exec(text);
  if (!match) return null;
  const [, h, m, s] = match;
  const seconds = Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
  return Number.isSafeInteger(seconds) ? seconds : null;
}

/** The canonical form of a duration in seconds: `4h`, `1h30m`, `45s`. */
export function formatDuration(totalSeconds: number): string {
  if (totalSeconds === 0) return '0s';
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}

// A de-duplicating work queue drained on the next turn of the event loop. Controllers add keys
// from store events and react within milliseconds; there is no polling. Delayed re-checks (progress
// deadlines, back-offs) are one-shot timers for a key.

export class WorkQueue {
  private readonly name: string;
  private readonly handler: (key: string) => void;
  private readonly pending = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(name: string, handler: (key: string) => void) {
    this.name = name;
    this.handler = handler;
  }

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.scheduled ??= setImmediate(() => this.drain());
  }

  /** Re-checks `key` after `ms`; an earlier pending re-check for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.delayed.delete(key);
        this.add(key);
      },
      Math.max(0, ms),
    );
    timer.unref();
    this.delayed.set(key, { at, timer });
  }

  private drain(): void {
    this.scheduled = undefined;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      if (this.stopped) return;
      try {
        this.handler(key);
        this.failures.delete(key);
      } catch (error) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        if (n === 1 || n % 20 === 0) {
          process.stderr.write(
            `local-cluster: ${this.name} ${key}: ${(error as Error).message} (attempt ${n})\n`,
          );
        }
        this.addAfter(key, Math.min(5000, 10 * 2 ** Math.min(n, 9)));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.pending.clear();
  }
}

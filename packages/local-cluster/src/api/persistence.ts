// State survives restarts as one JSON snapshot, rewritten atomically (temp file + rename) shortly
// after changes and on stop. The change history is not kept: watches from before a restart get 410.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot, Store } from './store.ts';

const FILE = 'state.json';
const DEBOUNCE_MS = 100;

export function loadSnapshot(dataDir: string): Snapshot | undefined {
  const file = join(dataDir, FILE);
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  if (parsed.version !== 1) throw new Error(`${file}: unknown snapshot version ${String(parsed.version)}`);
  return parsed;
}

export class Persistence {
  private readonly dir: string;
  private readonly store: Store;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private readonly unsubscribe: () => void;

  constructor(dataDir: string, store: Store) {
    this.dir = dataDir;
    this.store = store;
    mkdirSync(dataDir, { recursive: true });
    this.unsubscribe = store.subscribe(() => this.schedule());
  }

  private schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeAsync();
    }, DEBOUNCE_MS);
    this.timer.unref();
  }

  private async writeAsync(): Promise<void> {
    if (this.writing) {
      await this.writing;
      if (this.dirty) this.schedule();
      return;
    }
    this.dirty = false;
    const text = JSON.stringify(this.store.snapshot());
    const tmp = join(this.dir, `${FILE}.tmp`);
    this.writing = writeFile(tmp, text)
      .then(() => rename(tmp, join(this.dir, FILE)))
      .catch((error: unknown) => {
        process.stderr.write(`local-cluster: could not save state: ${String(error)}\n`);
        this.dirty = true;
      })
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }

  /** Stops listening and writes the final state synchronously. */
  async close(): Promise<void> {
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) await this.writing;
    const tmp = join(this.dir, `${FILE}.tmp`);
    writeFileSync(tmp, JSON.stringify(this.store.snapshot()));
    renameSync(tmp, join(this.dir, FILE));
  }
}

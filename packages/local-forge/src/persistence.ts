// State survives restarts as one JSON file, rewritten atomically (temp file + rename) shortly after
// each change and on stop. It holds the app's private key, so it is written readable by the owner only.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ForgeState } from './state.ts';

const DEBOUNCE_MS = 100;

export function loadState(file: string): ForgeState | undefined {
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as ForgeState;
  if (parsed.version !== 1) throw new Error(`${file}: unknown forge state version ${String(parsed.version)}`);
  // Files written before deployments existed have none.
  parsed.deployments ??= [];
  parsed.deploymentStatuses ??= [];
  return parsed;
}

export class StateFile {
  private readonly file: string;
  private readonly snapshot: () => ForgeState;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(file: string, snapshot: () => ForgeState) {
    this.file = file;
    this.snapshot = snapshot;
    mkdirSync(dirname(file), { recursive: true });
  }

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, DEBOUNCE_MS);
    this.timer.unref();
  }

  /** Writes now (after any write in progress) and cancels a pending one. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.write();
  }

  private write(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const tmp = `${this.file}.tmp`;
      try {
        await writeFile(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
        await rename(tmp, this.file);
      } catch (error) {
        process.stderr.write(`local-forge: could not save state to ${this.file}: ${String(error)}\n`);
      }
    });
    return this.writing;
  }
}

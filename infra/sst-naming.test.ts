import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { physicalName, physicalNamePrefix, prefixName, type SstApp } from './sst-naming.ts';

const app = (stage: string): SstApp => ({ name: 'preview-composition', stage });

/**
 * SST 4.17.1's own platform/src/components/naming.ts, as its CLI binary (the `sst-<platform>-<arch>`
 * package npm installed) embeds it: Go stores embedded files as plain bytes, so the file is found by
 * its first and last lines whatever the binary's format.
 */
function sstNamingSource(): string {
  const binary = createRequire(import.meta.url).resolve(
    `sst-${process.platform}-${process.arch}/bin/${process.platform === 'win32' ? 'sst.exe' : 'sst'}`,
  );
  const bytes = readFileSync(binary);
  const start = bytes.indexOf('import crypto from "crypto";\n\nexport function logicalName(');
  const endMarker = 'export const PRETTY_CHARS = "abcdefhkmnorstuvwxz";\n';
  const end = bytes.indexOf(endMarker, start);
  if (start < 0 || end < 0) throw new Error(`naming.ts not found in ${binary}`);
  return bytes.subarray(start, end + endMarker.length).toString('utf8');
}

describe("SST 4.17.1's naming, ported", () => {
  const sourceFile = join(tmpdir(), `sst-naming-${process.pid}.ts`);
  afterAll(() => rmSync(sourceFile, { force: true }));

  it('keeps app, stage and name while they fit', () => {
    expect(prefixName(app('staging'), 55, 'ApiFunctionFunction')).toBe(
      'preview-composition-staging-ApiFunctionFunction',
    );
  });

  it('cuts the app first: a schedule of the production stage is preview-compositi-production-…', () => {
    // component.ts: "aws:scheduler/schedule:Schedule": ["name", 64]; cron-v2.ts names it `${name}Schedule`.
    expect(physicalNamePrefix(app('production'), 64, 'ForgeDispatchSweepSchedule')).toBe(
      'preview-compositi-production-ForgeDispatchSweepSchedule',
    );
    expect(physicalName(app('production'), 64, 'ForgeDispatchSweepSchedule', 'abcdefhk')).toHaveLength(64);
  });

  it('cuts the app to its first letters for a 20-character stage, and keeps a fifo suffix out of the prefix', () => {
    const stage = 'a'.repeat(20);
    expect(physicalNamePrefix(app(stage), 64, 'ForgeDispatchSweepSchedule')).toBe(
      `preview-${stage}-ForgeDispatchSweepSchedule`,
    );
    expect(physicalName(app('staging'), 80, 'JobsQueue', 'abcdefhk', '.fifo')).toBe(
      'preview-composition-staging-JobsQueue-abcdefhk.fifo',
    );
  });

  it('cuts the app to nothing, then the stage, then keeps only the name', () => {
    expect(prefixName(app('production'), 20, 'Queue')).toBe('pre-production-Queue');
    expect(prefixName(app('production'), 17, 'Queue')).toBe('production-Queue');
    expect(prefixName(app('production'), 12, 'Queue')).toBe('produc-Queue');
    expect(prefixName(app('production'), 4, 'Queue')).toBe('Queu');
  });

  it('strips what is not a letter or a digit from the name', () => {
    expect(prefixName(app('staging'), 55, 'Jobs-Dead_Letter')).toBe(
      'preview-composition-staging-JobsDeadLetter',
    );
  });

  it("answers as SST's own prefixName, embedded in the installed SST binary, for every length and shape", async () => {
    writeFileSync(sourceFile, sstNamingSource());
    const stages = ['dev', 'staging', 'production', 'a'.repeat(20), 'x'];
    const names = ['Api', 'ApiFunctionFunction', 'ForgeDispatchSweepSchedule', 'Jobs-Dead_Letter', 'Q'];
    const previous = Reflect.get(globalThis, '$app');
    try {
      const sst = (await import(/* @vite-ignore */ sourceFile)) as {
        prefixName(max: number, name: string): string;
      };
      const differing: string[] = [];
      for (const stage of stages) {
        Reflect.set(globalThis, '$app', app(stage));
        for (const name of names) {
          for (let max = 1; max <= 80; max++) {
            const ours = prefixName(app(stage), max, name);
            if (ours !== sst.prefixName(max, name)) differing.push(`${stage} ${name} ${max}: ${ours}`);
          }
        }
      }
      expect(differing).toEqual([]);
    } finally {
      Reflect.set(globalThis, '$app', previous);
    }
  });
});

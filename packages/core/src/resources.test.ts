import { describe, expect, it } from 'vitest';
import { deadLetterQueue, jobQueue, queues, schedules, table, workerTimeoutSeconds } from './resources.ts';

describe('resource declaration', () => {
  it('gives the job queue a visibility timeout of at least six worker timeouts', () => {
    expect(jobQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * workerTimeoutSeconds);
  });

  it('redrives the job queue to a declared dead-letter queue after a bounded number of receives', () => {
    expect(queues.map((q) => q.name)).toContain(jobQueue.deadLetterQueue);
    expect(jobQueue.deadLetterQueue).toBe(deadLetterQueue.name);
    expect(jobQueue.maxReceiveCount).toBeGreaterThan(1);
    expect(jobQueue.maxReceiveCount).toBeLessThanOrEqual(10);
    expect(deadLetterQueue.messageRetentionSeconds).toBeGreaterThan(jobQueue.messageRetentionSeconds);
  });

  it('sets a TTL attribute that is not a key attribute', () => {
    expect(table.ttlAttribute).toBeTruthy();
    const keys = [
      table.partitionKey,
      table.sortKey,
      ...table.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
    ];
    expect(keys).not.toContain(table.ttlAttribute);
  });

  it('uses distinct index names and key attributes', () => {
    const names = table.globalIndexes.map((i) => i.name);
    expect(new Set(names).size).toBe(names.length);
    const keys = table.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey]);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('declares each schedule once with a period a scheduler can express', () => {
    const names = schedules.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of schedules) {
      expect(s.periodSeconds % 60, s.name).toBe(0);
      expect(s.periodSeconds).toBeGreaterThanOrEqual(60);
    }
  });

  it('keeps queue and table names within AWS limits', () => {
    for (const q of queues) expect(q.name).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(table.name.length).toBeGreaterThanOrEqual(3);
  });
});

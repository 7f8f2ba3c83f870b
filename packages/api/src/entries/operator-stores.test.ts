import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('the operator scripts without an installation’s environment', () => {
  it.each([['token:issue', 'issue-token.ts', ['--name', 'ops', '--role', 'admin']]])(
    'npm run %s names what is missing and what the local stack offers, without a stack trace',
    async (script, file, args) => {
      const ran = await run(process.execPath, [join(import.meta.dirname, file), ...args], {
        env: { PATH: process.env.PATH ?? '' },
      }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(ran?.code).toBe(2);
      expect(ran?.stderr).toContain(`npm run ${script} writes into an installation's table`);
      expect(ran?.stderr).toContain('TABLE_NAME is not set');
      expect(ran?.stderr).toContain('npm start -- --auth token prints an Admin token');
      expect(ran?.stderr).not.toMatch(/^\s+at /m);
    },
  );
});

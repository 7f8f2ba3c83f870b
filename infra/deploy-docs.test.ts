/**
 * docs/deploy.md's shell blocks, run against the real scripts wherever they need no AWS account:
 * each block says above it whether it runs offline (`<!-- offline … -->`) or needs AWS, the cluster
 * or the deployed stage (`<!-- needs … -->`); the offline ones run from the repository's root with
 * the walk's placeholders filled in, so the ci-role output goes through `jq` as written.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Block {
  marker: string;
  script: string;
  line: number;
}

/** Every ```sh block with the HTML comment right above it, nested ones unindented. */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = lines[i]?.match(/^(\s*)```sh$/);
    if (!opening) continue;
    const indent = opening[1]?.length ?? 0;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    const above =
      lines
        .slice(0, i)
        .reverse()
        .find((line) => line.trim() !== '') ?? '';
    blocks.push({
      marker: above.trim().match(/^<!-- (.*) -->$/)?.[1] ?? '',
      script: lines
        .slice(i + 1, end)
        .map((line) => line.slice(indent))
        .join('\n'),
      line: i + 1,
    });
    i = end;
  }
  return blocks;
}

/** The walk's placeholders, as a reader fills them in. */
const filledIn: Record<string, string> = {
  '<owner>/<repo>': 'acme/preview',
  '<account id>': '123456789012',
  '<stage>': 'staging',
};

function run(script: string) {
  const filled = Object.entries(filledIn).reduce((text, [from, to]) => text.replaceAll(from, to), script);
  // The Node running the tests (24), and the repository's tools, as npm scripts see them.
  const path = [dirname(process.execPath), resolve('node_modules/.bin'), process.env.PATH].join(delimiter);
  const result = spawnSync('sh', ['-e', '-c', filled], {
    cwd: resolve('.'),
    encoding: 'utf8',
    env: { ...process.env, PATH: path },
    timeout: 60_000,
  });
  return { filled, code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const blocks = shellBlocks(readFileSync('docs/deploy.md', 'utf8'));

describe('docs/deploy.md', () => {
  it('says of every shell block whether it runs offline or what it needs', () => {
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks) expect(block.marker, `line ${block.line}`).toMatch(/^(offline|needs )/);
    expect(blocks.filter((b) => b.marker.startsWith('offline')).length).toBeGreaterThanOrEqual(2);
  });

  for (const block of blocks.filter((b) => b.marker.startsWith('offline'))) {
    it(`runs the block at line ${block.line} as written`, () => {
      const { filled, code, stdout, stderr } = run(block.script);
      expect(filled, 'a placeholder the walk does not fill in').not.toMatch(/<[a-z][^>]*>/);
      if (block.marker.includes('fails')) {
        // The stage check of a stage that keeps the repository's examples: every one is named.
        expect(code, stderr).toBe(1);
        expect(stdout).toMatch(/^stage "staging" can be deployed$/m);
        expect(stderr).toMatch(/^stage "staging" cannot be deployed:\n(- .* is a placeholder: .*\n)+$/);
      } else {
        expect(code, stderr).toBe(0);
        expect(stderr).toBe('');
      }
    });
  }

  it("gets the role's names and trust out of `npm run -s ci-role` through jq", () => {
    const block = blocks.find((b) => b.script.includes('npm run -s ci-role'));
    const { stdout } = run(block?.script ?? '');
    expect(stdout.split('\n')).toEqual([
      'preview-composition-staging-deploy',
      'preview-composition-staging-boundary',
      'preview-composition-staging-deploy-1',
      'preview-composition-staging-deploy-2',
      '"repo:acme/preview:environment:staging"',
      '',
    ]);
  });
});

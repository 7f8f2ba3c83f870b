/**
 * Runs this repository's CI steps as their runners would, from their own files: a composite GitHub
 * Action's `run` steps with the expressions GitHub fills in (`inputs`, `github`, `steps.*.outputs`)
 * and the outputs it declares, and a GitLab template job's `before_script` and `script` with its
 * variables. Only `actions/setup-node` is skipped: this machine's Node 24 stands in for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

export const repoRoot = join(import.meta.dirname, '..', '..');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(script: string, env: Record<string, string>, cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', script], {
      cwd,
      // The runner's own variables only, and Node 24 first on PATH, as setup-node leaves it.
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: tmpdir(), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

interface ActionSpec {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: { id?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string> }[];
  };
}

export interface ActionRun extends Ran {
  outputs: Record<string, string>;
  summary: string;
}

/** One run of the composite action in `dir` (its action.yml), as GitHub runs it. */
export async function runAction(
  dir: string,
  given: Record<string, string>,
  github: Record<string, string>,
): Promise<ActionRun> {
  const action = parse(readFileSync(join(dir, 'action.yml'), 'utf8')) as ActionSpec;
  if (action.runs.using !== 'composite') throw new Error(`${dir}: not a composite action`);
  const unknown = Object.keys(given).filter((name) => !(name in action.inputs));
  if (unknown.length) throw new Error(`${dir}: no inputs ${unknown.join(', ')}`);
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, given[name] ?? spec.default ?? '']),
  );
  const steps: Record<string, Record<string, string>> = {};
  const fill = (text: string) =>
    text.replace(/\$\{\{\s*([a-z_]+)\.([A-Za-z0-9_.-]+)\s*\}\}/g, (_, scope: string, path: string) => {
      const [first = '', , last = ''] = path.split('.');
      const value =
        scope === 'inputs' ? inputs[path] : scope === 'github' ? github[path] : steps[first]?.[last];
      if (value === undefined) throw new Error(`${dir}: the expression ${scope}.${path} has no value here`);
      return value;
    });
  const work = mkdtempSync(join(tmpdir(), 'action-'));
  const summaryFile = join(work, 'summary.md');
  writeFileSync(summaryFile, '');
  let last: Ran = { code: 0, stdout: '', stderr: '' };
  for (const [index, step] of action.runs.steps.entries()) {
    if (step.uses) {
      if (!step.uses.startsWith('actions/setup-node@')) throw new Error(`${dir}: cannot run ${step.uses}`);
      continue;
    }
    if (step.shell !== 'bash' || !step.run) throw new Error(`${dir}: step ${index} is not a bash run step`);
    const outputFile = join(work, `output-${index}`);
    writeFileSync(outputFile, '');
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, fill(value)]),
    );
    last = await bash(
      fill(step.run),
      { ...env, GITHUB_ACTION_PATH: dir, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile },
      work,
    );
    if (step.id) steps[step.id] = keyValues(readFileSync(outputFile, 'utf8'));
    if (last.code !== 0) break;
  }
  const outputs =
    last.code === 0
      ? Object.fromEntries(
          Object.entries(action.outputs ?? {}).map(([name, { value }]) => [name, fill(value)]),
        )
      : {};
  return { ...last, outputs, summary: readFileSync(summaryFile, 'utf8') };
}

interface GitlabJob {
  extends?: string;
  variables?: Record<string, string>;
  before_script?: string[];
  script?: string[];
  artifacts?: { reports?: { dotenv?: string } };
}

export interface GitlabRun extends Ran {
  /** The job's dotenv report, as later jobs of the pipeline get it. */
  dotenv: Record<string, string>;
}

/**
 * One job extending `template` of the GitLab CI file, with `variables` (the including project's and
 * GitLab's predefined ones), as a GitLab runner runs it: variables, then before_script and script.
 */
export async function runGitlabJob(
  file: string,
  template: string,
  variables: Record<string, string>,
): Promise<GitlabRun> {
  const document = parse(readFileSync(file, 'utf8')) as Record<string, GitlabJob> & {
    variables?: Record<string, string>;
  };
  const chain: GitlabJob[] = [];
  for (let name: string | undefined = template; name; name = document[name]?.extends) {
    const job = document[name];
    if (!job) throw new Error(`${file}: no job ${name}`);
    chain.unshift(job);
  }
  // `extends` merges the jobs' keys, the nearest winning, and their variables key by key.
  const job: GitlabJob = Object.assign({}, ...chain);
  job.variables = Object.assign({}, ...chain.map((j) => j.variables ?? {}));
  const work = mkdtempSync(join(tmpdir(), 'gitlab-'));
  const script = [...(job.before_script ?? []), ...(job.script ?? [])].join('\n');
  const ran = await bash(script, { ...document.variables, ...job.variables, ...variables }, work);
  const report = job.artifacts?.reports?.dotenv;
  const dotenv = report && existsSync(join(work, report)) ? readFileSync(join(work, report), 'utf8') : '';
  return { ...ran, dotenv: keyValues(dotenv) };
}

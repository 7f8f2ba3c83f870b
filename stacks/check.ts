/**
 * Whether a stage can be deployed, before anything is: `node stacks/check.ts <stage> [--described]`
 * loads stacks/<stage>.ts (its schema), applies deployProblems and prints what is wrong, every
 * problem on a line of its own (exit 1), or that it can be deployed (exit 0). `--described` holds
 * the stage to what production always is held to: the deploy workflow checks every stage it
 * deploys with it, before it has credentials (docs/deploy.md).
 */
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { deployProblems, type StageSettings } from './schema.ts';

/** The stage's problems: its file's schema issues, else deployProblems. */
async function stageProblems(stage: string, described: boolean): Promise<string[]> {
  if (!/^[a-z0-9-]+$/.test(stage)) return [`"${stage}" is not a stage name`];
  let settings: StageSettings;
  try {
    settings = ((await import(`./${stage}.ts`)) as { default: StageSettings }).default;
  } catch (error) {
    if (error instanceof v.ValiError) {
      return error.issues.map((issue) => `${v.getDotPath(issue) ?? 'settings'}: ${issue.message}`);
    }
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return [`no stacks/${stage}.ts`];
    throw error;
  }
  return deployProblems(stage, settings, described ? { described } : {});
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { described: { type: 'boolean', default: false } },
  });
  const [stage] = positionals;
  if (!stage || positionals.length > 1) {
    console.error('usage: node stacks/check.ts <stage> [--described]');
    process.exit(2);
  }
  const problems = await stageProblems(stage, values.described);
  if (problems.length > 0) {
    console.error(`stage "${stage}" cannot be deployed:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`stage "${stage}" can be deployed`);
}

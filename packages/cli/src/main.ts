/**
 * `svc`: resolve the command path through the lazy command map, parse its flags, run it, print its
 * result as JSON on stdout; every failure becomes one problem line on stderr and an exit code.
 */
import { type Command, describe, type Group, helpText, parseCommandLine } from './command.ts';
import { root } from './commands/index.ts';
import { createContext } from './context.ts';
import { CliError, ExitCode, LocalCode, localProblem, type Problem, usageError } from './errors.ts';

function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function writeProblem(problem: Problem): void {
  process.stderr.write(`${JSON.stringify(problem)}\n`);
}

async function resolve(argv: readonly string[]): Promise<{ target: Command | Group; rest: string[] }> {
  let target: Command | Group = root;
  let index = 0;
  while (target.kind === 'group') {
    const word = argv[index];
    if (word === undefined || word.startsWith('-')) break;
    const load: (() => Promise<{ default: Command | Group }>) | undefined = Object.hasOwn(
      target.commands,
      word,
    )
      ? target.commands[word]
      : undefined;
    if (!load) {
      const prefix = target.name ? `svc ${target.name}` : 'svc';
      throw usageError(
        `unknown command "${word}"; ${prefix} has: ${Object.keys(target.commands).join(', ')}. See: ${prefix} --help`,
      );
    }
    target = (await load()).default;
    index += 1;
  }
  return { target, rest: argv.slice(index) };
}

function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((word) => word === '--help' || word === '-h');
}

async function showHelp(target: Command | Group): Promise<void> {
  process.stderr.write(await helpText(target));
  // A person at a terminal has just read the text; a program gets the same facts as JSON.
  if (!process.stdout.isTTY) writeJson(await describe(target));
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<ExitCode> {
  let command: Command | undefined;
  const exitCode = (code: ExitCode) => command?.exitCodes?.remap[code] ?? code;
  try {
    const { target, rest } = await resolve(argv);
    if (wantsHelp(rest)) {
      await showHelp(target);
      return ExitCode.Ok;
    }
    if (target.kind === 'group') {
      const word = rest[0];
      process.stderr.write(await helpText(target));
      const prefix = target.name ? `svc ${target.name}` : 'svc';
      throw usageError(
        word === undefined ? `${prefix} needs a command` : `unknown flag "${word}" before a command`,
      );
    }
    command = target;
    const { flags, args } = parseCommandLine(target, rest);
    const output = await target.run({ flags, args, context: createContext(env) });
    // A command that spoke on stdout itself (svc mcp) has no result to print.
    if (output !== undefined) writeJson(output);
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof CliError) {
      if (error.output !== undefined) writeJson(error.output);
      if (error.hint) process.stderr.write(`svc: ${error.hint}\n`);
      writeProblem(error.problem);
      return error.verdict ? error.exitCode : exitCode(error.exitCode);
    }
    const detail = env.SVC_DEBUG ? String((error as Error).stack) : String((error as Error).message ?? error);
    writeProblem(
      localProblem(LocalCode.Internal, `${detail} (a bug in svc; SVC_DEBUG=1 shows the stack trace)`),
    );
    return exitCode(ExitCode.Failure);
  }
}

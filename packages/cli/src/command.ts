/**
 * Commands in the style of citty, on `node:util` parseArgs: one command per file, groups that load
 * their commands lazily, flags and positionals declared once (flags with their defaults) so `--help`
 * (text on stderr, a JSON description on stdout) can never disagree with what the command does, and
 * so `run` receives both typed from their declarations.
 */
import type { parseArgs } from 'node:util';
import { builtin } from './builtins.ts';
import type { Context } from './context.ts';
import { type ExitCode, usageError } from './errors.ts';

export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Applied when the flag is absent and shown in help. */
  default?: string;
  /** Help text for a default computed at run time (`the project's default_baseline`). */
  defaultNote?: string;
  required?: boolean;
  multiple?: boolean;
  /** Placeholder in help: `<component=image>`. */
  value?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type FlagValue<F extends FlagSpec> = F['type'] extends 'boolean'
  ? boolean
  : F['multiple'] extends true
    ? string[]
    : F['required'] extends true
      ? string
      : F['default'] extends string
        ? string
        : string | undefined;

export type Flags<F extends FlagSpecs> = { [K in keyof F]: FlagValue<F[K]> };

interface PositionalSpec {
  description: string;
}

/** Positionals by name, in the order they are given on the command line. */
export type PositionalSpecs = Readonly<Record<string, PositionalSpec>>;

export type Args<P extends PositionalSpecs> = { [K in keyof P]: string };

type NoPositionals = Readonly<Record<never, PositionalSpec>>;

export interface Command<F extends FlagSpecs = FlagSpecs, P extends PositionalSpecs = PositionalSpecs> {
  kind: 'command';
  /** Full name as typed, e.g. `composition create`. */
  name: string;
  summary: string;
  /** Longer text for help: rules, what stdout holds, exit codes specific to the command. */
  notes?: string[];
  positionals?: P;
  flags: F;
  /**
   * For a command whose own exit codes collide with the shared ones (`installation check`: 1 failed,
   * 2 incomplete): the codes the shared outcomes get instead, and the help line that says so.
   */
  exitCodes?: { remap: Readonly<Partial<Record<ExitCode, ExitCode>>>; summary: string };
  run(input: { flags: Flags<F>; args: Args<P>; context: Context }): Promise<unknown>;
}

type Loader = () => Promise<{ default: Command | Group }>;

export interface Group {
  kind: 'group';
  name: string;
  summary: string;
  /**
   * Loaded only when chosen: `svc version` never parses the composition commands. The group's help
   * loads them all and lists each with its own summary.
   */
  commands: Readonly<Record<string, Loader>>;
}

export function defineCommand<const F extends FlagSpecs, const P extends PositionalSpecs = NoPositionals>(
  command: Omit<Command<F, P>, 'kind'>,
): Command<F, P> {
  return { kind: 'command', ...command };
}

export function defineGroup(group: Omit<Group, 'kind'>): Group {
  return { kind: 'group', ...group };
}

type Parsed = ReturnType<typeof parseArgs>;

/** node:util parseArgs, strict, with its complaint made a usage error naming the flag. */
function parsedArgv(command: Pick<Command, 'name' | 'flags'>, argv: readonly string[]): Parsed {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(command.flags)) {
    options[name] = spec.multiple ? { type: spec.type, multiple: true } : { type: spec.type };
  }
  try {
    return builtin('node:util').parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    // parseArgs explains itself over several lines; the problem stays one line and names the flag.
    const message = (error as Error).message
      .replace(/\. To specify a positional argument.*$/s, '.')
      .replace(/\s*\n\s*/g, ' ');
    const flag = /'(--?[A-Za-z][\w-]*)/.exec(message)?.[1];
    throw usageError(
      `${message} See: svc ${command.name} --help`,
      flag ? [{ path: flag, message: 'invalid' }] : [],
    );
  }
}

/** Each declared flag's value: given, its default, or a usage error when it is required or empty. */
function flagValues(
  command: Pick<Command, 'name' | 'flags'>,
  values: Parsed['values'],
): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(command.flags)) {
    const value = values[name];
    if (spec.multiple) flags[name] = value ?? [];
    else if (spec.type === 'boolean') flags[name] = value === true;
    else if (value !== undefined) {
      if (value === '')
        throw usageError(`--${name} needs a value.`, [{ path: `--${name}`, message: 'empty' }]);
      flags[name] = value;
    } else if (spec.default !== undefined) flags[name] = spec.default;
    else if (spec.required) {
      throw usageError(`--${name} is required. See: svc ${command.name} --help`, [
        { path: `--${name}`, message: 'required' },
      ]);
    }
  }
  return flags;
}

/** The positionals by their declared names: exactly as many as declared. */
function positionalArgs(
  command: Pick<Command, 'name' | 'positionals'>,
  given: string[],
): Record<string, string | undefined> {
  const expected = Object.keys(command.positionals ?? {});
  if (given.length < expected.length) {
    const missing = expected.slice(given.length).map((name) => `<${name}>`);
    throw usageError(`missing ${missing.join(' ')}. See: svc ${command.name} --help`, [
      ...missing.map((path) => ({ path, message: 'required' })),
    ]);
  }
  if (given.length > expected.length) {
    throw usageError(`unexpected argument "${given[expected.length]}". See: svc ${command.name} --help`);
  }
  return Object.fromEntries(expected.map((name, i) => [name, given[i]]));
}

/** Parses argv against the command's flags; every mistake is a usage error naming the flag. */
export function parseCommandLine<F extends FlagSpecs, P extends PositionalSpecs>(
  command: Command<F, P>,
  argv: readonly string[],
): { flags: Flags<F>; args: Args<P> } {
  const parsed = parsedArgv(command, argv);
  const flags = flagValues(command, parsed.values);
  const args = positionalArgs(command, parsed.positionals);
  return { flags: flags as Flags<F>, args: args as Args<P> };
}

/** Each command of a group with its own summary; loads them all, which only help needs. */
async function entries(group: Group): Promise<{ name: string; summary: string }[]> {
  return Promise.all(
    Object.entries(group.commands).map(async ([name, load]) => ({
      name,
      summary: (await load()).default.summary,
    })),
  );
}

/** A machine-readable description of a command or group: what `--help` prints on stdout. */
export async function describe(target: Command | Group): Promise<unknown> {
  if (target.kind === 'group') {
    return {
      command: target.name ? `svc ${target.name}` : 'svc',
      summary: target.summary,
      commands: (await entries(target)).map(({ name, summary }) => ({
        name: target.name ? `${target.name} ${name}` : name,
        summary,
      })),
    };
  }
  return {
    command: `svc ${target.name}`,
    summary: target.summary,
    usage: usageLine(target),
    arguments: Object.entries(target.positionals ?? {}).map(([name, { description }]) => ({
      name,
      description,
    })),
    flags: Object.entries(target.flags).map(([name, spec]) => ({
      name: `--${name}`,
      type: spec.type,
      value: spec.type === 'string' ? (spec.value ?? 'string') : null,
      required: spec.required === true,
      repeatable: spec.multiple === true,
      default: spec.default ?? spec.defaultNote ?? (spec.type === 'boolean' ? false : null),
      description: spec.description,
    })),
    notes: target.notes ?? [],
  };
}

function usageLine(command: Command): string {
  const positionals = Object.keys(command.positionals ?? {}).map((name) => `<${name}>`);
  const required = Object.entries(command.flags)
    .filter(([, spec]) => spec.required)
    .map(([name, spec]) => `--${name} <${spec.value ?? 'string'}>`);
  const optional = Object.values(command.flags).some((spec) => !spec.required) ? ['[flags]'] : [];
  return ['svc', command.name, ...positionals, ...required, ...optional].join(' ');
}

/** Help for people, on stderr. */
export async function helpText(target: Command | Group): Promise<string> {
  const lines: string[] = [];
  if (target.kind === 'group') {
    const prefix = target.name ? `svc ${target.name}` : 'svc';
    lines.push(`${prefix} — ${target.summary}`, '', `Usage: ${prefix} <command> [flags]`, '', 'Commands:');
    const commands = await entries(target);
    const width = Math.max(...commands.map(({ name }) => name.length)) + 2;
    for (const { name, summary } of commands) lines.push(`  ${name.padEnd(width)}${summary}`);
    lines.push('', `Run "${prefix} <command> --help" for a command's flags.`);
  } else {
    lines.push(`svc ${target.name} — ${target.summary}`, '', `Usage: ${usageLine(target)}`);
    const positionals = Object.entries(target.positionals ?? {});
    if (positionals.length) {
      lines.push('', 'Arguments:');
      for (const [name, { description }] of positionals) lines.push(`  <${name}>  ${description}`);
    }
    const rows = Object.entries(target.flags).map(([name, spec]) => {
      const left = spec.type === 'boolean' ? `--${name}` : `--${name} <${spec.value ?? 'string'}>`;
      const extras = [
        spec.required ? 'required' : null,
        spec.multiple ? 'repeatable' : null,
        spec.default !== undefined ? `default: ${spec.default}` : null,
        spec.defaultNote !== undefined ? `default: ${spec.defaultNote}` : null,
      ].filter((x) => x !== null);
      return [left, extras.length ? `${spec.description} (${extras.join('; ')})` : spec.description];
    });
    rows.push(['-h, --help', 'Show this help.']);
    const width = Math.max(...rows.map(([left]) => (left as string).length)) + 2;
    lines.push('', 'Flags:');
    for (const [left, right] of rows) lines.push(`  ${(left as string).padEnd(width)}${right}`);
    if (target.notes?.length) lines.push('', ...target.notes);
  }
  lines.push(
    '',
    'Output: JSON on stdout; problems as one JSON line on stderr.',
    `Exit codes: ${
      (target.kind === 'command' && target.exitCodes?.summary) ||
      '0 ok, 1 failure, 2 usage, 3 not ready in time, 4 conflict (409), 5 authentication (401), 8 forbidden (403).'
    }`,
    'Environment: SVC_API_URL (default http://127.0.0.1:8081), SVC_API_TOKEN_FILE, SVC_API_TOKEN.',
  );
  return `${lines.join('\n')}\n`;
}

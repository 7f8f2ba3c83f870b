/**
 * Local validation: the server's rules, applied to flags before any request, so a mistake costs no
 * round trip and the message names the flag. The rules themselves come from `@svc/core` (name
 * schemas, image syntax, durations, the override limit), never restated.
 */
import { idempotencyKey } from '@svc/contract/headers';
import { pageParams } from '@svc/contract/query';
import {
  CompositionName,
  Compositions,
  formatDuration,
  Id,
  type ImageParts,
  parseDuration,
  parseFields,
  ResourceName,
  readImage,
} from '@svc/core';
import * as v from 'valibot';
import { CliError, ExitCode, invalidArgument, LocalCode, localProblem, usageError } from './errors.ts';

type Override = { image: string } | { build_id: string };

function checkSchema(schema: v.GenericSchema<unknown, string>, value: string, path: string): string {
  const result = v.safeParse(schema, value);
  if (!result.success) throw invalidArgument(path, result.issues[0]?.message ?? 'invalid value');
  return result.output;
}

/** A flag checked with the schema of the server field it becomes, the message naming the flag. */
export const checkWith = (schema: v.GenericSchema<unknown, string>, value: string, flag: string) =>
  checkSchema(schema, value, flag);
/**
 * A `--file` body checked against the schema the server parses it with; problems name
 * `--file/<pointer>`. The body goes out as the file wrote it.
 */
export function checkFileBody<S extends v.GenericSchema>(
  schema: S,
  body: unknown,
): asserts body is v.InferInput<S> {
  const result = parseFields(schema, body);
  if (result.success) return;
  const errors = result.errors.map((e) => ({ ...e, path: `--file${e.path}` }));
  throw new CliError(
    localProblem(
      LocalCode.InvalidArgument,
      `--file: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      errors,
    ),
    ExitCode.Usage,
  );
}

export const checkName = (value: string, flag: string) => checkSchema(ResourceName, value, flag);
export const checkCompositionName = (value: string) => checkSchema(CompositionName, value, '--name');
/** A composition id as a path segment: a DNS label of at most 40 characters. */
export const checkId = (value: string, path = '<id>') => checkSchema(Id, value, path);

/** The image read once: its parts, for what the command does next. */
function checkImage(reference: string, flag: string): ImageParts {
  const { image, problem } = readImage(reference);
  if (image === null) throw invalidArgument(flag, problem);
  return image;
}

/** A duration such as `90s`, `30m` or `1h30m`, in whole seconds within bounds. */
export function checkDuration(text: string, flag: string, bounds: { min: number; max: number }): number {
  const seconds = parseDuration(text);
  if (seconds === null) {
    throw invalidArgument(flag, `"${text}" is not a duration such as 90s, 30m or 1h30m`);
  }
  if (seconds < bounds.min || seconds > bounds.max) {
    throw invalidArgument(
      flag,
      `must be from ${formatDuration(bounds.min)} to ${formatDuration(bounds.max)}; got ${text}`,
    );
  }
  return seconds;
}

export const checkTtl = (text: string) =>
  checkDuration(text, '--ttl', { min: Compositions.minTtlSeconds, max: Compositions.maxTtlSeconds });

export function checkInteger(text: string, flag: string, bounds: { min: number; max: number }): number {
  if (!/^\d{1,10}$/.test(text)) throw invalidArgument(flag, `"${text}" is not a whole number`);
  const value = Number(text);
  if (value < bounds.min || value > bounds.max) {
    throw invalidArgument(flag, `must be from ${bounds.min} to ${bounds.max}; got ${value}`);
  }
  return value;
}

/** A paging flag read by the query parameter's own schema: the rule and its message are the server's. */
function checkPage<S extends v.GenericSchema<string | undefined, unknown>>(
  schema: S,
  text: string | undefined,
  flag: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, text);
  if (!result.success) throw invalidArgument(flag, result.issues[0]?.message ?? 'invalid value');
  return result.output;
}

export const checkLimit = (text: string | undefined) => checkPage(pageParams.limit, text, '--limit');
export const checkCursor = (text: string | undefined) => checkPage(pageParams.after, text, '--after');

/** The key as the contract's Idempotency-Key header takes it. */
export const checkIdempotencyKey = (key: string) =>
  checkWith(idempotencyKey.schema, key, '--idempotency-key');

/** `component=value` as `--override`, `--build` and `--expected-preview-revision` take it. */
function splitPair(text: string, flag: string, what: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) {
    throw invalidArgument(flag, `"${text}" must be component=${what}`);
  }
  const component = text.slice(0, at);
  return [checkName(component, flag), text.slice(at + 1)];
}

export interface SelectionFlags {
  image?: string | undefined;
  component?: string | undefined;
  override: string[];
  build: string[];
  'inherit-all': boolean;
}

/** The component `--image` overrides in the local demo's project when no component is named like the image. */
export const demoComponent = { project: 'demo', component: 'service-b' } as const;

type Selected = [component: string, override: Override, flag: string];

/** The selection flags, checked: `--image` read, and the `--override` and `--build` selections. */
export interface Selection {
  /** `--image`, read; null without it. */
  image: { reference: string; parts: ImageParts } | null;
  selected: Selected[];
}

/**
 * The selection flags' own rules, checked once, before any request: `--inherit-all` stands alone,
 * some selection is given (so an empty one is always deliberate), `--component` goes with
 * `--image`, images and build ids are well formed, at most three components in all, each chosen
 * once.
 */
export function checkSelection(flags: SelectionFlags): Selection {
  const given = (['image', 'component', 'override', 'build'] as const).filter((name) => {
    const value = flags[name];
    return Array.isArray(value) ? value.length > 0 : value !== undefined;
  });
  if (flags['inherit-all']) {
    if (given.length) {
      const others = given.map((name) => `--${name}`).join(', ');
      throw usageError(`--inherit-all selects no overrides, so it cannot be combined with ${others}`, [
        { path: '--inherit-all', message: `cannot be combined with ${others}` },
      ]);
    }
    return { image: null, selected: [] };
  }
  if (!given.length) {
    throw usageError(
      'choose the overrides: --image (with --component, or for the component named like the image), --override component=image or --build component=build_id; or --inherit-all for none',
      [{ path: '--inherit-all', message: 'or a selection flag is required' }],
    );
  }
  if (flags.component !== undefined && flags.image === undefined) {
    throw invalidArgument('--component', 'names the component for --image; add --image');
  }
  const image =
    flags.image === undefined ? null : { reference: flags.image, parts: checkImage(flags.image, '--image') };
  if (flags.component !== undefined) checkName(flags.component, '--component');
  const selected: Selected[] = [
    ...flags.override.map((pair): Selected => {
      const [component, reference] = splitPair(pair, '--override', 'image');
      checkImage(reference, '--override');
      return [component, { image: reference }, '--override'];
    }),
    ...flags.build.map((pair): Selected => {
      const [component, buildId] = splitPair(pair, '--build', 'build_id');
      if (!/^[\x21-\x7e]{1,200}$/.test(buildId)) {
        throw invalidArgument('--build', `"${buildId}" is not a build id (see svc source list)`);
      }
      return [component, { build_id: buildId }, '--build'];
    }),
  ];
  const count = selected.length + (flags.image === undefined ? 0 : 1);
  if (count > Compositions.maxOverrides) {
    throw usageError(
      `at most ${Compositions.maxOverrides} components can be overridden across --image, --override and --build; got ${count}`,
      [{ path: '--override', message: `more than ${Compositions.maxOverrides} components` }],
    );
  }
  const known: Selected[] =
    flags.image !== undefined && flags.component !== undefined
      ? [[flags.component, { image: flags.image }, '--image'], ...selected]
      : selected;
  overridesOf(known);
  return { image, selected };
}

/** One override per component; a component chosen twice is refused, naming both flags. */
function overridesOf(selected: readonly Selected[]): Record<string, Override> {
  const overrides: Record<string, Override> = {};
  const chosenBy: Record<string, string> = {};
  for (const [component, override, flag] of selected) {
    const earlier = chosenBy[component];
    if (earlier) {
      throw invalidArgument(
        flag,
        `component "${component}" is already selected by ${earlier}; choose each once`,
      );
    }
    chosenBy[component] = flag;
    overrides[component] = override;
  }
  return overrides;
}

/**
 * The complete override selection, from the checked flags: `--image` for `imageComponent`
 * (`--component`, or the one svc chose for the image), `--override`, `--build`, or none with
 * `--inherit-all`.
 */
export function overridesFrom(selection: Selection, imageComponent: string | null): Record<string, Override> {
  if (selection.image === null) return overridesOf(selection.selected);
  const component = checkName(imageComponent ?? '', '--component');
  return overridesOf([[component, { image: selection.image.reference }, '--image'], ...selection.selected]);
}

/** `--expected-preview-revision component=revision`, repeatable, each component once. */
export function previewRevisionsFrom(pairs: readonly string[]): Record<string, number> {
  const flag = '--expected-preview-revision';
  const revisions: Record<string, number> = {};
  for (const pair of pairs) {
    const [component, text] = splitPair(pair, flag, 'revision');
    if (component in revisions) throw invalidArgument(flag, `component "${component}" is given twice`);
    revisions[component] = checkInteger(text, flag, { min: 1, max: 2 ** 31 - 1 });
  }
  return revisions;
}

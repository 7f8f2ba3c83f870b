import * as v from 'valibot';

/**
 * A fully qualified image reference: registry host (with a `.`, a `:port`, or `localhost`), a
 * repository path, then `:tag` and/or `@sha256:<64 hex>`.
 */
const host = String.raw`(?:localhost(?::\d{1,5})?|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?:\d{1,5})`;
const component = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const tag = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}';
const imagePattern = new RegExp(`^(${host})((?:/${component})+)(?::(${tag}))?(?:@(sha256:[a-f0-9]{64}))?$`);

export interface ImageParts {
  registry: string;
  repository: string;
  tag: string | null;
  digest: string | null;
}

export function parseImage(reference: string): ImageParts | null {
  if (reference.length > 512) return null;
  const match = imagePattern.exec(reference);
  if (!match) return null;
  const [, registry, path, tagPart, digest] = match;
  if (!registry || !path || (!tagPart && !digest)) return null;
  return { registry, repository: path.slice(1), tag: tagPart ?? null, digest: digest ?? null };
}

/**
 * The component an image is for when nobody said: the one of `components` named exactly like the
 * image's last path segment (`registry.example.com/demo/service-c:2.0` → `service-c`); null when
 * none is.
 */
export function componentNamedLike(image: ImageParts, components: readonly string[]): string | null {
  const name = image.repository.split('/').at(-1);
  return name !== undefined && components.includes(name) ? name : null;
}

/** An image reference read once: its parts, or why it is not one (a message naming the reference). */
export type ImageReading = { image: ImageParts; problem: null } | { image: null; problem: string };

export function readImage(reference: string): ImageReading {
  const image = parseImage(reference);
  if (image) return { image, problem: null };
  const looksShort = !reference.includes('/') || !/[.:]|^localhost/.test(reference.split('/')[0] ?? '');
  const problem = looksShort
    ? `image "${reference}" is not fully qualified: name the registry host, e.g. registry.example.com/team/app:1.2.3`
    : `image "${reference}" must be registry/repository with :tag and/or @sha256:<64 hex digest>`;
  return { image: null, problem };
}

/** A schema field holding an image reference, read once: a refusal says why. */
export const ImageReference = v.pipe(
  v.string('image must be a string'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { problem } = readImage(dataset.value);
    if (problem !== null) addIssue({ message: problem });
  }),
);

// How a virtual container behaves, decided by its image tag (see the package README).

export const ImageBehaviour = {
  normal: 'normal',
  missing: 'missing',
  crash: 'crash',
  slow: 'slow',
} as const;
export type ImageBehaviour = (typeof ImageBehaviour)[keyof typeof ImageBehaviour];

function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(colon + 1) : undefined;
}

export function imageBehaviour(image: string): ImageBehaviour {
  const tag = imageTag(image) ?? '';
  if (tag.endsWith('-missing')) return ImageBehaviour.missing;
  if (tag.endsWith('-crash')) return ImageBehaviour.crash;
  if (tag.endsWith('-slow')) return ImageBehaviour.slow;
  return ImageBehaviour.normal;
}

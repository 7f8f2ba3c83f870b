/**
 * The routing check's verdict: the preview URL must answer with the expected status, and every
 * overridden component must have answered with its override image. What cannot be told from the
 * answer is `unknown`, never `passed`.
 */
import { hopsOf } from './hop-report.ts';
import { type CheckRecord, CheckStatus, Coverage } from './model.ts';

/**
 * The URL the routing check requests: the catalog's verification `path` on the preview URL. A path
 * is never a URL of its own: the answer is null unless the result stays on the preview URL's
 * origin (the catalog refuses such paths; this also holds for anything stored before it did).
 */
export function routingTarget(publicUrl: string, path: string): string | null {
  if (!path.startsWith('/') || /[\\\s]/.test(path)) return null;
  const base = new URL(publicUrl);
  let target: URL;
  try {
    target = new URL(`${base.origin}${base.pathname.replace(/\/$/, '')}${path}`);
  } catch {
    return null;
  }
  return target.origin === base.origin ? target.toString() : null;
}

/** What a GET of the preview URL came back with; `status` null when nothing answered. */
export interface ProbeResult {
  status: number | null;
  body: unknown;
  error: string | null;
}

export type RoutingVerdict = Pick<CheckRecord, 'status' | 'message' | 'http_status' | 'coverage'>;

/** Per overridden component: whether the answer shows it served by `images[component]`. */
function routingCoverage(body: unknown, images: Readonly<Record<string, string>>): Record<string, Coverage> {
  const seen = hopsOf(body);
  return Object.fromEntries(
    Object.entries(images).map(([component, image]) => {
      if (seen === null) return [component, Coverage.Unknown];
      const served = seen.filter((h) => h.component === component).map((h) => h.image);
      if (served.length === 0) return [component, Coverage.NotReached];
      return [component, served.every((i) => i === image) ? Coverage.Verified : Coverage.Mismatch];
    }),
  );
}

const componentsWith = (coverage: Record<string, Coverage>, wanted: (c: Coverage) => boolean) =>
  Object.entries(coverage).filter(([, c]) => wanted(c));

/** The verdict when the verification path does not stay on the preview URL: nothing was requested. */
export function offPreviewVerdict(path: string, images: Readonly<Record<string, string>>): RoutingVerdict {
  return {
    status: CheckStatus.Failed,
    message: `the verification path ${JSON.stringify(path.slice(0, 200))} does not stay on the preview URL; nothing was requested`,
    http_status: null,
    coverage: Object.fromEntries(Object.keys(images).map((c) => [c, Coverage.Unknown])),
  };
}

/** The verdict on one probe of the preview URL; `images` are the override images by component. */
export function routingVerdict(
  probe: ProbeResult,
  images: Readonly<Record<string, string>>,
  expectStatus: number,
): RoutingVerdict {
  if (probe.status === null) {
    return {
      status: CheckStatus.Failed,
      message: `the preview URL did not answer: ${probe.error}`,
      http_status: null,
      coverage: Object.fromEntries(Object.keys(images).map((c) => [c, Coverage.Unknown])),
    };
  }
  const coverage = routingCoverage(probe.body, images);
  const answered = { http_status: probe.status, coverage };
  if (probe.status !== expectStatus) {
    const message = `the preview URL answered ${probe.status}, expected ${expectStatus}`;
    return { status: CheckStatus.Failed, message, ...answered };
  }
  const wrong = componentsWith(coverage, (c) => c === Coverage.Mismatch);
  if (wrong.length) {
    const message = `not served by the override image: ${wrong.map(([c]) => c).join(', ')}`;
    return { status: CheckStatus.Failed, message, ...answered };
  }
  const open = componentsWith(coverage, (c) => c !== Coverage.Verified);
  if (open.length === 0) {
    const message = Object.keys(images).length
      ? 'every overridden component answered with its override image'
      : 'the preview URL answered';
    return { status: CheckStatus.Passed, message, ...answered };
  }
  const unproven = open.map(([c, v]) => `${c} (${v})`).join(', ');
  const message = `the preview URL answered, but these overrides are not proven: ${unproven}`;
  return { status: CheckStatus.Unknown, message, ...answered };
}

// Two error families: GitHubError answers API clients with GitHub's own body shape
// ({ message, documentation_url, status }); ControlError answers the control routes with the house
// problem+json shape, since those routes are ours and not GitHub's.

export const DOCS = 'https://docs.github.com/rest';

export interface ValidationDetail {
  resource: string;
  field: string;
  code: string;
  /** A deployment refused for its commit's statuses names each required context and its state. */
  contexts?: { context: string; state: string }[];
}

export class GitHubError extends Error {
  override readonly name = 'GitHubError';
  readonly status: number;
  readonly documentationUrl: string;
  readonly errors: ValidationDetail[] | undefined;
  /** Headers the answer carries besides the usual ones (rate-limit state, retry-after). */
  readonly headers: Record<string, string> = {};

  constructor(status: number, message: string, documentationUrl = DOCS, errors?: ValidationDetail[]) {
    super(message);
    this.status = status;
    this.documentationUrl = documentationUrl;
    this.errors = errors;
  }

  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      documentation_url: this.documentationUrl,
      status: String(this.status),
    };
  }
}

export const notFound = (): GitHubError => new GitHubError(404, 'Not Found');

/** What GitHub answers when a request body breaks the endpoint's JSON schema. */
export const invalidRequest = (detail: string): GitHubError =>
  new GitHubError(422, `Invalid request.\n\n${detail}`);

export class ControlError extends Error {
  override readonly name = 'ControlError';
  readonly status: number;
  readonly code: string;
  readonly errors: { path: string; message: string }[];

  constructor(
    status: number,
    code: string,
    message: string,
    errors: { path: string; message: string }[] = [],
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors;
  }

  body(): Record<string, unknown> {
    return {
      type: 'about:blank',
      title: this.code.replaceAll('_', ' '),
      status: this.status,
      detail: this.message,
      code: this.code,
      errors: this.errors,
    };
  }
}

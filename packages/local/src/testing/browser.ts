/**
 * What a browser does during a sign-in, over plain HTTP: follows redirects one at a time, keeps
 * cookies (per host, as browsers do, whatever the port), sends on form posts the `Origin` the page
 * holding the form allows (`null` under `Referrer-Policy: no-referrer`, as Chromium does), reads the
 * forms on the pages. Used for the protocol's many cases; the flows a person walks are also driven
 * in Chromium (tests/sign-in-browser.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, fetch as fetchFrom } from 'undici';

export interface Step {
  status: number;
  location: string | null;
  url: string;
  text: string;
  headers: Headers;
}

export class Browser {
  readonly cookies = new Map<string, string>();
  /** The `Origin` the last page loaded gives the forms on it. */
  private formOrigin: string | null = null;
  /** Connects from this loopback address (127.0.0.2…): another client address for the server. */
  private readonly dispatcher: Agent | undefined;

  constructor(options: { localAddress?: string } = {}) {
    this.dispatcher = options.localAddress ? new Agent({ localAddress: options.localAddress }) : undefined;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    method: string,
    url: string,
    options: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Step> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    let body: string | undefined;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin ??= this.formOrigin ?? new URL(url).origin;
    }
    const response = await fetchFrom(url, {
      method,
      headers,
      redirect: 'manual',
      ...(body ? { body } : {}),
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    });
    this.remember(response.headers);
    if (response.status === 200 && response.headers.get('content-type')?.startsWith('text/html')) {
      const policy = response.headers.get('referrer-policy')?.split(',').pop()?.trim();
      this.formOrigin = policy === 'no-referrer' ? 'null' : new URL(url).origin;
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location ? new URL(location, url).href : null,
      url,
      text: await response.text(),
      headers: response.headers,
    };
  }

  get(url: string, headers?: Record<string, string>): Promise<Step> {
    return this.request('GET', url, headers ? { headers } : {});
  }

  post(url: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Step> {
    return this.request('POST', url, { form, ...(headers ? { headers } : {}) });
  }

  /** Follows redirects until a page answers or `stop` says this address is where to stop. */
  async follow(step: Step, stop: (url: string) => boolean = () => false): Promise<Step> {
    let current = step;
    for (let hops = 0; current.location && hops < 10; hops++) {
      if (stop(current.location)) return current;
      current = await this.get(current.location);
    }
    return current;
  }
}

/** The fields of the first form on a page, and where it posts. */
export function formOf(page: Step): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.text);
  if (!form) throw new Error(`no form on ${page.url} (${page.status}): ${page.text.slice(0, 200)}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input([^>]*)>/gi)) {
    const name = /name="([^"]*)"/.exec(input[1] ?? '')?.[1];
    const value = /value="([^"]*)"/.exec(input[1] ?? '')?.[1] ?? '';
    if (name)
      fields[name] = value
        .replace(/&amp;/g, '&')
        .replace(/&#39;|&#x27;/g, "'")
        .replace(/&quot;/g, '"');
  }
  return { action: new URL((form[1] ?? '').replace(/&amp;/g, '&'), page.url).href, fields };
}

/** A PKCE pair and state, as the CLI makes them. */
export function pkce(): { verifier: string; challenge: string; state: string } {
  const verifier = randomBytes(32).toString('base64url');
  return {
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
    state: randomBytes(16).toString('base64url'),
  };
}

export function authorizeUrl(
  apiUrl: string,
  redirectUri: string,
  request: { challenge: string; state: string },
): string {
  const url = new URL('/auth/authorize', apiUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'svc-cli',
    redirect_uri: redirectUri,
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
    state: request.state,
  }).toString();
  return url.href;
}

/** POST /auth/token with a form, as OAuth requires. */
export async function tokenRequest(apiUrl: string, form: Record<string, string>) {
  const response = await fetch(`${apiUrl}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'svc-cli', ...form }).toString(),
  });
  // biome-ignore lint/suspicious/noExplicitAny: token responses are asserted field by field
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/**
 * The CLI consent page's answer ("Allow" unless `decision` says otherwise): the step that sends
 * the browser back to the CLI's loopback listener.
 */
export async function answerConsent(browser: Browser, page: Step, decision: 'allow' | 'deny' = 'allow') {
  if (!page.text.includes('Sign in the svc CLI on this computer?')) {
    throw new Error(`not the consent page: ${page.url} (${page.status}): ${page.text.slice(0, 300)}`);
  }
  const form = formOf(page);
  return browser.post(form.action, { ...form.fields, decision });
}

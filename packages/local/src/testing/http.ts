/** A small JSON client for tests: every answer is parsed, status and headers kept. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on arbitrary JSON shapes
  body: any;
}

export interface HttpClient {
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpAnswer>;
  get(path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  patch(path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  put(path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  delete(path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
}

export function httpClient(baseUrl: string, defaultHeaders: Record<string, string> = {}): HttpClient {
  async function request(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...defaultHeaders, ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    if (text && /json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: text ? parsed : null };
  }
  return {
    request,
    get: (path, headers) => request('GET', path, headers ? { headers } : {}),
    post: (path, body, headers) => request('POST', path, { body, ...(headers ? { headers } : {}) }),
    patch: (path, body, headers) => request('PATCH', path, { body, ...(headers ? { headers } : {}) }),
    put: (path, body, headers) => request('PUT', path, { body, ...(headers ? { headers } : {}) }),
    delete: (path, headers) => request('DELETE', path, headers ? { headers } : {}),
  };
}

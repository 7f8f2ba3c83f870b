// What the app asked of the forge, tallied by method, route and answer. GitHub's hourly budget
// counts every answer but a 304, its content-creation limit the writes: `bench:forge` reads a
// preview's share of each from here.

export class RequestLog {
  private readonly counts = new Map<string, number>();

  record(method: string, path: string, status: number): void {
    const key = `${method} ${routeOf(path)} ${status}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Counts so far by `METHOD route status`, numbers in the path written `{n}`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

function routeOf(path: string): string {
  return path.replace(/\/\d+(?=\/|$)/g, '/{n}');
}

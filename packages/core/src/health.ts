/** A backing service the API depends on, probed by `GET /healthz`. */
export interface DependencyCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check(signal: AbortSignal): Promise<void>;
}

export const DependencyStatus = { Ok: 'ok', Error: 'error', Unconfigured: 'unconfigured' } as const;
export type DependencyStatus = (typeof DependencyStatus)[keyof typeof DependencyStatus];

/**
 * A deployed function's secrets come from SST, not from its environment: SST encrypts the secrets
 * linked to a function into its package and puts only the key in the environment (`SST_KEY`), so
 * the environment stays far from Lambda's 4 KB and no secret shows in the function's configuration.
 * `SVC_SECRETS` (set by infra/settings.ts) says which variable each linked secret fills; they are
 * copied in before anything reads the environment.
 */
import { SettingsError } from '@svc/core';
import { Resource } from 'sst/resource';
import * as v from 'valibot';

const SecretVariables = v.pipe(
  v.string(),
  v.parseJson(),
  v.record(v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]*$/)), v.string()),
);

/** What a function is linked to, by name: SST's `Resource`, which reads them once per process. */
export type LinkedResources = Readonly<Record<string, { value?: unknown } | undefined>>;

/** Fills `env` with the linked secrets `env.SVC_SECRETS` names; a variable already set is kept. */
export function loadLinkedSecrets(
  env: Record<string, string | undefined>,
  linked: LinkedResources = Resource as unknown as LinkedResources,
): void {
  if (!env.SVC_SECRETS) return;
  const parsed = v.safeParse(SecretVariables, env.SVC_SECRETS);
  if (!parsed.success) {
    throw new SettingsError([
      { variable: 'SVC_SECRETS', message: 'must be JSON mapping variable names to secret names' },
    ]);
  }
  for (const [variable, secret] of Object.entries(parsed.output)) {
    if (env[variable] !== undefined) continue;
    const value = secret in linked ? linked[secret]?.value : undefined;
    if (typeof value !== 'string') {
      throw new SettingsError([
        { variable, message: `is to come from secret ${secret}, which is not linked` },
      ]);
    }
    // An optional secret left unset reads as its empty placeholder: the feature stays off.
    if (value !== '') env[variable] = value;
  }
}

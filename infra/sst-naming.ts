/**
 * How SST 4.17.1 names what it creates, ported from its platform source at commit
 * a0bd20f762883e72a35caccb4896c42ce5b3f707 (the commit the `sst-linux-x64` 4.17.1 binary names in
 * its build flags; the platform's TypeScript is embedded in that binary, and `sst install` writes it
 * to `.sst/platform`, which cannot happen offline):
 *
 * - `platform/src/components/naming.ts`: `prefixName` and `physicalName`;
 * - `platform/src/components/component.ts`: the naming rules, each resource type's name field and
 *   maximum length (only the types this stack creates are here).
 *
 * SST's own functions read the `$app` global and exist only inside that binary, so they cannot be
 * imported; infra/sst-naming.test.ts holds this port to them.
 */

export interface SstApp {
  name: string;
  stage: string;
}

/** Maximum physical name length per Pulumi type (component.ts `namingRules`). */
export const physicalNameLimits = {
  'aws:apigatewayv2/api:Api': 128,
  'aws:dynamodb/table:Table': 255,
  'aws:iam/role:Role': 64,
  'aws:lambda/function:Function': 64,
  'aws:scheduler/schedule:Schedule': 64,
  'aws:sns/topic:Topic': 256,
  'aws:sqs/queue:Queue': 80,
} as const;

/** `physicalName`'s random part: `hashStringToPrettyString(randomBytes(8), 8)`. */
const randomSuffixLength = 8;

/**
 * `<app>-<stage>-<name>` within `max` characters, `name` stripped to letters and digits: the app is
 * cut first, then the stage (`<stage>-<name>`), then only the name is kept.
 */
export function prefixName(app: SstApp, max: number, logicalName: string): string {
  const name = logicalName.replace(/[^a-zA-Z0-9]/g, '');
  if (name.length + 1 >= max) return name.substring(0, max);
  if (name.length + app.stage.length + 2 >= max) {
    return `${app.stage.substring(0, max - name.length - 1)}-${name}`;
  }
  return `${app.name.substring(0, max - app.stage.length - name.length - 2)}-${app.stage}-${name}`;
}

/**
 * What a physical name starts with: everything before `-<8 random characters><suffix>`.
 * `physicalName(max, name, suffix)` is `${prefixName(max - 9 - suffix.length, name)}-${random}${suffix}`.
 */
export function physicalNamePrefix(app: SstApp, max: number, logicalName: string, suffix = ''): string {
  return prefixName(app, max - randomSuffixLength - 1 - suffix.length, logicalName);
}

/** A physical name as SST makes one, with `random` (8 characters) in place of its random part. */
export function physicalName(
  app: SstApp,
  max: number,
  logicalName: string,
  random: string,
  suffix = '',
): string {
  if (random.length !== randomSuffixLength)
    throw new Error(`random part must be ${randomSuffixLength} characters`);
  return `${physicalNamePrefix(app, max, logicalName, suffix)}-${random}${suffix}`;
}

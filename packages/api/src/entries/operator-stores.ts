/**
 * The stores of the operator's scripts (`npm run token:issue`, `npm run user:create`): the
 * installation's table, from the same environment as its functions (docs/runbooks.md). Without that
 * environment a script stops with one line naming what is missing, and what the local stack offers
 * instead, rather than a stack trace.
 */
import { SettingsError } from '@svc/core';
import { ScriptSettings, settingsFromEnvironment, wireStorage } from '@svc/wiring';

export function operatorStores(script: string): ReturnType<typeof wireStorage>['stores'] {
  try {
    return wireStorage(settingsFromEnvironment(ScriptSettings, process.env).aws, {}).stores;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    const missing = error.problems.map((problem) => `${problem.variable} ${problem.message}`).join('; ');
    process.stderr.write(
      `npm run ${script} writes into an installation's table and needs its functions' environment (docs/runbooks.md): ${missing}.\n` +
        'On the local stack, npm start -- --auth token prints an Admin token, and npm start -- --auth password signs alice in as an Admin.\n',
    );
    process.exit(2);
  }
}

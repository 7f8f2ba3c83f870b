import type { StageSettings } from '../stacks/schema.ts';
import type { Synthesis } from './sst-resources.ts';
import { installSstStandIns } from './sst-stand-ins.ts';
import { stack } from './stack.ts';

/**
 * The AWS resources a stage's deploy creates, named as SST 4.17.1 names them: the infra files run
 * with the recording stand-ins (SST itself cannot run offline). What the deploy role is derived
 * from (infra/ci-role.ts) and checked against (infra/deploy-role.test.ts).
 */
export function synthesize(stage: string, settings: StageSettings, account?: string): Synthesis {
  const standIns = installSstStandIns(stage, account);
  standIns.state.region = settings.region;
  try {
    stack(settings);
    return standIns.synthesis();
  } finally {
    standIns.restore();
  }
}

/** The handler of each step; docs/orchestration.md describes what each does. */
import { Operations } from '@svc/core';
import { apply } from './apply.ts';
import { awaitRollout } from './await-rollout.ts';
import { awaitDeletion, releaseMessaging, remove } from './destroy.ts';
import { finish } from './finish.ts';
import type { Step } from './step.ts';
import { verify } from './verify.ts';

export const steps: Record<Operations.StepName, Step> = {
  [Operations.StepName.Apply]: apply,
  [Operations.StepName.AwaitRollout]: awaitRollout,
  [Operations.StepName.Verify]: verify,
  [Operations.StepName.Finish]: finish,
  [Operations.StepName.Delete]: remove,
  [Operations.StepName.AwaitDeletion]: awaitDeletion,
  [Operations.StepName.ReleaseMessaging]: releaseMessaging,
};

/** The handler of each step; docs/orchestration.md describes what each does. */
import { StepName } from '@svc/core';
import { apply } from './apply.ts';
import { awaitRollout } from './await-rollout.ts';
import { awaitDeletion, remove } from './destroy.ts';
import { finish } from './finish.ts';
import type { Step } from './step.ts';
import { verify } from './verify.ts';

export const steps: Record<StepName, Step> = {
  [StepName.Apply]: apply,
  [StepName.AwaitRollout]: awaitRollout,
  [StepName.Verify]: verify,
  [StepName.Finish]: finish,
  [StepName.Delete]: remove,
  [StepName.AwaitDeletion]: awaitDeletion,
};

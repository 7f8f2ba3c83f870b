/** The handler of each step; docs/orchestration.md describes what each does. */
import { Compositions } from '@svc/core';
import { apply } from './apply.ts';
import { awaitRollout } from './await-rollout.ts';
import { awaitDeletion, releaseMessaging, remove } from './destroy.ts';
import { finish } from './finish.ts';
import type { Step } from './step.ts';
import { verify } from './verify.ts';

export const steps: Record<Compositions.StepName, Step> = {
  [Compositions.StepName.Apply]: apply,
  [Compositions.StepName.AwaitRollout]: awaitRollout,
  [Compositions.StepName.Verify]: verify,
  [Compositions.StepName.Finish]: finish,
  [Compositions.StepName.Delete]: remove,
  [Compositions.StepName.AwaitDeletion]: awaitDeletion,
  [Compositions.StepName.ReleaseMessaging]: releaseMessaging,
};

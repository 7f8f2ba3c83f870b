// The octokit this adapter uses: core with the paginate, throttling and retry plugins, and the
// shape of the errors it throws for an HTTP answer.

import { Octokit as Core } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';

export const Octokit = Core.plugin(paginateRest, throttling, retry);
export type Octokit = InstanceType<typeof Octokit>;

export type Headers = Record<string, string | number | undefined>;

interface HttpError {
  status: number;
  message: string;
  response?: { headers: Headers };
}

export const isHttpError = (error: unknown): error is HttpError =>
  typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';

export const isStatus = (error: unknown, ...statuses: number[]): error is HttpError =>
  isHttpError(error) && statuses.includes(error.status);

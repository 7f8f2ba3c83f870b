// The preview comment on a pull request: one per pull request, edited in place.

import { call } from './calls.ts';
import type { GitHubContext, Installed } from './context.ts';
import { requireInstalled } from './installations.ts';
import { isStatus } from './octokit.ts';
import { split } from './params.ts';

type Comment = { id: number | null; marker: string; body: string };

function editComment(
  context: GitHubContext,
  { octokit, id }: Installed,
  repository: string,
  commentId: number,
  body: string,
) {
  return call(context, id, () =>
    octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...split(repository),
      comment_id: commentId,
      body,
    }),
  );
}

/** The comment carrying `marker`, if one is on the pull request. */
async function findMarked(
  context: GitHubContext,
  { octokit, id }: Installed,
  repository: string,
  number: number,
  marker: string,
): Promise<number | null> {
  const existing = await call(context, id, () =>
    octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...split(repository),
      issue_number: number,
      per_page: 100,
    }),
  );
  const mine = existing.find((c) => c.body?.includes(marker));
  return mine ? Number(mine.id) : null;
}

/** Edits the comment by its id; else the one carrying its marker; else writes a new one. */
export async function upsertComment(
  context: GitHubContext,
  repository: string,
  number: number,
  comment: Comment,
): Promise<number> {
  const installation = await requireInstalled(context, repository);
  if (comment.id !== null) {
    try {
      await editComment(context, installation, repository, comment.id, comment.body);
      return comment.id;
    } catch (error) {
      // Deleted by someone: find it by its marker, or write a new one.
      if (!isStatus(error, 404)) throw error;
    }
  }
  const marked = await findMarked(context, installation, repository, number, comment.marker);
  if (marked !== null) {
    await editComment(context, installation, repository, marked, comment.body);
    return marked;
  }
  const { data } = await call(context, installation.id, () =>
    installation.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...split(repository),
      issue_number: number,
      body: comment.body,
    }),
  );
  return Number(data.id);
}

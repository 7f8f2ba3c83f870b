// Issue comments: listed per pull request, written, read and edited by the app.

import { Hono } from 'hono';
import { notFound } from '../errors.ts';
import { numberedPage } from '../paging.ts';
import { timestamp } from '../state.ts';
import type { ForgeStore } from '../store.ts';
import { type ApiDeps, type Ctx, type Env, type Level, pullFor, repositoryFor } from './context.ts';
import { integer, jsonBody, requiredString } from './input.ts';
import { paged } from './listing.ts';

function commentFor(store: ForgeStore, c: Ctx, level: Level) {
  const repository = repositoryFor(store, c, level, 'issues', 'pull_requests');
  const id = integer(c.req.param('comment_id'));
  const comment = store.state.comments.find((cm) => cm.id === id && cm.repositoryId === repository.id);
  if (!comment) throw notFound();
  return comment;
}

export function comments({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/repos/:owner/:repo/issues/:issue_number/comments', (c) => {
    const repository = repositoryFor(store, c, 'read', 'issues', 'pull_requests');
    const pull = pullFor(store, repository, c.req.param('issue_number'));
    const onPull = store.state.comments.filter(
      (comment) => comment.repositoryId === repository.id && comment.issueNumber === pull.number,
    );
    const page = numberedPage(onPull, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((comment) => render.comment(comment)),
    );
  });

  app.post('/repos/:owner/:repo/issues/:issue_number/comments', async (c) => {
    const repository = repositoryFor(store, c, 'write', 'issues', 'pull_requests');
    const pull = pullFor(store, repository, c.req.param('issue_number'));
    const body = requiredString(await jsonBody(c), 'body');
    const now = timestamp();
    const comment = {
      id: store.nextId(),
      repositoryId: repository.id,
      issueNumber: pull.number,
      body,
      author: render.botLogin(),
      createdAt: now,
      updatedAt: now,
    };
    store.state.comments.push(comment);
    store.changed();
    c.header(
      'Location',
      `${render.base}/repos/${repository.owner}/${repository.name}/issues/comments/${comment.id}`,
    );
    return c.json(render.comment(comment), 201);
  });

  app.get('/repos/:owner/:repo/issues/comments/:comment_id', (c) =>
    c.json(render.comment(commentFor(store, c, 'read'))),
  );

  app.patch('/repos/:owner/:repo/issues/comments/:comment_id', async (c) => {
    const comment = commentFor(store, c, 'write');
    comment.body = requiredString(await jsonBody(c), 'body');
    comment.updatedAt = timestamp();
    store.changed();
    return c.json(render.comment(comment));
  });

  return app;
}

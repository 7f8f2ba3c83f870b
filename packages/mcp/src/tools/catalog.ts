/** What can be composed: the catalog's projects, components and baselines, and published builds. */
import { Builds, maxPageSize, ResourceName } from '@svc/core';
import * as v from 'valibot';
import { Access, defineTool } from '../tool.ts';
import { pageInput } from './inputs.ts';

const names = (page: { items: { name: string }[] }) =>
  page.items.map((item) => item.name).join(', ') || 'none';

export const catalog = defineTool({
  name: 'catalog_read',
  title: 'Read the catalog',
  description:
    'Without project: the registered projects (each with its default_baseline, components and baselines). With project: its component profiles (workload, dependencies, revision) and baselines, all of them; limit and after page the project list only.',
  access: Access.Read,
  idempotent: true,
  input: v.strictObject({
    project: v.optional(v.pipe(ResourceName, v.description('A project to describe.'))),
    ...pageInput,
  }),
  async run({ project, ...page }, { client }) {
    if (project === undefined) {
      const projects = await client.call('listProjects', { query: page });
      return { summary: `Projects: ${names(projects)}.`, result: projects };
    }
    const everything = { path: { project }, query: { limit: maxPageSize } };
    const [components, baselines] = await Promise.all([
      client.call('listComponents', everything),
      client.call('listBaselines', everything),
    ]);
    return {
      summary: `${project}: components ${names(components)}; baselines ${names(baselines)}.`,
      result: { project, components, baselines },
    };
  },
});

export const resolveSource = defineTool({
  name: 'source_resolve',
  title: 'Resolve a source ref to a build',
  description:
    'The commit a branch, tag or commit SHA of a repository names, and the build CI published for it (its build_id goes into overrides as {"build_id": …}). Not found means CI has not published that commit yet.',
  access: Access.Read,
  idempotent: true,
  input: v.strictObject({
    project: ResourceName,
    repository: Builds.PublishBuildBody.entries.repository,
    component: ResourceName,
    ref: Builds.PublishBuildBody.entries.ref,
  }),
  async run({ project, ...query }, { client }) {
    const answer = await client.call('resolveSource', { path: { project }, query });
    return {
      summary: `${query.repository} ${query.ref} → ${answer.commit_sha.slice(0, 12)}, build ${answer.build.id} for ${query.component}.`,
      result: answer,
    };
  },
});

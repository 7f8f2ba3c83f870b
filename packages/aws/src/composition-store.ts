import type { Clock, Compositions, Page, PageRequest, Rollout } from '@svc/core';
import { releaseLease, renewLease, takeLease, takeOver } from './composition-leases.ts';
import { appendEvents, commit, create, replace } from './composition-writes.ts';
import { Composition, Event, Operation } from './entities/index.ts';
import { dueQuery, getItem, getLive, mergedQueryPage, queryPage, type Table } from './table.ts';

export function dynamoCompositionStore(table: Table, clock: Clock): Rollout.RolloutStore {
  return {
    get: (id) => getLive(table, Composition.key(id), clock.now(), Composition.fromItem),
    list: (filter, page) => list(table, filter, page),
    listOnCluster: (cluster, page) => listOnCluster(table, cluster, page),
    create: (write) => create(table, write),
    replace: (write) => replace(table, write),
    commit: (write) => commit(table, write),
    getOperation: (compositionId, operationId) =>
      getItem(table, Operation.key(compositionId, operationId), Operation.fromItem),
    takeOver: (operation, dueAt) => takeOver(table, operation, dueAt),
    takeLease: (operation, lease) => takeLease(table, operation, lease),
    releaseLease: (operation, lease) => releaseLease(table, operation, lease),
    renewLease: (operation, lease) => renewLease(table, operation, lease),
    appendEvents: (events) => appendEvents(table, events),
    listEvents: (compositionId, page) =>
      queryPage(table, { ...Event.of(compositionId), newestFirst: true }, page, Event.fromItem),
    dueOperations: (now, limit) => dueQuery(table, Operation.due.until(now), limit, Operation.fromItem),
    expired: (now, limit) => dueQuery(table, Composition.expiring.until(now), limit, Composition.fromItem),
  };
}

function list(
  table: Table,
  filter: Parameters<Compositions.CompositionStore['list']>[0],
  page: PageRequest,
): Promise<Page<Compositions.CompositionRecord>> {
  if (filter.project !== null) {
    return queryPage(
      table,
      Composition.ofProject.query({ project: filter.project }),
      page,
      Composition.fromItem,
    );
  }
  if (filter.projects === null)
    return queryPage(table, Composition.listed.query(), page, Composition.fromItem);
  // A caller who reads some projects reads their partitions, not everyone's list filtered:
  // a page costs the same among 100 compositions as among 100,000 (docs/performance.md, Scale).
  const projects = filter.projects.map((project) => ({ project }));
  return mergedQueryPage(table, Composition.ofProject.across(projects), page, Composition.fromItem);
}

/**
 * Every live composition, read on past those of other clusters: a drain reads the whole list once
 * across its pages, a few hundred items per DynamoDB page (docs/data-model.md).
 */
function listOnCluster(
  table: Table,
  cluster: { name: string; unnamedToo: boolean },
  page: PageRequest,
): Promise<Page<Compositions.CompositionRecord>> {
  const filter = {
    expression: cluster.unnamedToo
      ? '#cluster = :cluster OR attribute_not_exists(#cluster)'
      : '#cluster = :cluster',
    names: { '#cluster': 'cluster' },
    values: { ':cluster': cluster.name },
  };
  return queryPage(table, { ...Composition.listed.query(), filter }, page, Composition.fromItem);
}

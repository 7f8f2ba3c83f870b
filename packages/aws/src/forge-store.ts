import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Forge } from '@svc/core';
import {
  ForgeChange,
  ForgeDelivery,
  ForgeHealth,
  ForgeRateBudget,
  ForgeReconciliation,
  ForgeSuspension,
  Preview,
  PreviewPolicy,
} from './entities/index.ts';
import { listDeliveries, putDelivery, unprocessed } from './forge-deliveries.ts';
import {
  activePreviewsOf,
  deletePolicy,
  listPreviews,
  lockedPut,
  policiesOf,
  putPolicy,
  putPreview,
  repositoryOwner,
  waitingFor,
} from './forge-previews.ts';
import { conditionHeld, dueQuery, getItem, putItem, queryAll, queryPage, type Table } from './table.ts';

/** Policies, previews, deliveries and the forge's health, on the single table (docs/data-model.md). */
export function dynamoForgeStore(table: Table): Forge.ForgeStore {
  return {
    getPolicy: (project, repository) =>
      getItem(table, PreviewPolicy.key(project, repository), PreviewPolicy.fromItem),
    putPolicy: (policy, expected) => putPolicy(table, policy, expected),
    deletePolicy: (project, repository) => deletePolicy(table, project, repository),
    repositoryOwner: (repository) => repositoryOwner(table, repository),
    listPolicies: (page) => queryPage(table, PreviewPolicy.listed.query(), page, PreviewPolicy.fromItem),
    policiesOf: (repository) => policiesOf(table, repository),

    getPreview: (id) => getItem(table, Preview.key(id), Preview.fromItem),
    putPreview: (record, expected) => putPreview(table, record, expected),
    listPreviews: (filter, page) => listPreviews(table, filter, page),
    activePreviewsOf: (repository) => activePreviewsOf(table, repository),
    waitingFor: (repository, commitSha) => waitingFor(table, repository, commitSha),

    getChange: (id) => getItem(table, ForgeChange.key(id), ForgeChange.fromItem),
    putChange: (record, expected) => lockedPut(table, ForgeChange.toItem(record), expected),

    putDelivery: (delivery) => putDelivery(table, delivery),
    getDelivery: (id) => getItem(table, ForgeDelivery.key(id), ForgeDelivery.fromItem),
    updateDelivery: (delivery) => putItem(table, ForgeDelivery.toItem(delivery)),
    dueDeliveries: (now, limit) =>
      dueQuery(table, ForgeDelivery.unfinished.until(now), limit, ForgeDelivery.fromItem),
    listDeliveries: (filter, page) => listDeliveries(table, filter, page),
    unprocessed: (limit) => unprocessed(table, limit),

    webhookHealth: async () =>
      (await getItem(table, ForgeHealth.key, ForgeHealth.fromItem)) ?? ForgeHealth.none,
    noteReceived: (at) => noteReceived(table, at),
    noteFailure: (at) => noteFailure(table, at),
    putBudget: (budget) => putItem(table, ForgeRateBudget.toItem(budget)),
    budgets: async () => (await queryAll(table, ForgeRateBudget.all)).map(ForgeRateBudget.fromItem),
    putReconciliation: (run) => putItem(table, ForgeReconciliation.toItem(run)),
    lastReconciliation: () => getItem(table, ForgeReconciliation.key, ForgeReconciliation.fromItem),

    getSuspension: (account) => getItem(table, ForgeSuspension.key(account), ForgeSuspension.fromItem),
    suspensions: async () => (await queryAll(table, ForgeSuspension.all)).map(ForgeSuspension.fromItem),
    putSuspension: (suspension) => putItem(table, ForgeSuspension.toItem(suspension)),
    deleteSuspension: async (account) => {
      await table.documents.send(
        new DeleteCommand({ TableName: table.name, Key: ForgeSuspension.key(account) }),
      );
    },
  };
}

async function noteReceived(table: Table, at: string): Promise<void> {
  // Only ever forward: a late write of an older time leaves the newer one.
  await conditionHeld(() =>
    table.documents.send(
      new UpdateCommand({
        TableName: table.name,
        Key: ForgeHealth.key,
        UpdateExpression: 'SET last_received_at = :at, item_type = :type',
        ConditionExpression: 'attribute_not_exists(last_received_at) OR last_received_at < :at',
        ExpressionAttributeValues: { ':at': at, ':type': ForgeHealth.type },
      }),
    ),
  );
}

async function noteFailure(table: Table, at: string): Promise<void> {
  await table.documents.send(
    new UpdateCommand({
      TableName: table.name,
      Key: ForgeHealth.key,
      UpdateExpression: 'ADD processing_failures :one SET last_failure_at = :at, item_type = :type',
      ExpressionAttributeValues: { ':one': 1, ':at': at, ':type': ForgeHealth.type },
    }),
  );
}

/** Reading and writing objects by reference: get, list, server-side apply (real or dry run), delete. */
import { type KubernetesObject, PatchStrategy } from '@kubernetes/client-node';
import { Cluster } from '@svc/core';
import { statusOf, statusText } from '../failures.ts';
import { type ClusterContext, notFound, plain } from './context.ts';

export async function getObject<T extends Cluster.ClusterObject>(
  context: ClusterContext,
  ref: Cluster.ObjectRef,
): Promise<T | null> {
  try {
    return plain<T>(
      await context.call((c) =>
        c.objects.read({
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          metadata: { name: ref.name, namespace: ref.namespace },
        }),
      ),
    );
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

export async function listObjects<T extends Cluster.ClusterObject>(
  context: ClusterContext,
  namespace: string,
  apiVersion: string,
  kind: string,
  labelSelector: string,
): Promise<{ items: T[]; resourceVersion: string | undefined }> {
  const result = await context.call((c) =>
    c.objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector),
  );
  const body = plain<{ items: T[]; metadata?: { resourceVersion?: string } }>(result);
  return {
    items: body.items.map((item) => ({ ...item, apiVersion, kind })),
    resourceVersion: body.metadata?.resourceVersion,
  };
}

const serverSideApply = (context: ClusterContext, object: Cluster.ClusterObject, dryRun?: 'All') =>
  context.call((c) =>
    c.objects.patch(
      object as unknown as KubernetesObject,
      undefined,
      dryRun,
      Cluster.fieldManager,
      true,
      PatchStrategy.ServerSideApply,
    ),
  );

export async function applyObject(context: ClusterContext, object: Cluster.ClusterObject) {
  return plain<Cluster.ClusterObject>(await serverSideApply(context, object));
}

/** A 4xx the API server answered (not throttling): a refusal to report, not a failure to retry. */
function refusal(error: unknown): Extract<Cluster.DryRunResult, { accepted: false }> | null {
  const status = statusOf(error);
  if (status === undefined || status < 400 || status >= 500 || status === 429) return null;
  return {
    accepted: false,
    status,
    reason: statusText(error, 'reason'),
    message: statusText(error, 'message'),
  };
}

export async function dryRunApply(
  context: ClusterContext,
  object: Cluster.ClusterObject,
): Promise<Cluster.DryRunResult> {
  try {
    return {
      accepted: true,
      object: plain<Cluster.ClusterObject>(await serverSideApply(context, object, 'All')),
    };
  } catch (error) {
    const refused = refusal(error);
    if (refused) return refused;
    throw error;
  }
}

export async function deleteObject(
  context: ClusterContext,
  ref: Cluster.ObjectRef,
  propagation: 'Background' | 'Foreground' | 'Orphan' = 'Background',
): Promise<void> {
  try {
    await context.call((c) =>
      c.objects.delete(
        {
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          metadata: { name: ref.name, namespace: ref.namespace },
        },
        undefined,
        undefined,
        undefined,
        undefined,
        propagation,
      ),
    );
  } catch (error) {
    if (!notFound(error)) throw error;
  }
}

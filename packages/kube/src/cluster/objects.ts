/** Reading and writing objects by reference: get, list, server-side apply, delete. */
import { type KubernetesObject, PatchStrategy } from '@kubernetes/client-node';
import { Cluster } from '@svc/core';
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

const serverSideApply = (context: ClusterContext, object: Cluster.ClusterObject) =>
  context.call((c) =>
    c.objects.patch(
      object as unknown as KubernetesObject,
      undefined,
      undefined,
      Cluster.fieldManager,
      true,
      PatchStrategy.ServerSideApply,
    ),
  );

export async function applyObject(context: ClusterContext, object: Cluster.ClusterObject) {
  return plain<Cluster.ClusterObject>(await serverSideApply(context, object));
}

export async function mergePatchObject(
  context: ClusterContext,
  ref: Cluster.ObjectRef,
  patch: Record<string, unknown>,
): Promise<Cluster.ClusterObject | null> {
  const object = {
    ...patch,
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { ...(patch.metadata as object | undefined), name: ref.name, namespace: ref.namespace },
  };
  try {
    return plain<Cluster.ClusterObject>(
      await context.call((c) =>
        c.objects.patch(
          object as KubernetesObject,
          undefined,
          undefined,
          Cluster.fieldManager,
          undefined,
          PatchStrategy.MergePatch,
        ),
      ),
    );
  } catch (error) {
    if (notFound(error)) return null;
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

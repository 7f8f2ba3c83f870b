// The protobuf messages this local cluster reads from kubectl and client-go request bodies
// (`Content-Type: application/vnd.kubernetes.protobuf`): only the kinds it decodes and, in them,
// the fields it serves. Anything else on the wire is skipped as an unknown field.
//
// Written from the Kubernetes API's published generated.proto files of release 1.32
// (k8s.io/api and k8s.io/apimachinery v0.32.13), one source per upstream package below, keeping
// upstream's package names, message names, field names and field numbers. Field names there are
// the JSON names, so a decoded message maps onto the JSON object field by field.
//
// Two field options carry what Go's JSON encoding knows and the wire does not:
//   (pointer) = true  the Go field is a pointer, so a zero value on the wire was set on purpose
//                     (`replicas: 0`) and is kept; other zero scalars are dropped, as `omitempty`
//                     drops them.
//   (inline) = true   the Go field is an embedded struct whose fields sit in the parent's object.
// Status messages are not declared: the server sets status on create and keeps it on update.

import protobuf from 'protobufjs';

const SOURCES: Record<string, string> = {
  'k8s.io/apimachinery/pkg/runtime/generated.proto': `
    package k8s.io.apimachinery.pkg.runtime;

    message Unknown {
      optional TypeMeta typeMeta = 1;
      optional bytes raw = 2;
      optional string contentEncoding = 3;
      optional string contentType = 4;
    }

    message TypeMeta {
      optional string apiVersion = 1;
      optional string kind = 2;
    }
  `,

  'k8s.io/apimachinery/pkg/util/intstr/generated.proto': `
    package k8s.io.apimachinery.pkg.util.intstr;

    message IntOrString {
      optional int64 type = 1;
      optional int32 intVal = 2;
      optional string strVal = 3;
    }
  `,

  'k8s.io/apimachinery/pkg/api/resource/generated.proto': `
    package k8s.io.apimachinery.pkg.api.resource;

    message Quantity {
      optional string string = 1;
    }
  `,

  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto': `
    package k8s.io.apimachinery.pkg.apis.meta.v1;

    message ObjectMeta {
      optional string name = 1;
      optional string generateName = 2;
      optional string namespace = 3;
      optional string selfLink = 4;
      optional string uid = 5;
      optional string resourceVersion = 6;
      optional int64 generation = 7;
      optional Time creationTimestamp = 8;
      optional Time deletionTimestamp = 9;
      optional int64 deletionGracePeriodSeconds = 10 [(pointer) = true];
      map<string, string> labels = 11;
      map<string, string> annotations = 12;
      repeated OwnerReference ownerReferences = 13;
      repeated string finalizers = 14;
      repeated ManagedFieldsEntry managedFields = 17;
    }

    message OwnerReference {
      optional string apiVersion = 5;
      optional string kind = 1;
      optional string name = 3;
      optional string uid = 4;
      optional bool controller = 6 [(pointer) = true];
      optional bool blockOwnerDeletion = 7 [(pointer) = true];
    }

    message ManagedFieldsEntry {
      optional string manager = 1;
      optional string operation = 2;
      optional string apiVersion = 3;
      optional Time time = 4;
      optional string fieldsType = 6;
      optional FieldsV1 fieldsV1 = 7;
      optional string subresource = 8;
    }

    message FieldsV1 {
      optional bytes Raw = 1;
    }

    message LabelSelector {
      map<string, string> matchLabels = 1;
      repeated LabelSelectorRequirement matchExpressions = 2;
    }

    message LabelSelectorRequirement {
      optional string key = 1;
      optional string operator = 2;
      repeated string values = 3;
    }

    message Time {
      optional int64 seconds = 1;
      optional int32 nanos = 2;
    }
  `,

  'k8s.io/api/core/v1/generated.proto': `
    package k8s.io.api.core.v1;

    message Namespace {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional NamespaceSpec spec = 2;
    }

    message NamespaceSpec {
      repeated string finalizers = 1;
    }

    message ConfigMap {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional bool immutable = 4 [(pointer) = true];
      map<string, string> data = 2;
      map<string, bytes> binaryData = 3;
    }

    message Secret {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional bool immutable = 5 [(pointer) = true];
      map<string, bytes> data = 2;
      map<string, string> stringData = 4;
      optional string type = 3;
    }

    message ServiceAccount {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      repeated ObjectReference secrets = 2;
      repeated LocalObjectReference imagePullSecrets = 3;
      optional bool automountServiceAccountToken = 4 [(pointer) = true];
    }

    message ObjectReference {
      optional string kind = 1;
      optional string namespace = 2;
      optional string name = 3;
      optional string uid = 4;
      optional string apiVersion = 5;
      optional string resourceVersion = 6;
      optional string fieldPath = 7;
    }

    message LocalObjectReference {
      optional string name = 1;
    }

    message Service {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional ServiceSpec spec = 2;
    }

    message ServiceSpec {
      repeated ServicePort ports = 1;
      map<string, string> selector = 2;
      optional string clusterIP = 3;
      repeated string clusterIPs = 18;
      optional string type = 4;
      repeated string externalIPs = 5;
      optional string sessionAffinity = 7;
      optional string loadBalancerIP = 8;
      repeated string loadBalancerSourceRanges = 9;
      optional string externalName = 10;
      optional string externalTrafficPolicy = 11;
      optional int32 healthCheckNodePort = 12;
      optional bool publishNotReadyAddresses = 13;
      optional SessionAffinityConfig sessionAffinityConfig = 14;
      repeated string ipFamilies = 19;
      optional string ipFamilyPolicy = 17 [(pointer) = true];
      optional bool allocateLoadBalancerNodePorts = 20 [(pointer) = true];
      optional string loadBalancerClass = 21 [(pointer) = true];
      optional string internalTrafficPolicy = 22 [(pointer) = true];
      optional string trafficDistribution = 23 [(pointer) = true];
    }

    message ServicePort {
      optional string name = 1;
      optional string protocol = 2;
      optional string appProtocol = 6 [(pointer) = true];
      optional int32 port = 3;
      optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
      optional int32 nodePort = 5;
    }

    message SessionAffinityConfig {
      optional ClientIPConfig clientIP = 1;
    }

    message ClientIPConfig {
      optional int32 timeoutSeconds = 1 [(pointer) = true];
    }

    message Pod {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional PodSpec spec = 2;
    }

    message PodTemplateSpec {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional PodSpec spec = 2;
    }

    message PodSpec {
      repeated Container initContainers = 20;
      repeated Container containers = 2;
      optional string restartPolicy = 3;
      optional int64 terminationGracePeriodSeconds = 4 [(pointer) = true];
      optional int64 activeDeadlineSeconds = 5 [(pointer) = true];
      optional string dnsPolicy = 6;
      map<string, string> nodeSelector = 7;
      optional string serviceAccountName = 8;
      optional string serviceAccount = 9;
      optional bool automountServiceAccountToken = 21 [(pointer) = true];
      optional string nodeName = 10;
      optional bool hostNetwork = 11;
      repeated LocalObjectReference imagePullSecrets = 15;
      optional string hostname = 16;
      optional string subdomain = 17;
      optional string schedulerName = 19;
      optional string priorityClassName = 24;
      optional bool enableServiceLinks = 30 [(pointer) = true];
    }

    message Container {
      optional string name = 1;
      optional string image = 2;
      repeated string command = 3;
      repeated string args = 4;
      optional string workingDir = 5;
      repeated ContainerPort ports = 6;
      repeated EnvFromSource envFrom = 19;
      repeated EnvVar env = 7;
      optional ResourceRequirements resources = 8;
      optional string restartPolicy = 24 [(pointer) = true];
      optional string terminationMessagePath = 13;
      optional string terminationMessagePolicy = 20;
      optional string imagePullPolicy = 14;
      optional bool stdin = 16;
      optional bool stdinOnce = 17;
      optional bool tty = 18;
    }

    message ContainerPort {
      optional string name = 1;
      optional int32 hostPort = 2;
      optional int32 containerPort = 3;
      optional string protocol = 4;
      optional string hostIP = 5;
    }

    message EnvVar {
      optional string name = 1;
      optional string value = 2;
      optional EnvVarSource valueFrom = 3;
    }

    message EnvVarSource {
      optional ObjectFieldSelector fieldRef = 1;
      optional ResourceFieldSelector resourceFieldRef = 2;
      optional ConfigMapKeySelector configMapKeyRef = 3;
      optional SecretKeySelector secretKeyRef = 4;
    }

    message ObjectFieldSelector {
      optional string apiVersion = 1;
      optional string fieldPath = 2;
    }

    message ResourceFieldSelector {
      optional string containerName = 1;
      optional string resource = 2;
      optional .k8s.io.apimachinery.pkg.api.resource.Quantity divisor = 3;
    }

    message ConfigMapKeySelector {
      optional LocalObjectReference localObjectReference = 1 [(inline) = true];
      optional string key = 2;
      optional bool optional = 3 [(pointer) = true];
    }

    message SecretKeySelector {
      optional LocalObjectReference localObjectReference = 1 [(inline) = true];
      optional string key = 2;
      optional bool optional = 3 [(pointer) = true];
    }

    message EnvFromSource {
      optional string prefix = 1;
      optional ConfigMapEnvSource configMapRef = 2;
      optional SecretEnvSource secretRef = 3;
    }

    message ConfigMapEnvSource {
      optional LocalObjectReference localObjectReference = 1 [(inline) = true];
      optional bool optional = 2 [(pointer) = true];
    }

    message SecretEnvSource {
      optional LocalObjectReference localObjectReference = 1 [(inline) = true];
      optional bool optional = 2 [(pointer) = true];
    }

    message ResourceRequirements {
      map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 1;
      map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> requests = 2;
    }
  `,

  'k8s.io/api/apps/v1/generated.proto': `
    package k8s.io.api.apps.v1;

    message Deployment {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional DeploymentSpec spec = 2;
    }

    message DeploymentSpec {
      optional int32 replicas = 1 [(pointer) = true];
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
      optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
      optional DeploymentStrategy strategy = 4;
      optional int32 minReadySeconds = 5;
      optional int32 revisionHistoryLimit = 6 [(pointer) = true];
      optional bool paused = 7;
      optional int32 progressDeadlineSeconds = 9 [(pointer) = true];
    }

    message DeploymentStrategy {
      optional string type = 1;
      optional RollingUpdateDeployment rollingUpdate = 2;
    }

    message RollingUpdateDeployment {
      optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 1;
      optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2;
    }

    message ReplicaSet {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional ReplicaSetSpec spec = 2;
    }

    message ReplicaSetSpec {
      optional int32 replicas = 1 [(pointer) = true];
      optional int32 minReadySeconds = 4;
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
      optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
    }
  `,

  'k8s.io/api/authorization/v1/generated.proto': `
    package k8s.io.api.authorization.v1;

    message SelfSubjectAccessReview {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional SelfSubjectAccessReviewSpec spec = 2;
    }

    message SelfSubjectAccessReviewSpec {
      optional ResourceAttributes resourceAttributes = 1;
      optional NonResourceAttributes nonResourceAttributes = 2;
    }

    message ResourceAttributes {
      optional string namespace = 1;
      optional string verb = 2;
      optional string group = 3;
      optional string version = 4;
      optional string resource = 5;
      optional string subresource = 6;
      optional string name = 7;
    }

    message NonResourceAttributes {
      optional string path = 1;
      optional string verb = 2;
    }

    message SelfSubjectRulesReview {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional SelfSubjectRulesReviewSpec spec = 2;
    }

    message SelfSubjectRulesReviewSpec {
      optional string namespace = 1;
    }
  `,

  'k8s.io/api/authentication/v1/generated.proto': `
    package k8s.io.api.authentication.v1;

    message SelfSubjectReview {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
    }
  `,
};

/** The kinds a protobuf body may carry, by `apiVersion` and `kind` of its envelope. */
const TOP_LEVEL: Record<string, string> = {
  'v1/Namespace': 'k8s.io.api.core.v1.Namespace',
  'v1/ConfigMap': 'k8s.io.api.core.v1.ConfigMap',
  'v1/Secret': 'k8s.io.api.core.v1.Secret',
  'v1/ServiceAccount': 'k8s.io.api.core.v1.ServiceAccount',
  'v1/Service': 'k8s.io.api.core.v1.Service',
  'v1/Pod': 'k8s.io.api.core.v1.Pod',
  'apps/v1/Deployment': 'k8s.io.api.apps.v1.Deployment',
  'apps/v1/ReplicaSet': 'k8s.io.api.apps.v1.ReplicaSet',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'k8s.io.api.authentication.v1.SelfSubjectReview',
};

function buildRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const source of Object.values(SOURCES)) {
    protobuf.parse(`syntax = "proto2";\n${source}`, root, { keepCase: true });
  }
  root.resolveAll();
  return root;
}

const root = buildRoot();

export const envelopeType = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');

/** The message type for an envelope's `apiVersion` and `kind`, or undefined if it is not read here. */
export function objectType(apiVersion: string, kind: string): protobuf.Type | undefined {
  const name = TOP_LEVEL[`${apiVersion}/${kind}`];
  return name === undefined ? undefined : root.lookupType(name);
}

/** "Namespace, ConfigMap, …": the kinds read from protobuf, for error messages. */
export const readableKinds: readonly string[] = Object.keys(TOP_LEVEL).map((key) =>
  key.slice(key.lastIndexOf('/') + 1),
);

import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, PersistentVolumeClaim, Service, ServiceAccount } from "kubernetes-models/v1";
import type { KubernetesObject } from "./kubernetes-object.js";

// The kinds the manifests may use; anything else is a problem until its schema is added here.
const models: Array<{ apiVersion: string; kind: string; new (data: never): { validate(): void } }> = [
  ConfigMap,
  Deployment,
  HorizontalPodAutoscaler,
  Ingress,
  Job,
  Namespace,
  NetworkPolicy,
  PersistentVolumeClaim,
  PodDisruptionBudget,
  Service,
  ServiceAccount,
  StatefulSet,
];

/** What the Kubernetes OpenAPI schema (kubernetes-models) finds wrong with an object; empty when valid. */
export function schemaProblems(object: KubernetesObject): string[] {
  const name = `${object.kind}/${object.metadata?.name}`;
  const model = models.find(
    (candidate) => candidate.apiVersion === object.apiVersion && candidate.kind === object.kind,
  );
  if (!model) return [`${name}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new model(object as never).validate();
    return [];
  } catch (error) {
    return [`${name}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** The fields every rendered Kubernetes object has; the rest is read through the schema-checked shape. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: checked against the Kubernetes schemas before any rule reads it.
  spec?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  [field: string]: any;
}

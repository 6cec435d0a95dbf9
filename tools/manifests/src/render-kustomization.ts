import { execFileSync } from "node:child_process";
import { parseAllDocuments } from "yaml";
import type { KubernetesObject } from "./kubernetes-object.js";

/** Whether `kubectl` (with its built-in kustomize) can be run. */
export function kubectlAvailable(): boolean {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Every object `kubectl kustomize` renders from a kustomization directory, offline. */
export function renderKustomization(directory: string): KubernetesObject[] {
  const text = execFileSync("kubectl", ["kustomize", directory], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(text)
    .map((document) => document.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
}

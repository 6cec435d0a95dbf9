import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { exportedNames, metricNamesIn } from "../promql-names.js";

const rulesSchema = z.object({
  groups: z.array(
    z.object({
      name: z.string(),
      rules: z.array(
        z.object({
          alert: z.string().regex(/^Gateway[A-Za-z]+$/),
          expr: z.string().min(1),
          for: z.string().regex(/^\d+[smh]$/),
          labels: z.object({ severity: z.enum(["page", "ticket"]) }),
          annotations: z.object({ summary: z.string().min(1), runbook_url: z.string() }),
        }),
      ),
    }),
  ),
});

const rules = rulesSchema
  .parse(parse(readFileSync(join(import.meta.dirname, "alerts.yaml"), "utf8")))
  .groups.flatMap((group) => group.rules);

/** GitHub's anchors: headings lower-cased, spaces to dashes, punctuation dropped. */
function operationsAnchors(): Set<string> {
  const text = readFileSync(join(import.meta.dirname, "../../docs/operations.md"), "utf8");
  return new Set(
    [...text.matchAll(/^#+\s+(.+)$/gm)].map(([, heading]) =>
      heading!
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, "")
        .replaceAll(" ", "-"),
    ),
  );
}

describe("the alert rules", () => {
  it("are well formed, each named once", () => {
    expect(rules.length).toBeGreaterThanOrEqual(8);
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
  });

  it("query only series the services export", () => {
    const { series } = exportedNames();
    const unknown = rules.flatMap((rule) =>
      metricNamesIn(rule.expr)
        .filter((name) => !series.has(name))
        .map((name) => `${rule.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("each link a runbook section of docs/operations.md named after the alert", () => {
    const anchors = operationsAnchors();
    const broken = rules
      .filter((rule) => rule.annotations.runbook_url !== `docs/operations.md#${rule.alert.toLowerCase()}`)
      .concat(rules.filter((rule) => !anchors.has(rule.alert.toLowerCase())))
      .map((rule) => rule.alert);
    expect(broken).toEqual([]);
  });
});

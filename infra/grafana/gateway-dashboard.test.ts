import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportedNames, metricNamesIn } from "../promql-names.js";

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, "gateway-dashboard.json"), "utf8")) as {
  panels: Panel[];
};

const queries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel, expr: target.expr })),
);

describe("the Grafana dashboard", () => {
  it("queries only series the services export", () => {
    const { series } = exportedNames();
    const unknown = queries.flatMap(({ panel, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !series.has(name))
        .map((name) => `${panel.title}: ${name}`),
    );
    expect(queries.length).toBeGreaterThan(30);
    expect(unknown).toEqual([]);
  });

  it("shows every metric the services export", () => {
    const { instruments } = exportedNames();
    const read = new Set(queries.flatMap(({ expr }) => metricNamesIn(expr)));
    const unshown = [...instruments].filter(
      (name) => ![name, `${name}_bucket`, `${name}_count`, `${name}_sum`].some((series) => read.has(series)),
    );
    expect(instruments.size).toBeGreaterThan(25);
    expect(unshown).toEqual([]);
  });

  it("reads its metric names out of PromQL, not label values, functions or ranges", () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, model) (rate(gateway_router_request_duration_seconds_bucket{model!~"a|b"}[$__rate_interval]))) * 3600 / 1e6',
      ),
    ).toEqual(["gateway_router_request_duration_seconds_bucket"]);
  });
});

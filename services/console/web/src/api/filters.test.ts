import dayjs from "dayjs";
import { describe, expect, it } from "vitest";
import { recordQuery } from "./filters.js";

describe("recordQuery", () => {
  it("turns picked days into the instants from the first day's start to the end of the last", () => {
    const query = recordQuery({ from: "2026-11-01", to: "2026-11-03", model: "gpt-4o" });
    expect(query).toEqual({
      from: dayjs("2026-11-01T00:00:00").toISOString(),
      to: dayjs("2026-11-04T00:00:00").toISOString(),
      model: "gpt-4o",
    });
  });

  it("leaves unset bounds out", () => {
    expect(recordQuery({ status: "ok" })).toEqual({ status: "ok", from: undefined, to: undefined });
  });
});

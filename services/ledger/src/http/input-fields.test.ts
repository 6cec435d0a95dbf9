import { describe, expect, it } from "vitest";
import { dateTime, label, utcDay } from "./input-fields.js";

describe("ledger input fields", () => {
  it("takes dates from 1970 to 9999 and refuses the rest, however they are written", () => {
    expect(dateTime.parse("2030-01-01T00:00:00+08:00")).toEqual(new Date("2029-12-31T16:00:00Z"));
    expect(dateTime.safeParse("0000-01-01T00:00:00Z").success).toBe(false);
    expect(dateTime.safeParse("1969-12-31T23:59:59Z").success).toBe(false);
    expect(dateTime.safeParse("9999-12-31T23:59:59-01:00").success).toBe(false);
    expect(utcDay.parse("9999-12-31")).toEqual(new Date("9999-12-31T00:00:00Z"));
    expect(utcDay.safeParse("0000-01-01").success).toBe(false);
  });

  it("refuses labels with NUL, empty or over 200 characters", () => {
    expect(label.parse("  acme  ")).toBe("acme");
    for (const text of ["a\u0000", "   ", "x".repeat(201)]) expect(label.safeParse(text).success).toBe(false);
  });
});

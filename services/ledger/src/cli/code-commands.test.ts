import { describe, expect, it } from "vitest";
import { CommandLineError, parseArguments } from "./parse-arguments.js";

describe("gw code commands", () => {
  it("parse create, list and revoke", () => {
    expect(
      parseArguments(["code", "create", "--amount", "50", "--count", "100", "--note", "launch", "--json"]),
    ).toEqual({
      kind: "code-create",
      yuan: "50",
      count: 100,
      expiresAt: undefined,
      note: "launch",
      json: true,
    });
    const list = {
      kind: "code-list",
      batchId: undefined,
      limit: undefined,
      cursor: undefined,
      all: false,
      json: false,
    };
    expect(parseArguments(["code", "list"])).toEqual(list);
    expect(parseArguments(["code", "list", "b1", "--json"])).toEqual({ ...list, batchId: "b1", json: true });
    expect(parseArguments(["code", "list", "--limit", "2", "--cursor", "c"])).toEqual({
      ...list,
      limit: 2,
      cursor: "c",
    });
    expect(parseArguments(["code", "list", "--all"])).toEqual({ ...list, all: true });
    expect(parseArguments(["code", "revoke", "GW-AAAAA"])).toEqual({
      kind: "code-revoke",
      target: "GW-AAAAA",
      json: false,
    });
  });

  it("keep codes good through the whole UTC day of --expires, or to the exact time given", () => {
    const at = (expires: string) =>
      parseArguments(["code", "create", "--amount", "1", "--count", "1", "--expires", expires]);
    expect(at("2027-01-31")).toMatchObject({ expiresAt: "2027-01-31T23:59:59.999Z" });
    expect(at("2027-01-31T08:00:00+08:00")).toMatchObject({ expiresAt: "2027-01-31T00:00:00.000Z" });
  });

  it("refuse a missing or bad amount, count or date", () => {
    for (const argv of [
      ["code", "create", "--count", "1"],
      ["code", "create", "--amount", "1"],
      ["code", "create", "--amount", "0.5", "--count", "1"],
      ["code", "create", "--amount", "1", "--count", "0"],
      ["code", "create", "--amount", "1", "--count", "2.5"],
      ["code", "create", "--amount", "1", "--count", "1", "--expires", "soon"],
      ["code", "revoke"],
      ["code", "list", "a", "b"],
      ["code", "list", "--limit", "501"],
    ]) {
      expect(() => parseArguments(argv), argv.join(" ")).toThrow(CommandLineError);
    }
  });
});

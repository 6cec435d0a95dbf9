import { describe, expect, it } from "vitest";
import { CommandLineError, parseArguments } from "./parse-arguments.js";

const fails = (argv: string[], message: RegExp) => {
  expect(() => parseArguments(argv)).toThrow(CommandLineError);
  expect(() => parseArguments(argv)).toThrow(message);
};

describe("parseArguments", () => {
  it("parses channel test with an optional model", () => {
    expect(parseArguments(["channel", "test", "openai-main", "--model", "gpt-4o-mini", "--json"])).toEqual({
      kind: "channel-test",
      channel: "openai-main",
      model: "gpt-4o-mini",
      json: true,
    });
    expect(parseArguments(["channel", "test", "openai-main"])).toMatchObject({ model: undefined, json: false });
    fails(["channel", "test"], /channel test expects NAME/);
  });

  it("parses every command", () => {
    expect(parseArguments(["account", "create", "--name", "acme", "--credit", "12.5", "--json"])).toEqual({
      kind: "account-create",
      name: "acme",
      group: undefined,
      creditYuan: "12.5",
      readLogs: false,
      json: true,
    });
    expect(parseArguments(["account", "create", "--name", "acme", "--read-logs"])).toMatchObject({ readLogs: true });
    expect(parseArguments(["key", "create", "a1", "--group", "premium", "--name", "ci"])).toEqual({
      kind: "key-create",
      accountId: "a1",
      group: "premium",
      name: "ci",
      readLogs: false,
      json: false,
    });
    expect(parseArguments(["key", "create", "a1", "--group", "default", "--read-logs"])).toMatchObject({
      kind: "key-create",
      readLogs: true,
    });
    expect(parseArguments(["key", "create", "a1", "--group", "default", "--spend-cap", "12.5"])).toMatchObject({
      kind: "key-create",
      spendCapYuan: "12.5",
    });
    expect(parseArguments(["account", "log-capture", "a1", "metadata"])).toEqual({
      kind: "account-log-capture",
      accountId: "a1",
      level: "metadata",
      json: false,
    });
    expect(parseArguments(["account", "log-capture", "a1", "default", "--json"])).toMatchObject({ level: "default" });
    expect(parseArguments(["account", "enable", "a1"])).toEqual({
      kind: "account-disabled",
      accountId: "a1",
      disabled: false,
      json: false,
    });
    expect(parseArguments(["account", "disable", "a1", "--json"])).toMatchObject({ disabled: true, json: true });
    expect(parseArguments(["key", "revoke", "k1"])).toEqual({ kind: "key-revoke", keyId: "k1", json: false });
    expect(parseArguments(["key", "list", "a1", "--json"])).toEqual({ kind: "key-list", accountId: "a1", json: true });
    expect(parseArguments(["credit", "a1", "10", "--idempotency-key", "k"])).toEqual({
      kind: "credit",
      accountId: "a1",
      yuan: "10",
      idempotencyKey: "k",
      json: false,
    });
    expect(parseArguments(["balance", "a1"])).toEqual({ kind: "balance", accountId: "a1", json: false });
    expect(parseArguments(["usage", "a1", "--limit", "5"])).toEqual({
      kind: "usage",
      accountId: "a1",
      limit: 5,
      cursor: undefined,
      all: false,
      json: false,
    });
    expect(parseArguments(["usage", "a1", "--cursor", "c1", "--all"])).toMatchObject({ cursor: "c1", all: true });
    expect(parseArguments(["catalogue", "check"])).toEqual({ kind: "catalogue-check", file: undefined, json: false });
    expect(parseArguments(["catalogue", "check", "--file", "/tmp/m.yaml", "--json"])).toEqual({
      kind: "catalogue-check",
      file: "/tmp/m.yaml",
      json: true,
    });
    expect(parseArguments(["admin", "grant", "github:123"])).toEqual({
      kind: "admin-grant",
      grantee: "github:123",
      role: "admin",
      json: false,
    });
    expect(parseArguments(["admin", "grant", "a1", "--role", "support", "--json"])).toMatchObject({ role: "support" });
    expect(parseArguments(["admin", "grant", "--first"])).toEqual({
      kind: "admin-grant-first",
      yes: false,
      json: false,
    });
    expect(parseArguments(["admin", "grant", "--first", "--yes", "--json"])).toEqual({
      kind: "admin-grant-first",
      yes: true,
      json: true,
    });
    expect(parseArguments(["admin", "revoke", "github:123"])).toEqual({
      kind: "admin-revoke",
      grantee: "github:123",
      json: false,
    });
    expect(parseArguments(["admin", "list", "--json"])).toEqual({ kind: "admin-list", json: true });
    expect(parseArguments([])).toEqual({ kind: "help" });
    expect(parseArguments(["--help"])).toEqual({ kind: "help" });
  });

  it("rejects unknown commands and options", () => {
    fails(["frobnicate"], /unknown command: frobnicate/);
    fails(["key", "rotate", "k1"], /unknown command: key rotate/);
    fails(["account"], /unknown command: account/);
    fails(["catalogue", "check", "extra"], /catalogue check expects no arguments, got: extra/);
    fails(["balance", "a1", "--verbose"], /balance: .*--verbose/);
  });

  it("rejects missing or extra arguments", () => {
    fails(["account", "create"], /account create needs --name/);
    fails(["account", "create", "--name"], /account create: .*--name/);
    fails(["key", "create", "--group", "default"], /key create expects ACCOUNT_ID, got: nothing/);
    fails(["key", "create", "a1"], /key create needs --group/);
    fails(["key", "revoke"], /key revoke expects KEY_ID/);
    fails(["balance", "a1", "a2"], /balance expects ACCOUNT_ID, got: a1 a2/);
    fails(["credit", "a1"], /credit expects ACCOUNT_ID YUAN/);
    fails(["account", "log-capture", "a1"], /account log-capture expects ACCOUNT_ID LEVEL/);
    fails(["admin", "grant"], /admin grant expects IDENTITY\|ACCOUNT_ID/);
    fails(["admin", "grant", "github:1", "--role", "owner"], /--role must be admin or support/);
    // --first picks the sign-in itself, and always as admin.
    fails(["admin", "grant", "--first", "github:1"], /admin grant expects no arguments, got: github:1/);
    fails(["admin", "grant", "--first", "--role", "support"], /admin grant: .*--role/);
  });

  it("rejects bad amounts and limits before calling the API", () => {
    fails(["credit", "a1", "1.234"], /at most 2 decimals/);
    fails(["credit", "a1", "0.5"], /at least 1 yuan/);
    fails(["account", "create", "--name", "x", "--credit", "ten"], /at most 2 decimals/);
    fails(["usage", "a1", "--limit", "0"], /--limit must be a whole number/);
    fails(["key", "create", "a1", "--group", "g", "--spend-cap=-1"], /key create: the amount must be an amount/);
    fails(["key", "create", "a1", "--group", "g", "--spend-cap", "0.001"], /at most 2 decimals/);
    fails(["account", "log-capture", "a1", "everything"], /LEVEL must be one of full, metadata, off, default/);
  });
});

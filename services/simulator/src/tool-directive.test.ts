import { describe, expect, it } from "vitest";
import { findToolDirective, stripToolDirectives } from "./tool-directive.js";

describe("tool directives", () => {
  it("reads a tool name alone or with a JSON object of arguments", () => {
    expect(findToolDirective("go [sim:tool=Read]")).toEqual({ name: "Read" });
    expect(findToolDirective('go [sim:tool=exec_command {"cmd": "cat a]b.txt", "n": [1, {"x": "}"}]} ] now')).toEqual({
      name: "exec_command",
      arguments: { cmd: "cat a]b.txt", n: [1, { x: "}" }] },
    });
  });

  it("ignores malformed directives and takes the first well-formed one", () => {
    expect(findToolDirective("[sim:tool=] [sim:tool=a {nope}] [sim:tool=b [1]] [sim:tool=c {}]")).toEqual({
      name: "c",
      arguments: {},
    });
    expect(findToolDirective('[sim:tool=a ["not", "an object"]]')).toBeUndefined();
    expect(findToolDirective("no directive")).toBeUndefined();
  });

  it("gives up on an argument object too long to be a test's", () => {
    expect(findToolDirective(`[sim:tool=a {"x":"${"y".repeat(20_000)}"}]`)).toBeUndefined();
  });

  it("strips every tool directive from the text", () => {
    expect(stripToolDirectives('a [sim:tool=x {"k":"]"}] b [sim:tool=y] c').split(/\s+/)).toEqual(["a", "b", "c"]);
  });
});

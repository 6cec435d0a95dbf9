import { describe, expect, it } from "vitest";
import { dashScopeApiRoot } from "./dashscope-images.js";

describe("dashScopeApiRoot", () => {
  it("puts DashScope's own API beside its compatible mode, in every region and behind the simulator", () => {
    expect(dashScopeApiRoot("https://dashscope.aliyuncs.com/compatible-mode/v1")).toBe(
      "https://dashscope.aliyuncs.com/api/v1",
    );
    expect(dashScopeApiRoot("https://dashscope-intl.aliyuncs.com/compatible-mode/v1/")).toBe(
      "https://dashscope-intl.aliyuncs.com/api/v1",
    );
    expect(dashScopeApiRoot("http://127.0.0.1:8090/v1")).toBe("http://127.0.0.1:8090/api/v1");
  });
});

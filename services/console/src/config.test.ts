import { describe, expect, it } from "vitest";
import { consoleConfigSchema } from "./config.js";

const development = { GATEWAY_ENV: "development" };

describe("console configuration", () => {
  it("reads the admin identities and key groups as lists", () => {
    const config = consoleConfigSchema.parse({
      ...development,
      CONSOLE_ADMIN_IDENTITIES: "github:123, oidc:abc-def",
      CONSOLE_KEY_GROUPS: "default,premium",
    });
    expect(config.CONSOLE_ADMIN_IDENTITIES).toEqual(["github:123", "oidc:abc-def"]);
    expect(config.CONSOLE_KEY_GROUPS).toEqual(["default", "premium"]);
    expect(config.CONSOLE_PORT).toBe(8081);
  });

  it("refuses an admin identity without its provider and a sign-in client without its secret", () => {
    expect(consoleConfigSchema.safeParse({ ...development, CONSOLE_ADMIN_IDENTITIES: "123" }).success).toBe(false);
    const problems = consoleConfigSchema.safeParse({ ...development, GITHUB_CLIENT_ID: "id" }).error?.issues;
    expect(problems?.map((issue) => issue.path.join("."))).toEqual(["GITHUB_CLIENT_SECRET"]);
  });

  it("in production needs the public URL and refuses plain-HTTP providers such as the simulator", () => {
    const result = consoleConfigSchema.safeParse({
      GATEWAY_ENV: "production",
      OIDC_ISSUER: "http://127.0.0.1:8092",
      OIDC_CLIENT_ID: "console",
      CONSOLE_GITHUB_TOKEN_URL: "http://127.0.0.1:8090/login/oauth/access_token",
    });
    expect(result.error?.issues.map((issue) => issue.path.join(".")).sort()).toEqual([
      "CONSOLE_GITHUB_TOKEN_URL",
      "CONSOLE_PUBLIC_URL",
      "OIDC_ISSUER",
    ]);
    const https = consoleConfigSchema.safeParse({
      GATEWAY_ENV: "production",
      CONSOLE_PUBLIC_URL: "https://console.example.com",
    });
    expect(https.success).toBe(true);
  });
});

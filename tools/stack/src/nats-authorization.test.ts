import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { natsAuthorizationBlock } from "./nats-authorization.js";
import { redisAclRules } from "./redis-acl.js";
import { repoRoot } from "./repo-paths.js";

it("docs/security.md shows the NATS users and Redis ACL the services are tested with", () => {
  const security = readFileSync(`${repoRoot}docs/security.md`, "utf8");
  const passwords = {
    edge: "EDGE_PASSWORD",
    router: "ROUTER_PASSWORD",
    ledger: "LEDGER_PASSWORD",
    video: "VIDEO_PASSWORD",
  };
  expect(security).toContain(natsAuthorizationBlock("gw", passwords).trimEnd());
  expect(security).toContain(`ACL SETUSER gateway ${redisAclRules("gw", "REDIS_PASSWORD").join(" ")}`);
});

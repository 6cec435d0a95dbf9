import { expect, it } from "vitest";
import { chooseServerSource } from "./test-servers.js";

it("runs the servers in containers when Docker is reachable and nothing else is asked", () => {
  expect(chooseServerSource({}, true)).toEqual({ kind: "containers" });
});

it("uses the local servers when no Docker engine is reachable", () => {
  expect(chooseServerSource({}, false)).toEqual({ kind: "local", reason: "no Docker engine is reachable" });
});

it("uses servers given by URL even when Docker is reachable", () => {
  expect(chooseServerSource({ TEST_REDIS_URL: "redis://10.0.0.5:6379" }, true)).toEqual({
    kind: "local",
    reason: "given by TEST_REDIS_URL",
  });
});

it("keeps the local servers when containers are switched off", () => {
  expect(chooseServerSource({ GATEWAY_TEST_CONTAINERS: "0" }, true)).toMatchObject({ kind: "local" });
});

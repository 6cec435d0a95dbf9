import { afterAll, beforeAll, expect, it } from "vitest";
import { type StartedGateway, type StartedState, spawnStart } from "./start-process.js";

// `pnpm start` with GATEWAY_REPLICAS=2, as an operator tries replicas on one machine.

let gateway: StartedGateway;
let state: StartedState;

beforeAll(async () => {
  gateway = await spawnStart({ GATEWAY_REPLICAS: "2" });
  state = await gateway.running();
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
}, 60_000);

it("runs two of router, ledger, video and the console, and lists every process in stack.json", async () => {
  const count = (service: string) => state.processes.filter((entry) => entry.service === service).length;
  expect(
    Object.fromEntries(["router", "ledger", "video", "console", "edge"].map((name) => [name, count(name)])),
  ).toEqual({ router: 2, ledger: 2, video: 2, console: 2, edge: 1 });
  for (const entry of state.processes) {
    expect(gateway.processesLeft()).toContain(entry.pid);
  }
  const router = state.processes.filter((entry) => entry.service === "router");
  expect(router.map((entry) => entry.replica)).toEqual([0, 1]);
  const ports = state.processes.flatMap((entry) => Object.values(entry.ports));
  expect(new Set(ports).size).toBe(ports.length);
  // The operator CLI's router address names both.
  expect(state.routerUrl.split(",")).toEqual(router.map((entry) => `127.0.0.1:${entry.ports.grpc}`));
  const models = await fetch(`${state.baseUrl}/models`, { headers: { authorization: `Bearer ${state.demo.api_key}` } });
  expect(models.status).toBe(200);
});

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { WechatPayClient, wechatPayConfigFromEnv } from "@gateway/payments";
import { expect, it } from "vitest";
import { startSimulator } from "../server.js";

it("closing the simulator drops a notification still waiting to be sent", async () => {
  let received = 0;
  const merchant = createServer((_request, response) => {
    received += 1;
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => merchant.listen(0, "127.0.0.1", resolve));
  const simulator = await startSimulator({ port: 0 });
  try {
    const env = (await (await fetch(`${simulator.url}/_sim/payments/credentials`)).json()) as Record<string, string>;
    const client = new WechatPayClient(wechatPayConfigFromEnv(env)!);
    const notifyUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/notify`;
    const created = await client.createNativeOrder({
      outTradeNo: "LATE000001",
      description: "x",
      amountFen: 1,
      notifyUrl,
    });
    if (!created.ok) throw new Error(created.reason);
    const paid = await fetch(created.codeUrl, {
      method: "POST",
      body: new URLSearchParams({ fault: "late", delay_ms: "300" }),
    });
    expect(paid.status).toBe(200);
  } finally {
    await simulator.close();
  }
  await sleep(800);
  expect(received).toBe(0);
  merchant.close();
});

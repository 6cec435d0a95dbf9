/** What the vendor simulator saw, so tests can check exactly what our adapters sent upstream. */
export interface SimulatedRequest {
  id: string;
  // When the request arrived (ISO 8601).
  at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  // The body's text as it arrived (its first MiB).
  bodyText: string;
  aborted: boolean;
  status: number;
}

export async function simulatorRequests(simulatorUrl: string): Promise<SimulatedRequest[]> {
  const response = await fetch(`${simulatorUrl}/_sim/requests`);
  return ((await response.json()) as { data: SimulatedRequest[] }).data;
}

export async function clearSimulatorRequests(simulatorUrl: string): Promise<void> {
  await fetch(`${simulatorUrl}/_sim/requests`, { method: "DELETE" });
}

/**
 * The merchant settings (WECHATPAY_*, ALIPAY_*) that make the payments package talk to the
 * simulator's WeChat Pay and Alipay with the keys it made at start: what a development console gets.
 */
export async function simulatorPaymentEnv(simulatorUrl: string): Promise<Record<string, string>> {
  const response = await fetch(`${simulatorUrl}/_sim/payments/credentials`);
  if (!response.ok) throw new Error(`the simulator answered ${response.status} for its payment credentials`);
  return (await response.json()) as Record<string, string>;
}

/** Queues a fault in the simulator for its next matching requests (see services/simulator/src/faults.ts). */
export async function queueSimulatorFault(simulatorUrl: string, fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${simulatorUrl}/_sim/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fault),
  });
  if (!response.ok) throw new Error(`the simulator refused the fault: ${await response.text()}`);
}

/** The simulator's GitHub OAuth app (services/simulator/src/github), as a development console is configured. */
export const simulatedGithubApp = {
  clientId: "sim-github-client",
  clientSecret: "sim-github-secret",
};

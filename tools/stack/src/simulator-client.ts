/** What the vendor simulator saw, so tests can check exactly what our adapters sent upstream. */
export interface SimulatedRequest {
  id: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
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

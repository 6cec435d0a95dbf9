import { billingKeys } from "@gateway/billing";
import { createClient } from "redis";

/** The account's open cost reservations in Redis (request id → micro-yuan), as a test sees them. */
export async function openReservations(
  redisUrl: string,
  namespace: string,
  accountId: string,
): Promise<Record<string, number>> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    const held = await client.hGetAll(billingKeys(namespace, accountId).reservations);
    return Object.fromEntries(Object.entries(held).map(([requestId, micros]) => [requestId, Number(micros)]));
  } finally {
    await client.quit();
  }
}

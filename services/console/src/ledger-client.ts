import { ConsoleServiceService } from "@gateway/proto/ledger/v1/console";
import { connectService, type PromiseClient } from "./grpc-client.js";

/** ledger.v1.ConsoleService as promises. */
export type Ledger = PromiseClient<typeof ConsoleServiceService>;

export function connectLedger(url: string, serviceTokenSecret: string | undefined): { ledger: Ledger; close(): void } {
  const { client, close } = connectService(ConsoleServiceService, url, serviceTokenSecret);
  return { ledger: client, close };
}

import { ConsoleServiceService } from "@gateway/proto/ledger/v1/console";
import { OperationsServiceService } from "@gateway/proto/ledger/v1/operations";
import { connectService, type PromiseClient } from "./grpc-client.js";

/** ledger.v1.ConsoleService as promises. */
export type Ledger = PromiseClient<typeof ConsoleServiceService>;

export function connectLedger(url: string, serviceTokenSecret: string | undefined): { ledger: Ledger; close(): void } {
  const { client, close } = connectService(ConsoleServiceService, url, serviceTokenSecret);
  return { ledger: client, close };
}

/** ledger.v1.OperationsService as promises: prepaid codes, every account's orders, the overview. */
export type Operations = PromiseClient<typeof OperationsServiceService>;

export function connectOperations(url: string, serviceTokenSecret: string | undefined) {
  const { client, close } = connectService(OperationsServiceService, url, serviceTokenSecret);
  return { operations: client as Operations, close };
}

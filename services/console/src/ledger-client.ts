import { AdminServiceService } from "@gateway/proto/ledger/v1/admin";
import { ConsoleServiceService } from "@gateway/proto/ledger/v1/console";
import { OperationsServiceService } from "@gateway/proto/ledger/v1/operations";
import { connectService, type PromiseClient } from "./grpc-client.js";

/** ledger.v1.ConsoleService as promises. */
export type Ledger = PromiseClient<typeof ConsoleServiceService>;
/** ledger.v1.AdminService (roles, audit log, operators' account changes) as promises. */
export type LedgerAdmin = PromiseClient<typeof AdminServiceService>;

export function connectLedger(
  url: string,
  serviceTokenSecret: string | undefined,
): { ledger: Ledger; ledgerAdmin: LedgerAdmin; close(): void } {
  const consoleService = connectService(ConsoleServiceService, url, serviceTokenSecret);
  const adminService = connectService(AdminServiceService, url, serviceTokenSecret);
  return {
    ledger: consoleService.client,
    ledgerAdmin: adminService.client,
    close: () => {
      consoleService.close();
      adminService.close();
    },
  };
}

/** ledger.v1.OperationsService as promises: prepaid codes, every account's orders, the overview. */
export type Operations = PromiseClient<typeof OperationsServiceService>;

export function connectOperations(url: string, serviceTokenSecret: string | undefined) {
  const { client, close } = connectService(OperationsServiceService, url, serviceTokenSecret);
  return { operations: client as Operations, close };
}

import {
  LedgerServiceService,
  type LoadBalanceRequest,
  type ResolveKeyRequest,
  type ResolveKeyResponse,
} from "@gateway/proto/ledger/v1/ledger";
import { inSpan, unaryHandler } from "@gateway/shared";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type { LoadedBalance } from "./accounts/load-balance.js";

export interface LedgerHandlers {
  resolveKey: (keyHash: string) => Promise<ResolveKeyResponse>;
  loadBalance: (accountId: string, keyId?: string) => Promise<LoadedBalance>;
}

/** Serves LedgerService on host:port (0 = any free port) and resolves with the bound port. */
export async function startGrpcServer(
  handlers: LedgerHandlers,
  host: string,
  port: number,
): Promise<{ server: Server; port: number }> {
  const server = new Server();
  server.addService(LedgerServiceService, {
    resolveKey: unaryHandler((request: ResolveKeyRequest) =>
      inSpan("ledger.resolve_key", {}, () => handlers.resolveKey(request.keyHash)),
    ),
    loadBalance: unaryHandler(async (request: LoadBalanceRequest) => {
      const loaded = await handlers.loadBalance(request.accountId, request.keyId);
      return {
        balanceMicros: Number(loaded.balanceMicros),
        keySpentMicros: loaded.keySpentMicros === undefined ? undefined : Number(loaded.keySpentMicros),
      };
    }),
  });
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port: boundPort };
}

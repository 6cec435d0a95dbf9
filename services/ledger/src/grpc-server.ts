import {
  LedgerServiceService,
  type LoadBalanceRequest,
  type ResolveKeyRequest,
  type ResolveKeyResponse,
} from "@gateway/proto/ledger/v1/ledger";
import { inSpan, unaryHandler } from "@gateway/shared";
import { Server, ServerCredentials } from "@grpc/grpc-js";

export interface LedgerHandlers {
  resolveKey: (keyHash: string) => Promise<ResolveKeyResponse>;
  loadBalance: (accountId: string) => Promise<bigint>;
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
    loadBalance: unaryHandler(async (request: LoadBalanceRequest) => ({
      balanceMicros: Number(await handlers.loadBalance(request.accountId)),
    })),
  });
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port: boundPort };
}

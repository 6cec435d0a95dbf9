import {
  callersOfEveryMethod,
  type GrpcHealth,
  inSpan,
  invalidRequest,
  type Logger,
  logHandlerErrors,
  serveHealth,
  serviceServerOptions,
  unaryHandler,
} from "@gateway/platform";
import { type AdminServiceServer, AdminServiceService } from "@gateway/proto/ledger/v1/admin";
import { type ConsoleServiceServer, ConsoleServiceService } from "@gateway/proto/ledger/v1/console";
import {
  LedgerServiceService,
  type LoadBalanceRequest,
  type ResolveKeyRequest,
  type ResolveKeyResponse,
  type StoredResponseKey,
  type StoreResponseRequest,
} from "@gateway/proto/ledger/v1/ledger";
import { type OperationsServiceServer, OperationsServiceService } from "@gateway/proto/ledger/v1/operations";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type { LoadedBalance } from "./accounts/load-balance.js";
import type { StoredResponses } from "./responses/stored-responses.js";

export interface LedgerHandlers {
  resolveKey: (keyHash: string) => Promise<ResolveKeyResponse>;
  loadBalance: (accountId: string, keyId?: string) => Promise<LoadedBalance>;
  responses: StoredResponses;
  console: ConsoleServiceServer;
  operations: OperationsServiceServer;
  admin: AdminServiceServer;
}

// Key resolution and stored Responses are edge's; balances are loaded for the services that
// reserve costs. Methods added later are open to every internal service until listed here.
const callers = {
  ...callersOfEveryMethod(LedgerServiceService, ["edge", "router", "video"]),
  [LedgerServiceService.resolveKey.path]: ["edge"],
  [LedgerServiceService.loadBalance.path]: ["router", "video"],
  [LedgerServiceService.storeResponse.path]: ["edge"],
  [LedgerServiceService.getStoredResponse.path]: ["edge"],
  [LedgerServiceService.deleteStoredResponse.path]: ["edge"],
  // Sign-ins, money and every account's data: the console's alone.
  ...callersOfEveryMethod(ConsoleServiceService, ["console"]),
  ...callersOfEveryMethod(OperationsServiceService, ["console"]),
  ...callersOfEveryMethod(AdminServiceService, ["console"]),
} as const;

/** Serves LedgerService, ConsoleService, OperationsService and AdminService on host:port (0 = any free port) and resolves with the bound port. */
export async function startGrpcServer(
  handlers: LedgerHandlers,
  logger: Logger,
  host: string,
  port: number,
  serviceTokenSecret: string | undefined,
): Promise<{ server: Server; port: number; health: GrpcHealth }> {
  // Stored responses carry conversations of up to a few MB (edge caps them).
  const server = new Server(
    serviceServerOptions(serviceTokenSecret, callers, { "grpc.max_receive_message_length": 64 * 1024 * 1024 }),
  );
  server.addService(
    LedgerServiceService,
    logHandlerErrors(logger, {
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
      storeResponse: unaryHandler(async (request: StoreResponseRequest) => {
        if (!request.stored || !(await handlers.responses.store(request.key, request.stored))) {
          throw invalidRequest("A stored response needs an account id, a response id and its content.");
        }
        return {};
      }),
      getStoredResponse: unaryHandler(async (key: StoredResponseKey) => ({
        stored: await handlers.responses.load(key),
      })),
      deleteStoredResponse: unaryHandler(async (key: StoredResponseKey) => ({
        deleted: await handlers.responses.remove(key),
      })),
    }),
  );
  server.addService(ConsoleServiceService, logHandlerErrors(logger, handlers.console));
  server.addService(OperationsServiceService, logHandlerErrors(logger, handlers.operations));
  server.addService(AdminServiceService, logHandlerErrors(logger, handlers.admin));
  const health = serveHealth(server, [
    LedgerServiceService,
    ConsoleServiceService,
    OperationsServiceService,
    AdminServiceService,
  ]);
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port: boundPort, health };
}

import { unaryHandler } from "@gateway/platform";
import type {
  AccountRequest,
  ConsoleServiceServer,
  CreateKeyRequest,
  KeyRequest,
} from "@gateway/proto/ledger/v1/console";
import { z } from "zod";
import { parseInput } from "../admin/parse-input.js";
import { createKey } from "../keys/create-key.js";
import { listKeys } from "../keys/list-keys.js";
import { revokeKey } from "../keys/revoke-key.js";
import { keyNotFound } from "../ledger-errors.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf, createKeyInput } from "./requests.js";
import { keyMessage } from "./to-proto.js";

type KeyCalls = Pick<ConsoleServiceServer, "createKey" | "listKeys" | "revokeKey">;

/** An account's API keys: made (the key itself shown once), listed, revoked everywhere at once. */
export function keyCalls({
  database,
  announceRevocation,
  forgetCachedKeys,
  accountCaps,
}: ConsoleDependencies): KeyCalls {
  return {
    createKey: unaryHandler(async (request: CreateKeyRequest) => {
      const accountId = accountIdOf(request.accountId);
      const input = parseInput(createKeyInput, request);
      const { key, apiKey } = await createKey(
        database,
        forgetCachedKeys,
        {
          accountId,
          group: input.group,
          name: input.name,
          expiresAt: input.expiresAtMs ? new Date(input.expiresAtMs) : undefined,
          spendCapMicros: input.spendCapMicros === undefined ? undefined : BigInt(input.spendCapMicros),
          canReadLogs: input.readLogs,
        },
        accountCaps.keys,
      );
      return { key: keyMessage(key), apiKey };
    }),
    listKeys: unaryHandler(async (request: AccountRequest) => ({
      keys: (await listKeys(database, accountIdOf(request.accountId))).map(keyMessage),
    })),
    revokeKey: unaryHandler(async (request: KeyRequest) => {
      const accountId = accountIdOf(request.accountId);
      if (!z.uuid().safeParse(request.keyId).success) throw keyNotFound(request.keyId);
      return keyMessage(await revokeKey(database, announceRevocation, request.keyId, accountId));
    }),
  };
}

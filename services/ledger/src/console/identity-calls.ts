import { unaryHandler } from "@gateway/platform";
import type {
  AccountRequest,
  ConsoleServiceServer,
  FindOrCreateAccountByIdentityRequest,
  LinkIdentityRequest,
} from "@gateway/proto/ledger/v1/console";
import { parseInput } from "../admin/parse-input.js";
import { findOrCreateAccountByIdentity } from "../identities/find-or-create-account.js";
import { linkIdentity, listIdentities } from "../identities/link-identity.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf, identityInput } from "./requests.js";
import { accountMessage, identityMessage } from "./to-proto.js";

type IdentityCalls = Pick<ConsoleServiceServer, "findOrCreateAccountByIdentity" | "linkIdentity" | "listIdentities">;

/** Sign-ins: the account a sign-in names (made at its first sign-in), and the sign-ins linked to an account. */
export function identityCalls({ database }: ConsoleDependencies): IdentityCalls {
  return {
    findOrCreateAccountByIdentity: unaryHandler(async (request: FindOrCreateAccountByIdentityRequest) => {
      const { account, created } = await findOrCreateAccountByIdentity(database, parseInput(identityInput, request));
      return { account: accountMessage(account), created };
    }),
    linkIdentity: unaryHandler(async (request: LinkIdentityRequest) => {
      const { accountId, ...identity } = request;
      return identityMessage(await linkIdentity(database, accountIdOf(accountId), parseInput(identityInput, identity)));
    }),
    listIdentities: unaryHandler(async (request: AccountRequest) => ({
      identities: (await listIdentities(database, accountIdOf(request.accountId))).map(identityMessage),
    })),
  };
}

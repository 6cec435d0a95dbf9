import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The local OpenID provider's one client: the development console. */
export const devOidcClient = {
  clientId: "gateway-console",
  clientSecret: "gateway-console-dev-secret",
};

/** Who can sign in: any login with any password; `alice` is the documented test user. */
export const devOidcTestUser = { login: "alice", name: "Alice Example", email: "alice@example.test" };

export interface DevOidcProvider {
  issuer: string;
  port: number;
  close(): Promise<void>;
}

interface ProviderInstance {
  callback(): (request: unknown, response: unknown) => void;
  on(event: string, listener: (...args: unknown[]) => void): void;
}

const claimsOf = (login: string) =>
  login === devOidcTestUser.login
    ? { sub: login, name: devOidcTestUser.name, email: devOidcTestUser.email, email_verified: true }
    : { sub: login, name: login, preferred_username: login, email: `${login}@example.test`, email_verified: true };

/**
 * A real OpenID Connect provider (`oidc-provider`, an OpenID-certified implementation) for
 * development and tests: discovery, PKCE required, signed ID tokens, its own login and consent
 * pages. The client is a native app, so its loopback redirect URI may carry any port (RFC 8252
 * 7.3): the console's port is known only once it runs. Never for production.
 */
export async function startDevOidcProvider(options: { host?: string; port?: number; redirectUri: string }) {
  if (process.env.GATEWAY_ENV === "production") {
    throw new Error("the development OpenID provider never runs with GATEWAY_ENV=production");
  }
  const host = options.host ?? "127.0.0.1";
  let handle: (request: unknown, response: unknown) => void = () => undefined;
  const server: Server = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host}:${port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  // Loaded here, not at the top: only the processes that run the provider pay for it (and its
  // warning about Node 20). It ships no type declarations; the surface used is typed below.
  // @ts-expect-error
  const { default: Provider } = await import("oidc-provider");
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: devOidcClient.clientId,
        client_secret: devOidcClient.clientSecret,
        redirect_uris: [options.redirectUri],
        application_type: "native",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    pkce: { required: () => true },
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "dev", use: "sig", alg: "RS256" }] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
    findAccount: (_context: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => claimsOf(sub),
    }),
    features: { devInteractions: { enabled: true } },
  }) as ProviderInstance;
  handle = provider.callback();
  return {
    issuer,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  } satisfies DevOidcProvider;
}

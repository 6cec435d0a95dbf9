import type { ConsoleConfig } from "../config.js";
import { githubProvider } from "./github.js";
import type { SignInProvider } from "./identity.js";
import { oidcProvider } from "./oidc.js";

/** The sign-in methods the configuration turns on: GitHub with a client id, OpenID Connect with an issuer. */
export function signInProviders(config: ConsoleConfig): SignInProvider[] {
  const providers: SignInProvider[] = [];
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) {
    providers.push(
      githubProvider({
        clientId: config.GITHUB_CLIENT_ID,
        clientSecret: config.GITHUB_CLIENT_SECRET,
        authorizeUrl: config.CONSOLE_GITHUB_AUTHORIZE_URL,
        tokenUrl: config.CONSOLE_GITHUB_TOKEN_URL,
        apiUrl: config.CONSOLE_GITHUB_API_URL,
      }),
    );
  }
  if (config.OIDC_ISSUER && config.OIDC_CLIENT_ID) {
    providers.push(
      oidcProvider({
        issuer: config.OIDC_ISSUER,
        clientId: config.OIDC_CLIENT_ID,
        clientSecret: config.OIDC_CLIENT_SECRET,
        displayName: config.OIDC_DISPLAY_NAME,
        scopes: config.OIDC_SCOPES,
        allowHttp: config.GATEWAY_ENV === "development",
      }),
    );
  }
  return providers;
}

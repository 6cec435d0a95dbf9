import * as client from "openid-client";
import { type ProviderIdentity, SignInFailed, type SignInProvider } from "./identity.js";

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  displayName: string;
  scopes: string;
  /** Development only: lets the local provider speak plain HTTP. */
  allowHttp: boolean;
}

/**
 * Generic OpenID Connect with openid-client: discovery (done at first use, retried after a
 * failure), authorization code with PKCE (S256), `state` and `nonce`, and the ID token's
 * signature, issuer, audience, expiry and nonce checked by the library.
 */
export function oidcProvider(settings: OidcSettings): SignInProvider {
  let discovered: Promise<client.Configuration> | undefined;
  const configuration = () => {
    discovered ??= client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        undefined,
        settings.allowHttp ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw new SignInFailed("provider_unavailable", `OpenID discovery failed: ${String(error)}`);
      });
    return discovered;
  };
  return {
    id: "oidc",
    name: settings.displayName,
    async start(redirectUri, state) {
      const config = await configuration();
      const codeVerifier = client.randomPKCECodeVerifier();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: settings.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      return { url: url.toString(), codeVerifier, nonce };
    },
    async finish(callbackUrl, _redirectUri, pending): Promise<ProviderIdentity> {
      const config = await configuration();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new SignInFailed("provider_refused", error instanceof Error ? error.message : String(error));
      }
      const claims = tokens.claims();
      if (!claims) throw new SignInFailed("provider_error", "no ID token");
      // Many providers put only `sub` in the ID token and the profile at the UserInfo endpoint.
      const profile =
        claims.email || claims.name
          ? claims
          : await client.fetchUserInfo(config, tokens.access_token, claims.sub).catch(() => claims);
      const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined);
      return {
        provider: "oidc",
        subject: claims.sub,
        email: text(profile.email),
        displayName: text(profile.name) ?? text(profile.preferred_username) ?? text(profile.email),
      };
    },
  };
}

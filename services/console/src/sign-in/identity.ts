/** Who a provider says signed in. */
export interface ProviderIdentity {
  provider: string;
  subject: string;
  email?: string | undefined;
  displayName?: string | undefined;
}

/** One sign-in method: where to send the browser, and how to read the identity from the callback. */
export interface SignInProvider {
  id: "github" | "oidc";
  name: string;
  /** The authorization URL, and what must be kept until the callback (PKCE verifier, nonce). */
  start(redirectUri: string, state: string): Promise<{ url: string; codeVerifier?: string; nonce?: string }>;
  finish(
    callbackUrl: URL,
    redirectUri: string,
    pending: { state: string; codeVerifier?: string | undefined; nonce?: string | undefined },
  ): Promise<ProviderIdentity>;
}

/** The provider's refusal or an unusable answer: the browser goes back to the sign-in page with `code`. */
export class SignInFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

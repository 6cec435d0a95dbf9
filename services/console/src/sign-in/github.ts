import { z } from "zod";
import { type ProviderIdentity, SignInFailed, type SignInProvider } from "./identity.js";

export interface GithubSettings {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  apiUrl: string;
}

const tokenAnswer = z.object({ access_token: z.string().min(1) });
const tokenError = z.object({ error: z.string(), error_description: z.string().optional() });
const githubUser = z.object({
  id: z.number().int().positive(),
  login: z.string(),
  name: z.string().nullish(),
  email: z.string().nullish(),
});
const timeoutMs = 10_000;

async function exchangeCode(settings: GithubSettings, code: string, redirectUri: string): Promise<string> {
  const response = await fetch(settings.tokenUrl, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      code,
      redirect_uri: redirectUri,
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body: unknown = await response.json().catch(() => undefined);
  const token = tokenAnswer.safeParse(body);
  if (response.ok && token.success) return token.data.access_token;
  // GitHub answers a bad code with 200 and {"error": "bad_verification_code"}.
  const refusal = tokenError.safeParse(body);
  throw new SignInFailed(
    "provider_refused",
    refusal.success ? refusal.data.error : `token endpoint ${response.status}`,
  );
}

/** GitHub's OAuth web flow: authorize with `state`, code for a token, then `GET /user`. */
export function githubProvider(settings: GithubSettings): SignInProvider {
  return {
    id: "github",
    name: "GitHub",
    async start(redirectUri, state) {
      const url = new URL(settings.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: settings.clientId,
        redirect_uri: redirectUri,
        scope: "read:user user:email",
        state,
        allow_signup: "true",
      }).toString();
      return { url: url.toString() };
    },
    async finish(callbackUrl, redirectUri): Promise<ProviderIdentity> {
      const error = callbackUrl.searchParams.get("error");
      if (error) throw new SignInFailed("provider_refused", error);
      const code = callbackUrl.searchParams.get("code");
      if (!code) throw new SignInFailed("missing_code", "the callback carried no code");
      const accessToken = await exchangeCode(settings, code, redirectUri);
      const response = await fetch(`${settings.apiUrl.replace(/\/+$/, "")}/user`, {
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${accessToken}`,
          "user-agent": "unified-model-gateway-console",
        },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const user = githubUser.safeParse(await response.json().catch(() => undefined));
      if (!response.ok || !user.success)
        throw new SignInFailed("provider_error", `GET /user answered ${response.status}`);
      return {
        provider: "github",
        subject: String(user.data.id),
        email: user.data.email ?? undefined,
        displayName: user.data.name || user.data.login,
      };
    },
  };
}

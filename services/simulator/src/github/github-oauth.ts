import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { escapeMarkup } from "../escape-markup.js";
import { type Exchange, type SimulatorState, sendJson, writeHead } from "../http.js";

/** The simulated GitHub's one OAuth app; the console is configured with the same pair. */
export const simulatedGithubApp = {
  clientId: process.env.SIMULATOR_GITHUB_CLIENT_ID?.trim() || "sim-github-client",
  clientSecret: process.env.SIMULATOR_GITHUB_CLIENT_SECRET?.trim() || "sim-github-secret",
};

interface SimulatedUser {
  id: number;
  login: string;
  name: string;
  email: string;
}

interface Grant {
  user: SimulatedUser;
  redirectUri: string;
  expiresAt: number;
}

const codeLifetimeMs = 10 * 60_000;
const keptEntries = 10_000;

/** Codes and tokens the simulated GitHub handed out, in memory, bounded. */
export class GithubOAuthState {
  readonly codes = new Map<string, Grant>();
  readonly tokens = new Map<string, SimulatedUser>();

  remember<T>(map: Map<string, T>, key: string, value: T): void {
    map.set(key, value);
    if (map.size > keptEntries) map.delete(map.keys().next().value as string);
  }
}

// The same login is always the same user: a stable numeric id from its name, as GitHub's never changes.
function userOf(login: string): SimulatedUser {
  const id = createHash("sha256").update(login).digest().readUInt32BE(0) % 100_000_000;
  return { id: id + 1, login, name: `Simulated ${login}`, email: `${login}@users.simulator.invalid` };
}

const authorizeQuery = z.object({
  client_id: z.string(),
  redirect_uri: z.url(),
  state: z.string().max(512).optional(),
  scope: z.string().optional(),
});
const approveForm = authorizeQuery.extend({ login: z.string().regex(/^[A-Za-z0-9-]{1,39}$/) });

function sendHtml(exchange: Exchange, status: number, body: string): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>GitHub (simulated)</title></head><body><main>${body}</main></body></html>`;
  writeHead(exchange, status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
  });
  exchange.response.end(html);
}

const queryOf = (exchange: Exchange) =>
  Object.fromEntries(new URL(exchange.request.url ?? "/", "http://x").searchParams);

/** `GET /login/oauth/authorize`: GitHub's consent page, with a login field and an Authorize button. */
export function showAuthorizePage(exchange: Exchange): void {
  const query = authorizeQuery.safeParse(queryOf(exchange));
  if (!query.success || query.data.client_id !== simulatedGithubApp.clientId) {
    sendHtml(exchange, 404, "<h1>Unknown OAuth application</h1>");
    return;
  }
  const hidden = Object.entries(query.data)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeMarkup(String(value))}">`)
    .join("");
  sendHtml(
    exchange,
    200,
    `<h1>Authorize the gateway console</h1>
<form method="post" action="/login/oauth/authorize">${hidden}
<label>Sign in as <input name="login" id="login" value="octocat" required></label>
<button type="submit" id="authorize">Authorize</button></form>`,
  );
}

/** `POST /login/oauth/authorize`: approves and sends the browser back with a one-time code and the state. */
export function approve(exchange: Exchange, state: SimulatorState): void {
  const form = approveForm.safeParse(Object.fromEntries(new URLSearchParams(exchange.bodyText)));
  if (!form.success || form.data.client_id !== simulatedGithubApp.clientId) {
    sendHtml(exchange, 400, "<h1>Bad authorization request</h1>");
    return;
  }
  const code = randomBytes(10).toString("hex");
  state.github.remember(state.github.codes, code, {
    user: userOf(form.data.login),
    redirectUri: form.data.redirect_uri,
    expiresAt: Date.now() + codeLifetimeMs,
  });
  const back = new URL(form.data.redirect_uri);
  back.searchParams.set("code", code);
  if (form.data.state !== undefined) back.searchParams.set("state", form.data.state);
  writeHead(exchange, 302, { location: back.toString(), "content-length": 0 });
  exchange.response.end();
}

const tokenRequest = z.object({
  client_id: z.string(),
  client_secret: z.string(),
  code: z.string(),
  redirect_uri: z.string().optional(),
});

/** `POST /login/oauth/access_token`: a code (once, with the app's secret) for a token; GitHub's errors come with 200. */
export function exchangeCode(exchange: Exchange, state: SimulatorState): void {
  const fields = exchange.body ?? Object.fromEntries(new URLSearchParams(exchange.bodyText));
  const request = tokenRequest.safeParse(fields);
  if (
    !request.success ||
    request.data.client_id !== simulatedGithubApp.clientId ||
    request.data.client_secret !== simulatedGithubApp.clientSecret
  ) {
    sendJson(exchange, 200, { error: "incorrect_client_credentials" });
    return;
  }
  const grant = state.github.codes.get(request.data.code);
  state.github.codes.delete(request.data.code);
  const redirectMatches = !request.data.redirect_uri || request.data.redirect_uri === grant?.redirectUri;
  if (!grant || grant.expiresAt < Date.now() || !redirectMatches) {
    sendJson(exchange, 200, { error: "bad_verification_code" });
    return;
  }
  const token = `gho_${randomBytes(18).toString("hex")}`;
  state.github.remember(state.github.tokens, token, grant.user);
  sendJson(exchange, 200, { access_token: token, token_type: "bearer", scope: "read:user,user:email" });
}

/** `GET /github/api/user`: the signed-in user of a bearer token, else GitHub's 401. */
export function currentUser(exchange: Exchange, state: SimulatorState): void {
  const authorization = exchange.request.headers.authorization ?? "";
  const token = authorization.replace(/^(?:Bearer|token) /i, "");
  const user = state.github.tokens.get(token);
  if (!user) {
    sendJson(exchange, 401, { message: "Bad credentials", status: "401" });
    return;
  }
  sendJson(exchange, 200, { ...user, type: "User", avatar_url: null });
}

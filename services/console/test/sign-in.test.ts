import { randomBytes } from "node:crypto";
import { connectTestRedis, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, refreshSession, signInWithGithub, signInWithOidc } from "./browser.js";

let stack: TestStack;
let consoleUrl: string;
const run = randomBytes(4).toString("hex");

beforeAll(async () => {
  stack = await startTestStack({ console: true });
  consoleUrl = stack.consoleUrl!;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

describe("console sign-in", () => {
  it("lists the configured providers", async () => {
    const answer = await new Browser().api(`${consoleUrl}/api/auth/providers`);
    expect(answer.body.providers).toEqual([
      { id: "github", name: "GitHub" },
      { id: "oidc", name: "Local OpenID provider" },
    ]);
  });

  it("starts GitHub sign-in with a 302 carrying state, and refuses a callback whose state it never issued", async () => {
    const browser = new Browser();
    const start = await browser.request(`${consoleUrl}/api/auth/github`);
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get("location")!);
    expect(location.pathname).toBe("/login/oauth/authorize");
    expect(location.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(location.searchParams.get("redirect_uri")).toBe(`${consoleUrl}/api/auth/github/callback`);

    const forged = await new Browser().request(
      `${consoleUrl}/api/auth/github/callback?code=abc&state=${"x".repeat(43)}`,
    );
    expect(forged.status).toBe(302);
    expect(forged.headers.get("location")).toBe("/signin?error=invalid_state");
  });

  it("keeps nothing on the server for sign-ins that anyone starts: the pending state is the browser's cookie", async () => {
    const redis = await connectTestRedis(stack.redisUrl);
    try {
      const keys = () => redis.keys(`${stack.namespace}:*`);
      const before = await keys();
      const starts = await Promise.all(
        Array.from({ length: 200 }, () => new Browser().request(`${consoleUrl}/api/auth/github`)),
      );
      expect(starts.every((start) => start.status === 302)).toBe(true);
      expect((await keys()).sort()).toEqual(before.sort());
    } finally {
      await redis.quit();
    }
  });

  it("refuses a callback whose state is not the one its browser's sign-in started with", async () => {
    const browser = new Browser();
    await browser.request(`${consoleUrl}/api/auth/github`);
    const other = await browser.request(`${consoleUrl}/api/auth/github/callback?code=abc&state=${"y".repeat(43)}`);
    expect(other.headers.get("location")).toBe("/signin?error=invalid_state");
  });

  it("starts OpenID sign-in with PKCE (S256), state and nonce", async () => {
    const start = await new Browser().request(`${consoleUrl}/api/auth/oidc`);
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get("location")!);
    expect(location.origin).toBe(stack.oidcIssuer);
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    expect(location.searchParams.get("code_challenge")).toBeTruthy();
    expect(location.searchParams.get("nonce")).toBeTruthy();
    expect(location.searchParams.get("state")).toBeTruthy();
  });

  it("signs in through the GitHub simulator: the first sign-in creates the account, the next reaches it again", async () => {
    const login = `octo-${run}`;
    const first = await signInWithGithub(new Browser(), consoleUrl, login);
    expect(first.landedAt).toBe(`${consoleUrl}/`);
    expect(first.status).toBe(200);
    expect(first.session.account.balanceMicros).toBe(0);
    expect(first.session.identities).toEqual([
      expect.objectContaining({ provider: "github", displayName: `Simulated ${login}` }),
    ]);
    expect(first.session.isAdmin).toBe(false);

    const again = await signInWithGithub(new Browser(), consoleUrl, login);
    expect(again.session.account.id).toBe(first.session.account.id);
    const someoneElse = await signInWithGithub(new Browser(), consoleUrl, `other-${run}`);
    expect(someoneElse.session.account.id).not.toBe(first.session.account.id);
  });

  it("signs in through the OpenID provider's login and consent pages", async () => {
    const browser = new Browser();
    const signedIn = await signInWithOidc(browser, consoleUrl, `oidc-${run}`);
    expect(signedIn.landedAt).toBe(`${consoleUrl}/`);
    expect(signedIn.session.identities).toEqual([
      expect.objectContaining({ provider: "oidc", subject: `oidc-${run}`, email: `oidc-${run}@example.test` }),
    ]);
    const again = await signInWithOidc(new Browser(), consoleUrl, `oidc-${run}`);
    expect(again.session.account.id).toBe(signedIn.session.account.id);
  });

  it("links a second provider to the signed-in account, which then signs in to the same account", async () => {
    const browser = new Browser();
    const github = await signInWithGithub(browser, consoleUrl, `linker-${run}`);
    const linked = await signInWithOidc(browser, consoleUrl, `linked-${run}`, true);
    expect(linked.landedAt).toBe(`${consoleUrl}/settings?linked=oidc`);
    expect(linked.session.account.id).toBe(github.session.account.id);
    expect(linked.session.identities.map((identity: { provider: string }) => identity.provider).sort()).toEqual([
      "github",
      "oidc",
    ]);
    const throughOidc = await signInWithOidc(new Browser(), consoleUrl, `linked-${run}`);
    expect(throughOidc.session.account.id).toBe(github.session.account.id);
  });

  it("rotates the session id at sign-in and keeps the cookie httpOnly and SameSite=Lax", async () => {
    const browser = new Browser();
    await signInWithGithub(browser, consoleUrl, `rotate-${run}`);
    const [before] = await browser.jar.getCookies(consoleUrl);
    await signInWithGithub(browser, consoleUrl, `rotate-${run}`);
    const [after] = await browser.jar.getCookies(consoleUrl);
    expect(after!.key).toBe("console_session");
    expect(after!.httpOnly).toBe(true);
    expect(after!.sameSite).toBe("lax");
    expect(after!.value).not.toBe(before!.value);
  });

  it("refuses a state change without the CSRF token or from another origin", async () => {
    const browser = new Browser();
    await signInWithGithub(browser, consoleUrl, `csrf-${run}`);
    const key = { name: "k", group: "default" };
    const withoutToken = await browser.api(`${consoleUrl}/api/keys`, "POST", key, { "x-csrf-token": "" });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.error.code).toBe("csrf_failed");
    const otherOrigin = await browser.api(`${consoleUrl}/api/keys`, "POST", key, { origin: "https://evil.example" });
    expect(otherOrigin.status).toBe(403);
    const signOut = await browser.api(`${consoleUrl}/api/auth/sign-out`, "POST", undefined, { "x-csrf-token": "nope" });
    expect(signOut.status).toBe(403);
    expect((await browser.api(`${consoleUrl}/api/keys`)).body.keys).toEqual([]);
  });

  it("answers 401 without a session, and signs out this session only or every session of the account", async () => {
    expect((await new Browser().api(`${consoleUrl}/api/session`)).status).toBe(401);
    const [one, two, three] = [new Browser(), new Browser(), new Browser()];
    for (const browser of [one, two, three]) await signInWithGithub(browser, consoleUrl, `everywhere-${run}`);

    expect((await one.api(`${consoleUrl}/api/auth/sign-out`, "POST")).status).toBe(204);
    expect((await refreshSession(one, consoleUrl)).status).toBe(401);
    expect((await refreshSession(two, consoleUrl)).status).toBe(200);

    expect((await two.api(`${consoleUrl}/api/auth/sign-out-everywhere`, "POST")).status).toBe(204);
    expect((await refreshSession(two, consoleUrl)).status).toBe(401);
    expect((await refreshSession(three, consoleUrl)).status).toBe(401);
  });
});

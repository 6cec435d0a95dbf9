import { msUntilRefused, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI, { AuthenticationError } from "openai";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { ConsolePage } from "./console-pages.js";
import { screenshot } from "./screenshots.js";
import { fill, type Language, texts } from "./text.js";

// Operators in Chromium through the whole stack: an admin (CONSOLE_ADMIN_IDENTITIES) finds a
// customer, credits and disables them (the openai SDK then gets 401 from edge within 2 s),
// grants a helper the support role, who cannot grant roles; the audit log shows every step.

let stack: TestStack;
let consoleUrl: string;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ console: true, serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: "oidc:root" } } }),
    launchChromium(),
  ]);
  consoleUrl = stack.consoleUrl!;
});

afterAll(async () => {
  await browser?.close();
  await stack?.teardown();
});

async function signedIn(language: Language, signIn: (page: Page) => Promise<void>) {
  const context = await browser.newContext({
    locale: language,
    viewport: { width: 1280, height: 900 },
    reducedMotion: "reduce",
  });
  // Creating a key checks that Copy put it on the clipboard.
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: consoleUrl });
  const app = new ConsolePage(await context.newPage(), consoleUrl, language);
  await app.open("/signin");
  await signIn(app.page);
  await app.page.waitForURL(`${consoleUrl}/`);
  return { context, app };
}

/** The simulator's GitHub consent page. */
const github = (login: string) => async (page: Page) => {
  await page.getByRole("link", { name: /GitHub/ }).click();
  await page.locator("#login").fill(login);
  await page.locator("#authorize").click();
};

/** oidc-provider's development login and consent pages. */
const openId = (login: string) => async (page: Page) => {
  await page.getByRole("link", { name: /OpenID/ }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any");
  await page.locator('button[type="submit"]').click();
  const consent = page.locator('button[type="submit"]');
  if (!page.url().startsWith(consoleUrl)) await consent.click();
};

/** A state change from inside the page, with the session's CSRF token as the app sends it. */
const postFromPage = (page: Page, path: string, body: unknown) =>
  page.evaluate(
    async ({ path, body }) => {
      const session = (await (await fetch("/api/session")).json()) as { csrfToken: string };
      const response = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    },
    { path, body },
  );

async function openAuditLog(app: ConsolePage): Promise<void> {
  await app.navigate(app.text.nav.admin);
  await app.page.getByRole("tab", { name: app.text.operators.audit }).click();
  await app.page.getByTestId("audit-log").waitFor();
}

describe("operators in a browser", { timeout: 180_000 }, () => {
  for (const language of ["zh-CN", "en"] as const) {
    const text = texts[language];
    it(`finds an account, credits it, disables it so edge refuses its key within 2 s, and shows each step in the audit log (${language})`, async () => {
      const customerLogin = `customer-${language}`;
      // The simulator's GitHub names its users so, and the first sign-in names the account.
      const accountName = `Simulated ${customerLogin}`;
      const customer = await signedIn(language, github(customerLogin));
      const apiKey = await customer.app.createKey("abuser");
      const client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
      await client.models.list();

      const { context, app } = await signedIn(language, openId("root"));
      const { page } = app;
      await app.navigate(text.nav.admin);
      await page.getByLabel(text.common.search).fill(customerLogin);
      const link = page.getByRole("link", { name: accountName, exact: true });
      await link.waitFor();
      // The search is debounced: the whole list shows first, then only the match (and the header).
      await expect.poll(() => page.getByRole("row").count()).toBe(2);
      await screenshot(page, `admin-search.${language}`);
      await link.click();
      await page.getByRole("heading", { name: accountName }).waitFor();

      await page.getByRole("button", { name: text.admin.adjust }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel(text.admin.amount).fill("8");
      await dialog.getByLabel(text.admin.reason).fill("Browser test: refund");
      await dialog.getByRole("button", { name: text.admin.adjust }).click();
      await dialog.waitFor({ state: "detached" });
      await expect.poll(() => page.getByTestId("operator-balance").textContent()).toBe("¥8.00");

      await page.getByRole("button", { name: text.operators.disable }).click();
      await page.getByRole("dialog", { name: fill(text.operators.disableTitle, { name: accountName }) }).waitFor();
      await page.getByRole("dialog").getByRole("button", { name: text.operators.disable }).click();
      expect(
        await msUntilRefused(
          () => client.models.list(),
          (error) => error instanceof AuthenticationError,
        ),
      ).toBeLessThan(2_000);
      await page.getByTestId("account-state").getByText(text.operators.state.disabled).waitFor();
      await page.getByRole("button", { name: text.operators.enable }).waitFor();
      const audit = page.getByTestId("audit-log");
      await audit.getByText("account.disable").waitFor();
      await audit.getByText("account.adjust_credit").waitFor();
      await screenshot(page, `admin-account-disabled.${language}`);

      // The customer's session ended with the disabling.
      await customer.app.open("/keys");
      await customer.app.page.waitForURL("**/signin");
      await customer.context.close();

      await openAuditLog(app);
      const rows = page.getByTestId("audit-log").getByRole("row");
      await rows.filter({ hasText: "account.disable" }).first().waitFor();
      await rows.filter({ hasText: "account.adjust_credit" }).first().waitFor();
      await context.close();
    });
  }

  it("lets an admin grant the support role in the console; support cannot grant roles (403); the grant is audited", async () => {
    const helper = await signedIn("en", github("helper"));
    const identity = (await helper.app.page.evaluate(async () => {
      const session = (await (await fetch("/api/session")).json()) as {
        identities: { provider: string; subject: string }[];
      };
      return session.identities[0]!;
    })) as { provider: string; subject: string };
    const grantee = `${identity.provider}:${identity.subject}`;

    const { context, app } = await signedIn("zh-CN", openId("root"));
    const { page, text } = app;
    await app.navigate(text.nav.admin);
    await page.getByRole("tab", { name: text.operators.roles }).click();
    await page.getByLabel(text.operators.grantee).fill(grantee);
    await page.getByRole("combobox", { name: text.operators.role }).click();
    await page.getByRole("option", { name: text.operators.roleNames.support }).click();
    await page.getByRole("button", { name: text.operators.grant }).click();
    await page.getByRole("row").filter({ hasText: grantee }).waitFor();
    await screenshot(page, "admin-roles.zh-CN");

    await helper.app.page.reload();
    await helper.app.navigate(texts.en.nav.admin);
    await helper.app.page.getByRole("tab", { name: texts.en.operators.roles }).click();
    await helper.app.page.getByText(texts.en.operators.adminOnly).waitFor();
    const refused = await postFromPage(helper.app.page, "/api/admin/roles", { grantee: "github:1", role: "admin" });
    expect(refused).toEqual({ status: 403, body: { error: expect.objectContaining({ code: "admin_only" }) } });
    await openAuditLog(helper.app);
    await helper.app.page.getByTestId("audit-log").getByRole("row").filter({ hasText: "role.grant" }).waitFor();
    await screenshot(helper.app.page, "admin-audit.en");
    await helper.context.close();

    await openAuditLog(app);
    await page.getByRole("row").filter({ hasText: "role.grant" }).waitFor();
    await screenshot(page, "admin-audit.zh-CN");
    await context.close();
  });
});

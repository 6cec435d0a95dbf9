import { eventually, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { ConsolePage } from "./console-pages.js";
import { layoutProblems, toastsOverHeader } from "./layout-checks.js";
import { screenshot } from "./screenshots.js";
import type { Language, texts } from "./text.js";

// Every page of the console, holding real data (a paid and an unpaid order, requests, a code
// batch, a catalogue change), at a desktop's 1400 px and a phone's 390 px, in both languages:
// no status badge cut by an ellipsis, no table wider than its box outside a sideways scroll,
// no page wider than the screen, and the top-up toast clear of the header.

const ADMIN_LOGIN = "layout-admin";
const WIDTHS = [1400, 390] as const;
const LANGUAGES: Language[] = ["en", "zh-CN"];

let stack: TestStack;
let consoleUrl: string;
let browser: Browser;
let signedIn: Awaited<ReturnType<BrowserContext["storageState"]>>;
let accountId: string;
let requestId: string;

/** A console API call from inside the page, with its session cookie and CSRF token. */
async function call(page: Page, method: string, path: string, body?: unknown) {
  const answer = await page.evaluate(
    async ({ method, path, body }) => {
      const session = (await (await fetch("/api/session")).json()) as { csrfToken: string };
      const response = await fetch(path, {
        method,
        headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    },
    { method, path, body },
  );
  // biome-ignore lint/suspicious/noExplicitAny: the assertions check the answers' shape
  return { status: answer.status, body: JSON.parse(answer.text) as Record<string, any> };
}

/** Presses the simulator's pay page button, as the buyer's phone would. */
async function payAtProvider(qrCode: string) {
  const paid = await fetch(qrCode, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  expect(paid.status).toBe(200);
}

/** The data the pages show: requests (one streamed), orders paid and awaiting payment, codes, a catalogue change. */
async function seed(page: Page) {
  const paid = await call(page, "POST", "/api/topups", { provider: "wechat", amountFen: 1_000 });
  await payAtProvider(paid.body.payment.qrCode);
  await eventually(async () =>
    (await call(page, "GET", "/api/session")).body.account.balanceMicros > 0 ? true : undefined,
  );
  const key = await call(page, "POST", "/api/keys", { name: "layout check key", group: "default" });
  expect(key.status).toBe(201);
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: key.body.apiKey, maxRetries: 0 });
  const messages = [{ role: "user" as const, content: "Layout test" }];
  const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages });
  requestId = completion._request_id!;
  for await (const _chunk of await client.chat.completions.create({ model: "gpt-4o-mini", messages, stream: true }));
  expect((await call(page, "POST", "/api/topups", { provider: "alipay", amountFen: 12_345 })).status).toBe(201);
  expect((await call(page, "POST", "/api/admin/codes", { amountFen: 500, count: 2, note: "layout" })).status).toBe(201);
  const change = await call(page, "POST", "/api/admin/catalogue/changes", {
    action: "model.update",
    name: "gpt-4o-mini",
    patch: {
      price: { input: 1_200_000, output: 4_800_000 },
      price_reason: "layout test: a reason long enough to wrap",
    },
  });
  expect(change.status).toBe(200);
  // Usage lands asynchronously: the pages are looked at once ledger has both requests.
  await eventually(
    async () => ((await call(page, "GET", "/api/usage")).body.records.length >= 2 ? true : undefined),
    20_000,
  );
}

/**
 * Goes to `path` within the app, as a click on a link does (loading the whole app for each view
 * would take most of the test's time), and waits until its page is drawn: a heading that was
 * not there before.
 */
async function goWithin(page: Page, path: string) {
  await page.evaluate(`document.querySelectorAll("h2").forEach((heading) => heading.setAttribute("data-left", ""));
    history.pushState(null, "", ${JSON.stringify(path)});
    dispatchEvent(new PopStateEvent("popstate"));`);
  await until(page, `document.querySelector("h2:not([data-left])") !== null`);
}

/** Polls an expression in the page until it is true (evaluated over CDP: the console's CSP forbids eval in the page). */
async function until(page: Page, expression: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Nothing loading any more, and two frames painted since. */
async function settled(page: Page) {
  await until(page, `document.querySelector(".mantine-Loader-root") === null`);
  await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");
}

type Text = (typeof texts)[Language];

interface View {
  name: string;
  path: string;
  /** The tab to open, by its label. */
  tab?: (text: (typeof texts)[Language]) => string;
}

const views = (): View[] => [
  { name: "overview", path: "/" },
  { name: "usage", path: "/usage" },
  { name: "statistics", path: "/statistics" },
  { name: "logs", path: "/logs" },
  { name: "log-viewer", path: `/logs/${requestId}` },
  { name: "keys", path: "/keys" },
  { name: "topup", path: "/topup" },
  { name: "settings", path: "/settings" },
  { name: "pricing", path: "/pricing" },
  { name: "admin-accounts", path: "/admin" },
  ...(
    [
      ["roles", (text: Text) => text.operators.roles],
      ["audit", (text: Text) => text.operators.audit],
      ["channels", (text: Text) => text.channels.title],
      ["models", (text: Text) => text.catalogueEdit.modelsTab],
      ["groups", (text: Text) => text.catalogueEdit.groupsTab],
      ["catalogue", (text: Text) => text.catalogue.title],
      ["catalogue-history", (text: Text) => text.catalogueEdit.historyTab],
    ] as const
  ).map(([name, tab]) => ({ name: `admin-${name}`, path: "/admin", tab })),
  { name: "admin-account", path: `/admin/accounts/${accountId}` },
  { name: "operations-glance", path: "/operations" },
  { name: "operations-orders", path: "/operations", tab: (text) => text.ops.orders },
  { name: "operations-codes", path: "/operations", tab: (text) => text.ops.codes },
];

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ console: true, serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: `oidc:${ADMIN_LOGIN}` } } }),
    launchChromium(),
  ]);
  consoleUrl = stack.consoleUrl!;
  const context = await browser.newContext({ locale: "en", viewport: { width: 1400, height: 900 } });
  const app = new ConsolePage(await context.newPage(), consoleUrl, "en");
  await app.open("/signin");
  await app.signInWith("Local OpenID provider");
  await app.page.locator('input[name="login"]').fill(ADMIN_LOGIN);
  await app.page.locator('input[name="password"]').fill("any");
  await app.page.locator('button[type="submit"]').click();
  // oidc-provider's consent page.
  await app.page.locator('button[type="submit"]').click();
  await app.page.waitForURL(`${consoleUrl}/`);
  const session = await app.session();
  expect(session?.isAdmin).toBe(true);
  accountId = session!.account.id;
  await seed(app.page);
  signedIn = await context.storageState();
  await context.close();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.teardown();
});

describe("the console's layout on real data", { timeout: 120_000 }, () => {
  it.each(WIDTHS.flatMap((width) => LANGUAGES.map((language) => [width, language] as const)))(
    "hides nothing at %i px in %s",
    async (width, language) => {
      const context = await browser.newContext({
        locale: language,
        viewport: { width, height: 900 },
        reducedMotion: "reduce",
        storageState: signedIn,
      });
      const app = new ConsolePage(await context.newPage(), consoleUrl, language);
      const { page, text } = app;
      const problems: string[] = [];
      await app.open("/usage");
      let shown = "";
      for (const view of views()) {
        if (view.path !== shown) await goWithin(page, view.path);
        shown = view.path;
        if (view.tab) await page.getByRole("tab", { name: view.tab(text), exact: true }).click();
        await settled(page);
        problems.push(...(await layoutProblems(page)).map((problem) => `${view.name}: ${problem}`));
        if (process.env.LAYOUT_SCREENSHOTS) await screenshot(page, `layout-${view.name}.${language}.${width}`);
      }

      // A payment's toast, where the header's name, balance and language menu must stay readable.
      await app.open("/topup");
      await page.getByLabel(text.topup.amount).fill("1");
      await page.getByRole("button", { name: text.topup.pay, exact: true }).click();
      const payLink = page.getByRole("link", { name: text.topup.openPayPage });
      await payLink.waitFor();
      await payAtProvider((await payLink.getAttribute("href"))!);
      await page.locator(".mantine-Notification-root").first().waitFor();
      problems.push(...(await toastsOverHeader(page)).map((problem) => `topup: ${problem}`));
      await context.close();
      expect(problems).toEqual([]);
    },
  );
});

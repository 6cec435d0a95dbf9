import { eventually, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI, { AuthenticationError } from "openai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { ConsolePage } from "./console-pages.js";
import { screenshot } from "./screenshots.js";
import { fill, type Language, texts } from "./text.js";

// The console through the whole running stack in Chromium: sign-in with the simulator's GitHub
// and the local OpenID provider, payments through the simulator's WeChat Pay and Alipay pages,
// and a key the official openai SDK uses through edge.

const zh = texts["zh-CN"];
const en = texts.en;
const OIDC_NAME = "Local OpenID provider";
// A one-pixel PNG: the log keeps a data URL's header and size, not the image.
const PIXEL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * The admin page's channel and catalogue tabs: every channel healthy (the simulator answers),
 * and gpt-4o-mini's shipped prices (1,080,000 and 4,320,000 micro-yuan per million tokens) in yuan.
 */
async function showRouterViews(page: Page, text: (typeof texts)[Language], language: Language): Promise<void> {
  await page.getByRole("tab", { name: text.channels.title }).click();
  const channel = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "openai-main", exact: true }) });
  await channel.getByText(text.channels.state.closed, { exact: true }).waitFor();
  await screenshot(page, `admin-channels.${language}`);

  await page.getByRole("tab", { name: text.catalogue.title }).click();
  await page.getByRole("cell", { name: "default", exact: true }).first().waitFor();
  await screenshot(page, `admin-catalogue.${language}`);
  await page.getByLabel(text.common.search).fill("gpt-4o-mini");
  const model = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "gpt-4o-mini", exact: true }) });
  await model.getByRole("cell", { name: "¥1.08", exact: true }).waitFor();
  await model.getByRole("cell", { name: "¥4.32", exact: true }).waitFor();
  expect(await page.getByRole("row").filter({ hasText: "claude" }).count()).toBe(0);
}

/**
 * The public price list's groups: gpt-4o-mini's shipped prompt price (1,080,000 micro-yuan per
 * million tokens) is ¥1.08 in default and ¥1.62 in premium (1.5x); found by id or vendor, and
 * one group alone when filtered.
 */
async function showPriceList(page: Page, text: (typeof texts)[Language]): Promise<void> {
  const search = page.getByLabel(text.common.search);
  const rowIn = (group: string, model: string) =>
    page
      .getByRole("region", { name: group })
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name: model, exact: true }) });
  await search.fill("gpt-4o-mini");
  await rowIn("default", "gpt-4o-mini").getByRole("cell", { name: "¥1.08", exact: true }).first().waitFor();
  await rowIn("premium", "gpt-4o-mini").getByRole("cell", { name: "¥1.62", exact: true }).first().waitFor();
  expect(await page.getByRole("row").filter({ hasText: "claude" }).count()).toBe(0);

  // A per-image model has no token prices: a dash, never ¥0.00.
  await search.fill("imagen-4.0-generate-001");
  const perImage = rowIn("premium", "imagen-4.0-generate-001");
  await perImage.getByRole("cell", { name: "—", exact: true }).first().waitFor();
  expect(await perImage.getByRole("cell", { name: "¥0.00", exact: true }).count()).toBe(0);

  await search.fill("anthropic");
  await page.getByRole("row").filter({ hasText: "claude" }).first().waitFor();
  expect(await page.getByRole("row").filter({ hasText: "gpt-4o-mini" }).count()).toBe(0);

  await page.getByRole("combobox", { name: text.catalogue.group }).click();
  await page.getByRole("option", { name: "premium", exact: true }).click();
  await page.getByRole("region", { name: "default" }).waitFor({ state: "detached" });
  await page.getByRole("region", { name: "premium" }).waitFor();
  await search.fill("");
}

let stack: TestStack;
let consoleUrl: string;
let browser: Browser;

async function newContext(locale = "zh-CN"): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale,
    viewport: { width: 1280, height: 860 },
    reducedMotion: "reduce",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: consoleUrl });
  return context;
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ console: true, serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: "oidc:alice" } } }),
    launchChromium(),
  ]);
  consoleUrl = stack.consoleUrl!;
});

afterAll(async () => {
  await browser?.close();
  await stack?.teardown();
});

/** A conversation with every kind of turn the log viewer draws. */
const conversation: OpenAI.ChatCompletionMessageParam[] = [
  { role: "system", content: "You answer about the weather." },
  {
    role: "user",
    content: [
      { type: "text", text: "What is the weather in Paris? (console browser test)" },
      { type: "image_url", image_url: { url: PIXEL } },
    ],
  },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_weather", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_weather", content: '{"celsius":21}' },
];

// Each flow drives a real Chromium through a dozen pages and two payments; on a busy 2-core
// machine that has taken longer than the suite's 30 s default.
describe("the console in a browser", { timeout: 120_000 }, () => {
  it("signs in with GitHub, tops up with WeChat Pay and Alipay, makes a key the SDK uses, shows the request, revokes the key and signs out", async () => {
    const context = await newContext();
    const app = new ConsolePage(await context.newPage(), consoleUrl);
    const { page } = app;

    await app.open("/");
    await page.waitForURL("**/signin");
    await screenshot(page, "signin.zh-CN");
    await app.signInWith("GitHub");
    // The simulator's GitHub consent page.
    await page.locator("#login").fill("octocat");
    await page.locator("#authorize").click();
    await page.waitForURL(`${consoleUrl}/`);
    await expect.poll(() => page.getByTestId("balance").textContent()).toBe("¥0.00");

    await app.topUp(context, 1, "wechat");
    expect(await app.balanceMicros()).toBe(1_000_000);
    await expect.poll(() => page.getByTestId("header-balance").textContent()).toBe("¥1.00");
    await screenshot(page, "topup.zh-CN");

    const keyName = "browser-test";
    const apiKey = await app.createKey(keyName);
    await screenshot(page, "key-created.zh-CN", [page.getByTestId("new-api-key")]);
    await app.closeShownKey();
    // A key made without an expiry never expires (not "never happened").
    const keyRow = page.getByRole("row").filter({ hasText: keyName });
    await keyRow.getByRole("cell", { name: zh.common.noExpiry, exact: true }).waitFor();

    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: conversation,
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
    });
    const requestId = completion._request_id!;
    const answer = completion.choices[0]!.message.content!;
    await screenshot(page, "keys.zh-CN");

    // Usage is recorded asynchronously: the record appears once ledger has it.
    await app.navigate(zh.nav.usage);
    const requestLink = page.getByRole("link", { name: requestId });
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByRole("heading", { name: zh.usage.title }).waitFor();
          await page.getByRole("table").waitFor();
          return requestLink.count();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(1);
    await screenshot(page, "usage.zh-CN");

    await requestLink.click();
    await page.getByText("What is the weather in Paris? (console browser test)").waitFor();
    await page.getByText(fill(zh.logs.toolCall, { name: "get_weather" })).waitFor();
    await page.getByText(fill(zh.logs.toolResult, { id: "call_weather" })).waitFor();
    await page.getByTestId("turn-answer").getByText(answer).waitFor();
    await screenshot(page, "log-viewer.zh-CN");
    // The metadata in words: the request was not streamed, and its messages were kept.
    const field = (label: string) => page.getByText(label, { exact: true }).locator("xpath=..");
    expect(await field(zh.usage.stream).textContent()).toBe(`${zh.usage.stream}${zh.common.no}`);
    expect(await field(zh.logs.capture).textContent()).toBe(`${zh.logs.capture}${zh.settings.captureLevel.full}`);

    await app.navigate(zh.nav.logs);
    await page.getByRole("link", { name: requestId }).waitFor();
    await screenshot(page, "logs.zh-CN");

    await app.navigate(zh.nav.statistics);
    await expect.poll(() => page.getByTestId("total-requests").textContent()).toBe("1");
    await page.getByRole("cell", { name: "gpt-4o-mini" }).waitFor();
    await screenshot(page, "statistics.zh-CN");

    const beforeAlipay = await app.balanceMicros();
    expect(beforeAlipay).toBeLessThan(1_000_000);
    // "Pay" again reuses the order awaiting payment; left, the order is offered again from its row.
    const alipayOrder = await app.startTopUp(5, "alipay");
    expect(await app.startTopUp(5, "alipay")).toBe(alipayOrder);
    await app.navigate(zh.nav.overview);
    await app.navigate(zh.nav.topup);
    const awaiting = page.getByTestId("order-history").getByRole("row").filter({ hasText: zh.topup.state.created });
    await awaiting.first().waitFor();
    expect(await awaiting.count()).toBe(1);
    expect(await awaiting.textContent()).toContain(alipayOrder);
    await awaiting.getByRole("button", { name: zh.topup.resume }).click();
    expect(await app.shownOrder("alipay")).toBe(alipayOrder);
    await app.payShownOrder(context);
    expect(await app.balanceMicros()).toBe(beforeAlipay + 5_000_000);
    await awaiting.waitFor({ state: "detached" });
    await page.getByTestId("order-history").getByText(zh.topup.alipay).waitFor();

    await app.navigate(zh.nav.overview);
    await expect
      .poll(() => page.getByTestId("balance").textContent())
      .toBe(`¥${((beforeAlipay + 5_000_000) / 1e6).toFixed(2)}`);
    await screenshot(page, "overview.zh-CN");

    await app.revokeKey(keyName);
    await screenshot(page, "keys-revoked.zh-CN");
    // Revocation reaches edge's key cache within seconds.
    const refused = await eventually(
      () =>
        client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      5_000,
      200,
    );
    expect(refused).toBeInstanceOf(AuthenticationError);

    await app.navigate(zh.nav.settings);
    await page
      .getByRole("cell", { name: /octocat/ })
      .first()
      .waitFor();
    // Who is signed in, as the CLI names them, with the command that makes them the admin.
    const session = (await app.session())!;
    await expect.poll(() => page.getByTestId("account-id").textContent()).toBe(session.account.id);
    expect(await page.getByTestId("grant-command").textContent()).toMatch(/^pnpm -s gw admin grant github:\S+$/);
    await screenshot(page, "settings.zh-CN");

    await app.switchLanguage("en");
    await page.getByRole("heading", { name: en.settings.title }).waitFor();
    for (const [label, name] of [
      [en.nav.overview, "overview"],
      [en.nav.usage, "usage"],
      [en.nav.statistics, "statistics"],
      [en.nav.logs, "logs"],
      [en.nav.keys, "keys"],
      [en.nav.topup, "topup"],
      [en.nav.settings, "settings"],
    ] as const) {
      await app.navigate(label);
      await page.getByRole("heading", { level: 2 }).first().waitFor();
      await screenshot(page, `${name}.en`);
    }
    await page.getByRole("link", { name: requestId }).count();
    await app.open(`/logs/${requestId}`);
    await page.getByText(fill(en.logs.toolCall, { name: "get_weather" })).waitFor();
    await screenshot(page, "log-viewer.en");

    await app.navigate(en.nav.settings);
    await page.getByRole("button", { name: en.settings.signOut, exact: true }).click();
    await page.waitForURL("**/signin");
    await page.getByRole("heading", { name: en.signin.title }).waitFor();
    await screenshot(page, "signin.en");
    expect(await app.session()).toBeNull();
    await app.open("/keys");
    await page.waitForURL("**/signin");
    // Every page above ran under the console's Content-Security-Policy without a refusal.
    const policy = (await page.request.get(new URL("/", consoleUrl).toString())).headers()["content-security-policy"];
    expect(policy).toContain("script-src 'self'");
    expect(app.refusedByPolicy).toEqual([]);
    await context.close();
  });

  it("signs in with the OpenID provider as an admin who adjusts an account's credit, on a phone-width screen too", async () => {
    const context = await newContext();
    const app = new ConsolePage(await context.newPage(), consoleUrl);
    const { page } = app;
    await app.open("/signin");
    await app.signInWith(OIDC_NAME);
    // oidc-provider's development login and consent pages.
    await page.locator('input[name="login"]').fill("alice");
    await page.locator('input[name="password"]').fill("any");
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${consoleUrl}/`);
    expect((await app.session())?.isAdmin).toBe(true);

    // Linking GitHub to this account: the settings page lists both sign-ins afterwards.
    await app.navigate(zh.nav.settings);
    await page.getByRole("link", { name: fill(zh.settings.link, { name: "GitHub" }) }).click();
    await page.locator("#login").fill("alice-on-github");
    await page.locator("#authorize").click();
    await page.waitForURL(`${consoleUrl}/settings`);
    await page.getByRole("cell", { name: "GitHub", exact: true }).waitFor();
    await page.getByRole("cell", { name: OIDC_NAME, exact: true }).waitFor();
    await screenshot(page, "settings-linked.zh-CN");

    await app.navigate(zh.nav.admin);
    const row = page.getByRole("row").filter({ hasText: "octocat" });
    await row.waitFor();
    await screenshot(page, "admin.zh-CN");
    // Credit is adjusted on the account's own page.
    await row.getByRole("link", { name: "octocat" }).click();
    await page.getByRole("button", { name: zh.admin.adjust }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel(zh.admin.amount).fill("2.5");
    await dialog.getByLabel(zh.admin.reason).fill("Browser test goodwill credit");
    await dialog.getByRole("button", { name: zh.admin.adjust }).click();
    await page.getByText(new RegExp(fill(zh.admin.adjusted, { balance: "" }))).waitFor();
    await dialog.waitFor({ state: "detached" });

    await app.navigate(zh.nav.admin);
    await showRouterViews(page, zh, "zh-CN");

    await app.switchLanguage("en");
    await app.navigate(en.nav.admin);
    // The tabs keep the one last open.
    await page.getByRole("tab", { name: en.admin.title }).click();
    await page.getByRole("row").filter({ hasText: "octocat" }).waitFor();
    await screenshot(page, "admin.en");
    await showRouterViews(page, en, "en");

    await page.setViewportSize({ width: 390, height: 844 });
    await app.open("/");
    await page.getByTestId("balance").waitFor();
    await screenshot(page, "overview.phone.en");
    await page.getByRole("button", { name: en.nav.menu }).click();
    await app.navigate(en.nav.topup);
    await page.getByRole("heading", { name: en.topup.title }).waitFor();
    await screenshot(page, "topup.phone.en");
    await context.close();
  });

  it("opens in the browser's language until the user picks one, which then sticks", async () => {
    const context = await newContext("en-US");
    const app = new ConsolePage(await context.newPage(), consoleUrl, "en");
    const { page } = app;
    await app.open("/signin");
    await page.getByRole("heading", { name: en.signin.title }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("en");

    await app.switchLanguage("zh-CN");
    await page.reload();
    await page.getByRole("heading", { name: zh.signin.title }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
    await context.close();
  });

  it("shows anyone the price list without signing in: each group's prices after its multiplier, in both languages", async () => {
    const context = await newContext();
    const page = await context.newPage();
    const app = new ConsolePage(page, consoleUrl);
    await app.open("/signin");
    await page.getByRole("link", { name: zh.nav.pricing }).click();
    await page.waitForURL("**/pricing");
    await page.getByRole("heading", { name: zh.pricing.title }).waitFor();
    await page.getByRole("region", { name: "premium" }).getByRole("cell", { name: "gpt-4o-mini" }).first().waitFor();
    await screenshot(page, "pricing.zh-CN");
    await showPriceList(page, zh);

    await app.open("/pricing");
    await app.switchLanguage("en");
    await page.getByRole("region", { name: "premium" }).getByRole("cell", { name: "gpt-4o-mini" }).first().waitFor();
    await screenshot(page, "pricing.en");
    await showPriceList(page, en);
    await context.close();
  });
});

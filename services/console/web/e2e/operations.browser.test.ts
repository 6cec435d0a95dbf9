import { startTestStack, type TestStack } from "@gateway/stack";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { ConsolePage } from "./console-pages.js";
import { screenshot } from "./screenshots.js";
import { fill, type Language, texts } from "./text.js";

// The operators' Operations page in Chromium: an admin makes a batch of prepaid codes, a
// customer redeems one on the top-up page and sees the balance rise, and the admin finds the
// redemption among every order and in the overview; in Chinese and in English.

const zh = texts["zh-CN"];
const en = texts.en;
const ADMIN_LOGIN = "ops-admin";

let stack: TestStack;
let consoleUrl: string;
let browser: Browser;

async function newContext(locale: Language): Promise<BrowserContext> {
  return browser.newContext({ locale, viewport: { width: 1280, height: 860 }, reducedMotion: "reduce" });
}

/** oidc-provider's development login and consent pages, as the admin identity the stack names. */
async function signInAsAdmin(app: ConsolePage): Promise<void> {
  const { page } = app;
  await app.open("/signin");
  await app.signInWith("Local OpenID provider");
  await page.locator('input[name="login"]').fill(ADMIN_LOGIN);
  await page.locator('input[name="password"]').fill("any");
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
  await page.waitForURL(`${consoleUrl}/`);
  expect((await app.session())?.isAdmin).toBe(true);
}

async function signInWithGithub(app: ConsolePage, login: string): Promise<void> {
  await app.open("/signin");
  await app.signInWith("GitHub");
  await app.page.locator("#login").fill(login);
  await app.page.locator("#authorize").click();
  await app.page.waitForURL(`${consoleUrl}/`);
}

/** Makes a batch on the codes tab and answers its clear codes, read from the dialog that shows them once. */
async function createBatch(app: ConsolePage, yuan: string, count: string, note: string): Promise<string[]> {
  const { page, text } = app;
  await page.getByRole("tab", { name: text.ops.codes }).click();
  await page.getByLabel(text.ops.amount).fill(yuan);
  await page.getByLabel(text.ops.count).fill(count);
  await page.getByLabel(text.ops.note).fill(note);
  await page.getByRole("button", { name: text.ops.create }).click();
  const dialog = page.getByRole("dialog", { name: fill(text.ops.created, { count }) });
  await dialog.getByText(text.ops.shownOnce).waitFor();
  const codes = await dialog.getByTestId("created-codes").locator("code").allTextContents();
  expect(codes).toHaveLength(Number(count));
  for (const code of codes) expect(code).toMatch(/^GW(-[0-9A-Z]{5}){5}$/);
  return codes;
}

async function redeem(page: Page, text: (typeof texts)[Language], code: string): Promise<void> {
  await page.getByTestId("redeem-code").fill(code);
  await page.getByRole("button", { name: text.redeem.submit, exact: true }).click();
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ console: true, serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: `oidc:${ADMIN_LOGIN}` } } }),
    launchChromium(),
  ]);
  consoleUrl = stack.consoleUrl!;
});

afterAll(async () => {
  await browser?.close();
  await stack?.teardown();
});

describe("the Operations page in a browser", { timeout: 120_000 }, () => {
  it("lets an admin make prepaid codes that a customer redeems on the top-up page, then shows the order and the day's top-ups", async () => {
    const adminContext = await newContext("zh-CN");
    const admin = new ConsolePage(await adminContext.newPage(), consoleUrl, "zh-CN");
    await signInAsAdmin(admin);
    await admin.navigate(zh.nav.operations);
    const codes = await createBatch(admin, "8", "3", "浏览器测试");
    await screenshot(admin.page, "operations-codes-created.zh-CN", [admin.page.getByTestId("created-codes")]);
    await admin.page.getByRole("button", { name: zh.common.close }).click();
    const batchRow = admin.page.getByTestId("ops-batches").getByRole("row").filter({ hasText: "浏览器测试" });
    await batchRow.waitFor();

    const customerContext = await newContext("en");
    const customer = new ConsolePage(await customerContext.newPage(), consoleUrl, "en");
    await signInWithGithub(customer, "code-buyer");
    const { page } = customer;
    await customer.navigate(en.nav.topup);
    await expect.poll(() => page.getByTestId("header-balance").textContent()).toBe("¥0.00");
    await redeem(page, en, codes[0]!);
    await page
      .getByTestId("redeem-result")
      .getByText(fill(en.redeem.redeemed, { amount: "¥8.00" }))
      .waitFor();
    await expect.poll(() => page.getByTestId("header-balance").textContent()).toBe("¥8.00");
    await page.getByTestId("order-history").getByText(en.topup.code).waitFor();
    expect(await customer.balanceMicros()).toBe(8_000_000);
    await screenshot(page, "topup-redeemed.en");
    // The same code again: refused, and the balance stays.
    await redeem(page, en, codes[0]!);
    await page.getByTestId("redeem-error").getByText(en.redeem.notRedeemable).waitFor();
    expect(await customer.balanceMicros()).toBe(8_000_000);

    // The admin sees the batch's redemption, revokes the rest, and finds the order.
    await admin.page.reload();
    await admin.page.getByRole("tab", { name: zh.ops.codes }).click();
    await batchRow.getByRole("button", { name: zh.ops.revokeUnused }).click();
    await expect.poll(() => batchRow.getByRole("cell").allTextContents()).toContain("2");
    await batchRow.getByRole("button", { name: zh.ops.view }).click();
    const codesDialog = admin.page.getByRole("dialog");
    await codesDialog.getByText(zh.ops.codeState.redeemed).waitFor();
    expect(await codesDialog.getByText(zh.ops.codeState.revoked).count()).toBe(2);
    await screenshot(admin.page, "operations-codes.zh-CN");
    await codesDialog.getByRole("button", { name: zh.common.close }).click();
    await redeem(page, en, codes[1]!);
    await page.getByTestId("redeem-error").waitFor();
    expect(await customer.balanceMicros()).toBe(8_000_000);

    await admin.page.getByRole("tab", { name: zh.ops.orders }).click();
    await admin.page.getByRole("combobox", { name: zh.ops.method }).click();
    await admin.page.getByRole("option", { name: zh.topup.code }).click();
    const orders = admin.page.getByTestId("ops-orders");
    await orders.getByRole("cell", { name: zh.topup.code, exact: true }).first().waitFor();
    expect(await orders.getByRole("cell", { name: zh.topup.wechat, exact: true }).count()).toBe(0);
    // Named, with the start of its id to tell two accounts of one name apart, linked to its page.
    const buyer = (await customer.session())!.account;
    const buyerCell = orders.getByRole("row").filter({ hasText: zh.topup.code }).first().getByRole("cell").nth(1);
    await buyerCell.getByRole("link", { name: buyer.name, exact: true }).waitFor();
    expect(await buyerCell.textContent()).toBe(`${buyer.name}${buyer.id.slice(0, 8)}`);
    await screenshot(admin.page, "operations-orders.zh-CN");

    await admin.page.getByRole("tab", { name: zh.ops.glance }).click();
    await expect.poll(() => admin.page.getByTestId("ops-topups").textContent()).toContain("¥8.00");
    await screenshot(admin.page, "operations-glance.zh-CN");

    await admin.switchLanguage("en");
    await admin.page.getByRole("heading", { name: en.ops.title }).waitFor();
    await expect.poll(() => admin.page.getByTestId("ops-topups").textContent()).toContain("¥8.00");
    await screenshot(admin.page, "operations-glance.en");
    await admin.page.getByRole("tab", { name: en.ops.codes }).click();
    await admin.page.getByTestId("ops-batches").getByRole("row").filter({ hasText: "浏览器测试" }).waitFor();
    await screenshot(admin.page, "operations-codes.en");
    await admin.page.getByRole("tab", { name: en.ops.orders }).click();
    await admin.page.getByTestId("ops-orders").getByRole("cell", { name: en.topup.code, exact: true }).waitFor();
    await screenshot(admin.page, "operations-orders.en");
    // Making and revoking the codes are in the audit log, under this admin.
    await admin.navigate(en.nav.admin);
    await admin.page.getByRole("tab", { name: en.operators.audit }).click();
    const audit = admin.page.getByTestId("audit-log");
    await audit.getByRole("row").filter({ hasText: "code.create" }).first().waitFor();
    await audit.getByRole("row").filter({ hasText: "code.revoke" }).first().waitFor();

    await customer.switchLanguage("zh-CN");
    await page.getByRole("heading", { name: zh.topup.title, exact: true }).waitFor();
    await page.getByTestId("order-history").getByText(zh.topup.code).waitFor();
    await screenshot(page, "topup-redeemed.zh-CN");
    await adminContext.close();
    await customerContext.close();
  });
});

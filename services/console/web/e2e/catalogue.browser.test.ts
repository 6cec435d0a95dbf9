import { eventually, startTestStack, type TestStack } from "@gateway/stack";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { ConsolePage } from "./console-pages.js";
import { elementScreenshot, screenshot } from "./screenshots.js";
import { type Language, texts } from "./text.js";

// An admin edits the catalogue in Chromium through the whole stack: adds a channel with two keys,
// tests it, changes its weight, disables and enables it, changes a model's price (a customer's
// /v1/models shows it within 2 s), creates a group, and finds each change, with the admin as
// actor, in the catalogue's history.

const LIVE_WITHIN_MS = 2_000;
let stack: TestStack;
let consoleUrl: string;
let browser: Browser;
let apiKey: string;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ console: true, serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: "oidc:root" } } }),
    launchChromium(),
  ]);
  consoleUrl = stack.consoleUrl!;
  apiKey = (await stack.createAccount({ group: "default" })).api_key;
});

afterAll(async () => {
  await browser?.close();
  await stack?.teardown();
});

/** The admin signed in through oidc-provider's development login, on the admin page. */
async function adminPage(language: Language): Promise<Page> {
  const context = await browser.newContext({
    locale: language,
    // Tall enough for the channel form and its refusal without scrolling inside the dialog.
    viewport: { width: 1400, height: 1300 },
    reducedMotion: "reduce",
  });
  const app = new ConsolePage(await context.newPage(), consoleUrl, language);
  await app.open("/signin");
  const { page } = app;
  await page.getByRole("link", { name: /OpenID/ }).click();
  await page.locator('input[name="login"]').fill("root");
  await page.locator('input[name="password"]').fill("any");
  await page.locator('button[type="submit"]').click();
  if (!page.url().startsWith(consoleUrl)) await page.locator('button[type="submit"]').click();
  await page.waitForURL(`${consoleUrl}/`);
  await app.navigate(texts[language].nav.admin);
  return page;
}

/** gpt-4o-mini's input price on /v1/models for the default group, yuan per million tokens. */
async function listedInputPrice(): Promise<number> {
  const response = await fetch(`${stack.baseUrl}/models/gpt-4o-mini`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return Number(((await response.json()) as { pricing: { prompt: string } }).pricing.prompt);
}

/** Mantine's Select in the open dialog: open its list, click the option. */
async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole("dialog").getByLabel(label, { exact: true }).first().click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

const rowOf = (page: Page, name: string) =>
  page.getByRole("row").filter({ has: page.getByRole("cell", { name, exact: true }) });

describe("the catalogue edited in a browser", { timeout: 180_000 }, () => {
  for (const [language, price] of [
    ["zh-CN", 2.5],
    ["en", 3.25],
  ] as const) {
    const text = texts[language];
    const edit = text.catalogueEdit;
    const suffix = language.toLowerCase();
    it(`adds and tests a channel with two keys, reprices a model live, creates a group, and shows the history (${language})`, async () => {
      const page = await adminPage(language);

      await page.getByRole("tab", { name: text.channels.title }).click();
      await page.getByRole("button", { name: edit.addChannel }).click();
      const channelForm = page.getByRole("dialog");
      await channelForm.getByLabel(text.channels.name).fill(`console-${suffix}`);
      await channelForm.getByLabel(edit.baseUrl).fill(`${stack.simulatorUrl}/v1`);
      await channelForm.getByLabel(text.channels.keys).fill(`sk-browser-${suffix}-1111\nsk-browser-${suffix}-2222`);
      await channelForm.getByLabel(edit.channelModels, { exact: true }).fill("gpt-4o-mini");
      // A model the vendor does not have: router refuses the change and the form shows why.
      await choose(page, text.channels.vendor, "deepseek");
      await channelForm.getByRole("button", { name: edit.save }).click();
      await channelForm.getByRole("alert").getByText("gpt-4o-mini is not a deepseek model").waitFor();
      await elementScreenshot(channelForm, `admin-channel-refused.${language}`);
      await choose(page, text.channels.vendor, "openai");
      await channelForm.getByRole("button", { name: edit.save }).click();
      await channelForm.waitFor({ state: "detached" });
      const channel = rowOf(page, `console-${suffix}`);
      await channel.getByText("sk-…1111").waitFor();
      await channel.getByText("sk-…2222").waitFor();
      await screenshot(page, `admin-channel-edit.${language}`);

      await channel.getByRole("button", { name: edit.test }).click();
      const report = page.getByRole("dialog");
      await expect.poll(() => report.getByText(edit.keyOk, { exact: true }).count(), { timeout: 15_000 }).toBe(2);
      await elementScreenshot(report, `admin-channel-test.${language}`);
      await report.getByRole("button", { name: text.common.close }).click();

      await channel.getByRole("button", { name: edit.edit }).click();
      const editForm = page.getByRole("dialog");
      await editForm.getByLabel(edit.weight).fill("3");
      await editForm.getByRole("button", { name: edit.save }).click();
      await editForm.waitFor({ state: "detached" });
      await channel.getByRole("cell", { name: "0 / 3", exact: true }).waitFor();
      await channel.getByRole("button", { name: edit.disable }).click();
      // The health table above shows it disabled too, once it refreshes.
      await channel.getByText(text.channels.state.disabled, { exact: true }).first().waitFor();
      await channel.getByRole("button", { name: edit.enable }).click();
      await channel.getByText(edit.enabled, { exact: true }).waitFor();

      await page.getByRole("tab", { name: edit.modelsTab, exact: true }).click();
      await page.getByLabel(text.common.search).fill("gpt-4o-mini");
      await rowOf(page, "gpt-4o-mini").getByRole("button", { name: edit.edit }).click();
      const modelForm = page.getByRole("dialog");
      await modelForm.getByLabel(edit.price.input, { exact: true }).fill(String(price));
      await elementScreenshot(modelForm, `admin-model-edit.${language}`);
      await modelForm.getByRole("button", { name: edit.save }).click();
      const saved = Date.now();
      await eventually(async () => ((await listedInputPrice()) === price ? true : undefined), 10_000, 50);
      expect(Date.now() - saved).toBeLessThan(LIVE_WITHIN_MS);
      await modelForm.waitFor({ state: "detached" });
      await rowOf(page, "gpt-4o-mini").getByText(edit.priceOurs).waitFor();
      await screenshot(page, `admin-models.${language}`);

      await page.getByRole("tab", { name: edit.groupsTab, exact: true }).click();
      await page.getByRole("button", { name: edit.addGroup }).click();
      const groupForm = page.getByRole("dialog");
      await groupForm.getByLabel(text.catalogue.group).fill(`vip-${suffix}`);
      await groupForm.getByLabel(text.catalogue.description).fill("Partners");
      await groupForm.getByLabel(text.catalogue.multiplier).fill("1.2");
      await groupForm.getByLabel(text.catalogue.rpm).fill("600");
      await groupForm.getByLabel(edit.groupModels, { exact: true }).click();
      await page.getByRole("option", { name: "gpt-4o-mini", exact: true }).click();
      // The list stays open for more picks (over the buttons) until the focus leaves it.
      await groupForm.getByLabel(text.catalogue.description).click();
      await elementScreenshot(groupForm, `admin-group-edit.${language}`);
      await groupForm.getByRole("button", { name: edit.save }).click();
      await groupForm.waitFor({ state: "detached" });
      const group = rowOf(page, `vip-${suffix}`);
      await group.getByText("Partners").waitFor();
      await screenshot(page, `admin-groups.${language}`);

      await page.getByRole("tab", { name: edit.historyTab }).click();
      const added = rowOf(page, `group vip-${suffix}`);
      await added.getByText("oidc:root").waitFor();
      await rowOf(page, `channel console-${suffix}`).getByText("channel.add").waitFor();
      await screenshot(page, `admin-catalogue-history.${language}`);
      await page.context().close();
    });
  }
});

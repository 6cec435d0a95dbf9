import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { fill, type Language, texts } from "./text.js";

interface SessionView {
  account: { id: string; name: string; balanceMicros: number };
  isAdmin: boolean;
}

/** The console in one browser tab, read and driven in one language. */
export class ConsolePage {
  text: (typeof texts)[Language];
  /** What Chromium refused under the console's Content-Security-Policy, which must be nothing. */
  readonly refusedByPolicy: string[] = [];

  constructor(
    readonly page: Page,
    readonly baseUrl: string,
    language: Language = "zh-CN",
  ) {
    this.text = texts[language];
    page.on("console", (message) => {
      if (message.type() === "error" && message.text().includes("Content Security Policy")) {
        this.refusedByPolicy.push(message.text());
      }
    });
  }

  async open(path = "/"): Promise<void> {
    expect(this.refusedByPolicy).toEqual([]);
    await this.page.goto(new URL(path, this.baseUrl).toString());
  }

  async navigate(label: string): Promise<void> {
    expect(this.refusedByPolicy).toEqual([]);
    await this.page.getByRole("navigation").getByRole("link", { name: label, exact: true }).click();
  }

  async signInWith(providerName: string): Promise<void> {
    await this.page.getByRole("link", { name: fill(this.text.signin.with, { name: providerName }) }).click();
  }

  /** The session as the console's API reports it, read from inside the page (its cookie). */
  async session(): Promise<SessionView | null> {
    return this.page.evaluate(async () => {
      const response = await fetch("/api/session", { credentials: "same-origin" });
      return response.ok ? ((await response.json()) as SessionView) : null;
    });
  }

  async balanceMicros(): Promise<number> {
    const session = await this.session();
    if (!session) throw new Error("not signed in");
    return session.account.balanceMicros;
  }

  /** Tops up on the top-up page, paying on the simulator's pay page opened from the console's link. */
  async topUp(context: BrowserContext, yuan: number, method: "wechat" | "alipay"): Promise<void> {
    await this.startTopUp(yuan, method);
    await this.payShownOrder(context);
  }

  /** Presses "Pay" on the top-up page and returns the number of the order whose QR code it shows. */
  async startTopUp(yuan: number, method: "wechat" | "alipay"): Promise<string> {
    const { page, text } = this;
    await this.navigate(text.nav.topup);
    await page.getByLabel(text.topup.amount).fill(String(yuan));
    await page.getByRole("radio", { name: text.topup[method] }).check();
    await page.getByRole("button", { name: text.topup.pay, exact: true }).click();
    return this.shownOrder(method);
  }

  /** The order whose QR code the top-up page shows, once it shows one. */
  async shownOrder(method: "wechat" | "alipay"): Promise<string> {
    const { page, text } = this;
    await page.getByRole("img", { name: fill(text.topup.scan, { method: text.topup[method] }) }).waitFor();
    const shown = (await page.getByTestId("pending-order").textContent()) ?? "";
    return shown.slice(shown.indexOf(":") + 1).trim();
  }

  async payShownOrder(context: BrowserContext): Promise<void> {
    const { page, text } = this;
    const [payPage] = await Promise.all([
      context.waitForEvent("page"),
      page.getByRole("link", { name: text.topup.openPayPage }).click(),
    ]);
    await payPage.locator("#pay").click();
    await payPage.locator("#state", { hasText: "paid" }).waitFor();
    await payPage.close();
    await page.getByTestId("payment-paid").waitFor({ timeout: 30_000 });
  }

  /** Creates a key in the create dialog and returns it as shown once, checking that Copy copies it. */
  async createKey(name: string): Promise<string> {
    const { page, text } = this;
    await this.navigate(text.nav.keys);
    await page.getByRole("button", { name: text.keys.create }).click();
    const dialog = page.getByRole("dialog", { name: text.keys.create });
    await dialog.getByLabel(text.keys.name).fill(name);
    await dialog.getByRole("combobox", { name: text.keys.group }).click();
    await page.getByRole("option").first().click();
    await dialog.getByRole("button", { name: text.keys.create }).click();
    const apiKey = (await page.getByTestId("new-api-key").textContent())?.trim() ?? "";
    expect(apiKey).toMatch(/^sk-/);
    await page.getByRole("button", { name: text.common.copy, exact: true }).click();
    await page.getByRole("button", { name: text.common.copied, exact: true }).waitFor();
    // Evaluated in the page, where `navigator` is the browser's.
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(apiKey);
    return apiKey;
  }

  async closeShownKey(): Promise<void> {
    await this.page.getByRole("button", { name: this.text.keys.done }).click();
    await this.page.getByTestId("new-api-key").waitFor({ state: "detached" });
  }

  async revokeKey(name: string): Promise<void> {
    const { page, text } = this;
    await this.navigate(text.nav.keys);
    const row = page.getByRole("row").filter({ hasText: name });
    await row.getByRole("button", { name: text.keys.revoke }).click();
    await page
      .getByRole("dialog", { name: fill(text.keys.revokeTitle, { name }) })
      .getByRole("button", { name: text.keys.revoke })
      .click();
    await row.getByText(text.keys.status.revoked).waitFor();
  }

  async switchLanguage(language: Language): Promise<void> {
    const target = texts[language];
    await this.page.getByRole("combobox", { name: this.text.app.language }).first().click();
    await this.page.getByRole("option", { name: language === "en" ? "English" : "简体中文" }).click();
    this.text = target;
    await this.page
      .getByRole("heading", { name: target.app.title })
      .or(this.page.getByRole("heading", { name: target.signin.title }))
      .or(this.page.getByRole("heading", { name: target.pricing.title }))
      .first()
      .waitFor();
  }
}

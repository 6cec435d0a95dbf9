import { mkdir } from "node:fs/promises";
import { repoRoot } from "@gateway/stack";
import type { Page } from "playwright-core";

// Screenshots land in docs/console/ (committed, linked from docs/console-web.md) only when asked
// for, so an ordinary test run leaves the work tree clean.
const directory = process.env.UPDATE_CONSOLE_SCREENSHOTS
  ? `${repoRoot}docs/console`
  : `${repoRoot}.gateway/console-screenshots`;

/** A full-page screenshot once the page has settled (no request in flight, charts drawn). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.waitForLoadState("networkidle");
  await mkdir(directory, { recursive: true });
  await page.screenshot({ path: `${directory}/${name}.png`, fullPage: true, animations: "disabled" });
}

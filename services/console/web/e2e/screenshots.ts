import { mkdir } from "node:fs/promises";
import { repoRoot } from "@gateway/stack";
import type { Locator, Page } from "playwright-core";

// Screenshots land in docs/console/ (committed, linked from docs/console-web.md) only when asked
// for, so an ordinary test run leaves the work tree clean.
const directory = process.env.UPDATE_CONSOLE_SCREENSHOTS
  ? `${repoRoot}docs/console`
  : `${repoRoot}.gateway/console-screenshots`;

/**
 * A full-page screenshot once the page has settled (no request in flight, charts drawn), with
 * `mask`ed elements (a secret such as a new key) painted over and without notifications.
 */
export async function screenshot(page: Page, name: string, mask: Locator[] = []): Promise<void> {
  await page.waitForLoadState("networkidle");
  await mkdir(directory, { recursive: true });
  await page.screenshot({
    path: `${directory}/${name}.png`,
    fullPage: true,
    animations: "disabled",
    mask,
    maskColor: "#ced4da",
    // Toasts of earlier steps would cover the header; the pages say the same in place.
    style: ".mantine-Notifications-root { display: none; }",
  });
}

/** One element (an open dialog, whose own scrolling a full-page shot would cut) once the page has settled. */
export async function elementScreenshot(element: Locator, name: string): Promise<void> {
  await element.page().waitForLoadState("networkidle");
  await mkdir(directory, { recursive: true });
  await element.screenshot({ path: `${directory}/${name}.png`, animations: "disabled" });
}

import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (scripts/ensure-tools.sh installs it); CHROMIUM_PATH points elsewhere. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Headless and quiet: no sandbox (tests run as root in CI), no GPU, and nothing phoning home.
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`No Chromium at ${chromiumPath}: run scripts/ensure-tools.sh (it installs Debian's chromium)`);
  }
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
}

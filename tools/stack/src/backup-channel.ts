import { writeCatalogueWithChannels } from "./catalogue-file.js";

/**
 * gpt-4o-mini with a second, lower-priority channel, openai-backup. The simulator can fail
 * either by its credential (simulated channels send `sim-<channel>` as their key), and its
 * request log shows a key's ends.
 */
export const backupChannel = {
  extraChannels: "  openai-backup: { vendor: openai, priority: 1 }\n",
  mainKey: "sim-openai-main",
  mainSeen: "sim-...main",
  backupSeen: "sim-...ckup",
} as const;

/**
 * Writes the catalogue with the backup channel to `cataloguePath` and returns the stack
 * environment that reads it, with retries, time-outs and circuits short enough for a test.
 */
export function backupChannelEnv(cataloguePath: string): NodeJS.ProcessEnv {
  writeCatalogueWithChannels(cataloguePath, backupChannel.extraChannels);
  return {
    CATALOGUE_PATH: cataloguePath,
    CIRCUIT_FAILURE_THRESHOLD: "3",
    CIRCUIT_COOLDOWN_MS: "1500",
    VENDOR_FIRST_BYTE_TIMEOUT_MS: "1000",
    ROUTER_RETRY_BASE_MS: "20",
  };
}

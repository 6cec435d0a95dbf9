import { Catalogue, channelKeyVariables } from "@gateway/catalogue";
import { repoRoot } from "./repo-paths.js";

export interface VendorChannels {
  // Channels with a vendor key, and where they call.
  enabled: Array<{ name: string; vendor: string; baseUrl?: string }>;
  // Channels left off, each with the variable whose key would enable it.
  disabled: Array<{ name: string; vendor: string; keyVariable: string }>;
  // A chat model the demo key's group (premium) can use, for the example request.
  exampleModel?: string;
}

/**
 * Which of the catalogue's channels a production router serves with this environment: the
 * same resolution the router makes (router/src/config.ts's CATALOGUE_PATH default, no simulator).
 */
export function vendorChannels(env: NodeJS.ProcessEnv): VendorChannels {
  const path = env.CATALOGUE_PATH ?? `${repoRoot}infra/catalogue/models.yaml`;
  const catalogue = Catalogue.fromFile(path, { env, simulatorUrl: undefined });
  const baseUrls = new Map(catalogue.all().flatMap((model) => model.channels.map((c) => [c.name, c.baseUrl] as const)));
  const { channels, vendors } = catalogue.source;
  const disabled = new Set(catalogue.disabledChannels);
  return {
    enabled: Object.entries(channels)
      .filter(([name]) => !disabled.has(name))
      .map(([name, channel]) => ({ name, vendor: channel.vendor, baseUrl: baseUrls.get(name) })),
    disabled: Object.entries(channels)
      .filter(([name]) => disabled.has(name))
      .map(([name, channel]) => ({
        name,
        vendor: channel.vendor,
        keyVariable: channelKeyVariables(channel, vendors[channel.vendor]!).join(" or "),
      })),
    exampleModel: catalogue.list("premium").find((model) => model.endpoints.includes("/v1/chat/completions"))?.id,
  };
}

/** The start-up lines that say which channels call which vendor, and what would turn the others on. */
export function describeVendorChannels({ enabled, disabled }: VendorChannels): string {
  const on = enabled.map(
    (channel) =>
      `    ${channel.name} (${channel.vendor})${channel.baseUrl ? ` -> ${channel.baseUrl}` : ": serves no model"}`,
  );
  const off = disabled.map((channel) => `    ${channel.name} (${channel.vendor}): set ${channel.keyVariable}`);
  return [
    `  Channels on (real vendors, with your keys):`,
    ...(on.length > 0 ? on : ["    none"]),
    ...(off.length > 0 ? ["  Channels off for want of a key:", ...off] : []),
  ].join("\n");
}

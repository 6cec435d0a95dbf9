import { readFileSync } from "node:fs";
import { GatewayError, modelNotFound } from "@gateway/platform";
import { parse } from "yaml";
import {
  type CatalogueFile,
  catalogueFileSchema,
  type GroupLimits,
  type ModelEntry,
  type Retirement,
  type VendorEntry,
} from "./catalogue-schema.js";
import { type ChannelKey, channelKey } from "./channel-key.js";
import { mediaRulesProblems } from "./media-rules-problems.js";
import { resolveModelPrices } from "./model-prices.js";
import type { TokenPrices } from "./token-prices.js";

/** One vendor endpoint with its keys, ready to call. */
export interface Channel {
  name: string;
  vendor: string;
  vendorEntry: VendorEntry;
  baseUrl: string;
  // At least one; requests take turns over those the vendor has not refused.
  keys: ChannelKey[];
  // True when no vendor key is configured and the channel points at the simulator.
  simulated: boolean;
  priority: number;
  weight: number;
  // Public model id -> the id this channel's vendor is called with.
  modelMap: Readonly<Record<string, string>>;
}

/** The id the channel's vendor knows a catalogue model by. */
export function vendorModelId(channel: Pick<Channel, "modelMap">, modelId: string): string {
  return channel.modelMap[modelId] ?? modelId;
}

export interface CatalogueModel extends Omit<ModelEntry, "channels" | "price"> {
  ownedBy: string;
  // The entry's own prices, or the dataset's it defaults to.
  price: TokenPrices;
  channels: Channel[];
  // The vendor endpoints the model has (catalogue-schema.ts vendorApiEndpoints): /v1/responses
  // means the gateway relays Responses requests to the vendor's own Responses API.
  vendorEndpoints: readonly string[];
  // Set when this entry answers for a retired id it succeeds.
  servedFor?: { id: string; thinking?: Retirement["successor_thinking"] };
}

export interface CatalogueSources {
  env: NodeJS.ProcessEnv;
  // Where channels without a vendor key go in development; absent (production), such channels are disabled.
  simulatorUrl: string | undefined;
}

// 404 rather than 503: retrying cannot help until an operator configures a vendor key, and SDKs retry every 5xx.
const modelWithoutChannel = (model: string) =>
  new GatewayError(
    404,
    "invalid_request_error",
    "model_not_found",
    `The model \`${model}\` is not available on this gateway: none of its channels has vendor credentials.`,
    "model",
  );

const retiredModel = (model: string, retirement: Retirement) =>
  new GatewayError(
    404,
    "invalid_request_error",
    "model_not_found",
    `The model \`${model}\` was retired on ${retirement.on}; use \`${retirement.successor}\` instead.`,
    "model",
  );

export class Catalogue {
  private constructor(
    private readonly models: Map<string, CatalogueModel>,
    // Alias -> the id of the entry it names.
    private readonly aliases: ReadonlyMap<string, string>,
    // Retired ids and their aliases -> the retirement.
    private readonly retirements: ReadonlyMap<string, Retirement>,
    readonly groups: ReadonlySet<string>,
    private readonly limits: ReadonlyMap<string, GroupLimits>,
    // Channels left out for want of a vendor key (production only), and models left with none.
    readonly disabledChannels: readonly string[],
    // The file as written, for describing it (groups' descriptions, every price).
    readonly source: CatalogueFile,
    // Every entry's token prices, retired ones included, as resolved when the catalogue loaded.
    private readonly prices: ReadonlyMap<string, TokenPrices>,
    // Disabled channels (by an operator, or by a router whose every key was refused) as they would
    // serve: they route nothing, but views still show their keys.
    readonly heldChannels: ReadonlyMap<string, Channel>,
  ) {}

  /** The token prices of any entry of the file, its own or the dataset's. */
  priceOf(id: string): TokenPrices | undefined {
    return this.prices.get(id);
  }

  /** Models that exist but have no channel to serve them. */
  get modelsWithoutChannels(): string[] {
    return [...this.models.values()].filter((model) => model.channels.length === 0).map((model) => model.id);
  }

  get servableModelCount(): number {
    return this.models.size - this.modelsWithoutChannels.length;
  }

  /** The rate limits of a key group; none when the group sets none. */
  limitsFor(group: string): GroupLimits {
    return this.limits.get(group) ?? {};
  }

  /** What a group's keys pay over catalogue prices, in basis points. */
  multiplierFor(group: string): number {
    return this.source.groups[group]?.multiplier_basis_points ?? 10_000;
  }

  static fromFile(path: string, sources: CatalogueSources): Catalogue {
    return Catalogue.fromData(readCatalogueFile(path), sources);
  }

  /** The catalogue the file describes, with prices from the dataset in force on `pricesOn` where an entry sets none. */
  static fromData(data: CatalogueFile, sources: CatalogueSources, pricesOn = new Date()): Catalogue {
    const { problems, prices } = consistency(data, pricesOn);
    if (problems.length > 0) throw new Error(`catalogue is inconsistent:\n  ${problems.join("\n  ")}`);
    const models = new Map<string, CatalogueModel>();
    for (const entry of data.models) {
      if (entry.retired) continue;
      const vendorEntry = data.vendors[entry.vendor]!;
      const channels = channelsOf(entry, data)
        .filter((name) => !data.channels[name]!.disabled)
        .flatMap((name) => resolveChannel(name, data, sources) ?? []);
      const price = prices.get(entry.id)!;
      const vendorEndpoints = vendorEndpointsOf(entry, vendorEntry);
      models.set(entry.id, { ...entry, price, ownedBy: vendorEntry.owned_by, channels, vendorEndpoints });
    }
    const aliases = new Map(
      data.models.flatMap((entry) =>
        entry.retired ? [] : (entry.aliases ?? []).map((alias) => [alias, entry.id] as const),
      ),
    );
    const retirements = new Map(
      data.models.flatMap(({ id, aliases, retired }) =>
        retired ? [id, ...(aliases ?? [])].map((name) => [name, retired] as const) : [],
      ),
    );
    const limits = new Map(Object.entries(data.groups).map(([group, entry]) => [group, entry.limits ?? {}]));
    // Operator-disabled channels are left out on purpose; these lack credentials.
    const disabled = Object.keys(data.channels).filter(
      (name) => !data.channels[name]!.disabled && !resolveChannel(name, data, sources),
    );
    const groups = new Set(Object.keys(data.groups));
    const held = new Map(
      Object.keys(data.channels)
        .filter((name) => data.channels[name]!.disabled)
        .flatMap((name) => {
          const channel = resolveChannel(name, data, sources);
          return channel ? [[name, channel] as const] : [];
        }),
    );
    return new Catalogue(models, aliases, retirements, groups, limits, disabled, data, prices, held);
  }

  /** The entry an id or one of its aliases names. */
  private entry(id: string): CatalogueModel | undefined {
    return this.models.get(id) ?? this.models.get(this.aliases.get(id) ?? "");
  }

  /** The model if it exists, the group may use it and a channel can serve it; unknown and forbidden look the same. */
  find(id: string, group: string): CatalogueModel | undefined {
    const retirement = this.retirements.get(id);
    if (retirement) {
      const successor = retirement.serve ? this.find(retirement.successor, group) : undefined;
      return successor && { ...successor, servedFor: { id, thinking: retirement.successor_thinking } };
    }
    const model = this.entry(id);
    return model?.groups.includes(group) && model.channels.length > 0 ? model : undefined;
  }

  /** Why `find` found nothing: a model the group may use but no channel serves is told apart. */
  notFoundError(id: string, group: string): GatewayError {
    const retirement = this.retirements.get(id);
    if (retirement) return retirement.serve ? modelNotFound(id) : retiredModel(id, retirement);
    return this.entry(id)?.groups.includes(group) ? modelWithoutChannel(id) : modelNotFound(id);
  }

  /** Every model not retired, servable or not, whatever its groups. */
  all(): CatalogueModel[] {
    return [...this.models.values()];
  }

  list(group: string): CatalogueModel[] {
    return [...this.models.values()].filter((model) => model.groups.includes(group) && model.channels.length > 0);
  }
}

/** What is wrong in a schema-valid catalogue (references, prices), and the prices resolved on `pricesOn`. */
function consistency(data: CatalogueFile, pricesOn: Date) {
  const problems = crossReferenceProblems(data);
  const prices = new Map<string, TokenPrices>();
  // An unknown vendor is already a problem, and its prices cannot be looked up.
  for (const entry of data.models.filter((model) => data.vendors[model.vendor])) {
    const resolved = resolveModelPrices(entry, data, pricesOn);
    if ("problem" in resolved) problems.push(`models.${entry.id}: ${resolved.problem}`);
    else prices.set(entry.id, resolved.prices);
  }
  return { problems, prices };
}

/** A whole catalogue document checked by the schema and for cross-references, or every problem found. */
export function checkCatalogue(
  raw: unknown,
  pricesOn = new Date(),
): { ok: true; data: CatalogueFile } | { ok: false; problems: string[] } {
  const parsed = catalogueFileSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) };
  }
  const { problems } = consistency(parsed.data, pricesOn);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, data: parsed.data };
}

/** The channels that may serve a model: those it names, else its vendor's that list it or list no models. */
function channelsOf(model: ModelEntry, data: CatalogueFile): string[] {
  return (
    model.channels ??
    Object.keys(data.channels).filter((name) => {
      const channel = data.channels[name]!;
      return channel.vendor === model.vendor && (channel.models?.includes(model.id) ?? true);
    })
  );
}

/** The catalogue file as written, checked against its schema (not yet against itself). */
export function readCatalogueFile(path: string): CatalogueFile {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`catalogue ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = catalogueFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`catalogue ${path} is invalid:\n${problems.join("\n")}`);
  }
  return parsed.data;
}

/** The channel ready to call, or undefined when it has no vendor key and no simulator may stand in. */
function resolveChannel(
  name: string,
  data: CatalogueFile,
  { env, simulatorUrl }: CatalogueSources,
): Channel | undefined {
  const channel = data.channels[name]!;
  const vendorEntry = data.vendors[channel.vendor]!;
  const keyVariables = channelKeyVariables(channel, vendorEntry);
  // Keys the catalogue store holds win over the environment's.
  const secrets = channel.api_keys ?? [...new Set(keyVariables.flatMap((variable) => env[variable] || []))];
  const common = {
    name,
    vendor: channel.vendor,
    vendorEntry,
    priority: channel.priority,
    weight: channel.weight,
    modelMap: channel.model_map ?? {},
  };
  if (secrets.length === 0) {
    if (simulatorUrl === undefined) return undefined;
    const baseUrl = `${simulatorUrl.replace(/\/$/, "")}${vendorEntry.simulator_path}`;
    // Per-channel keys (one per variable) let the simulator, its faults and its refusals tell channels and keys apart.
    const simulatedKeys = keyVariables.map((_, index) =>
      channelKey(index === 0 ? `sim-${name}` : `sim-${name}-${index + 1}`),
    );
    return { ...common, baseUrl, keys: simulatedKeys, simulated: true };
  }
  const baseUrl = channel.base_url ?? env[vendorEntry.base_url_env] ?? vendorEntry.base_url;
  return { ...common, baseUrl: baseUrl.replace(/\/$/, ""), keys: secrets.map(channelKey), simulated: false };
}

/** The environment variables a channel's keys come from: its own list, else its one variable, else its vendor's. */
export function channelKeyVariables(channel: CatalogueFile["channels"][string], vendor: VendorEntry): string[] {
  const own = [...(channel.api_key_env ? [channel.api_key_env] : []), ...(channel.api_keys_env ?? [])];
  return own.length > 0 ? own : [vendor.api_key_env];
}

function crossReferenceProblems(data: CatalogueFile): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const models = new Map(data.models.map((model) => [model.id, model]));
  for (const [name, channel] of Object.entries(data.channels)) {
    if (!data.vendors[channel.vendor]) problems.push(`channels.${name}: unknown vendor ${channel.vendor}`);
    const named = { models: channel.models ?? [], model_map: Object.keys(channel.model_map ?? {}) };
    for (const [field, ids] of Object.entries(named)) {
      for (const id of ids) {
        const model = models.get(id);
        if (!model) problems.push(`channels.${name}.${field}: unknown model ${id}`);
        else if (model.vendor !== channel.vendor) {
          problems.push(`channels.${name}.${field}: ${id} is not a ${channel.vendor} model`);
        }
      }
    }
  }
  for (const [name, vendor] of Object.entries(data.vendors)) {
    if ((vendor.protocol === "openai-compatible") !== (vendor.profile !== undefined)) {
      problems.push(`vendors.${name}: a profile is required for openai-compatible vendors and only for them`);
    }
  }
  for (const model of data.models) {
    for (const id of [model.id, ...(model.aliases ?? [])]) {
      if (seen.has(id)) problems.push(`models: ${id} is listed twice (as an id or an alias)`);
      seen.add(id);
    }
    if (!data.vendors[model.vendor]) problems.push(`models.${model.id}: unknown vendor ${model.vendor}`);
    if (model.retired) problems.push(...retirementProblems(model, model.retired, data));
    if (model.deprecated) problems.push(...deprecationProblems(model, model.deprecated.successor, data));
    problems.push(...mediaRulesProblems(model));
    problems.push(...vendorEndpointProblems(model, data.vendors[model.vendor]));
    if (model.endpoints.includes("/v1/embeddings") && !model.embedding) {
      problems.push(`models.${model.id}: serves /v1/embeddings but has no embedding rules`);
    }
    for (const group of model.groups) {
      if (!data.groups[group]) problems.push(`models.${model.id}: unknown group ${group}`);
    }
    const channels = channelsOf(model, data);
    if (channels.length === 0) problems.push(`models.${model.id}: no channel serves vendor ${model.vendor}`);
    for (const name of channels) {
      const channel = data.channels[name];
      if (!channel) problems.push(`models.${model.id}: unknown channel ${name}`);
      else if (channel.vendor !== model.vendor)
        problems.push(`models.${model.id}: channel ${name} is not ${model.vendor}`);
    }
  }
  return problems;
}

const chatEndpoints = ["/v1/chat/completions", "/v1/completions"];

function vendorEndpointsOf(entry: ModelEntry, vendor: VendorEntry): readonly string[] {
  if (entry.vendor_endpoints) return entry.vendor_endpoints;
  return entry.endpoints.includes("/v1/chat/completions") ? (vendor.chat_model_endpoints ?? []) : [];
}

/** A model offered only on its vendor's Responses API serves Responses alone: chat would find no vendor endpoint. */
function vendorEndpointProblems(model: ModelEntry, vendor: VendorEntry | undefined): string[] {
  if (!model.vendor_endpoints || !vendor) return [];
  const where = `models.${model.id}`;
  if (vendor.protocol !== "openai-compatible")
    return [`${where}: vendor_endpoints are only for openai-compatible vendors`];
  const problems: string[] = [];
  if (!model.vendor_endpoints.includes("/v1/chat/completions")) {
    const onChat = model.endpoints.filter((endpoint) => chatEndpoints.includes(endpoint));
    if (onChat.length > 0)
      problems.push(`${where}: serves ${onChat.join(", ")} but its vendor offers it only on /v1/responses`);
  }
  if (model.endpoints.includes("/v1/responses") && !model.vendor_endpoints.includes("/v1/responses")) {
    problems.push(`${where}: lists /v1/responses, which only models on their vendor's Responses API list`);
  }
  return problems;
}

function deprecationProblems(model: ModelEntry, successorId: string, data: CatalogueFile): string[] {
  const where = `models.${model.id}.deprecated`;
  if (model.retired) return [`${where}: the model is retired already`];
  const successor = data.models.find((entry) => entry.id === successorId);
  if (!successor) return [`${where}: unknown successor ${successorId}`];
  return successor.retired || successor.deprecated ? [`${where}: successor ${successorId} is going away itself`] : [];
}

// Every chat model answers /v1/responses too (relayed to its vendor's Responses API, or translated
// onto chat: docs/responses-relay.md), though only Responses-only models list it.
const servesEndpoint = (entry: ModelEntry, endpoint: string) =>
  entry.endpoints.includes(endpoint) ||
  (endpoint === "/v1/responses" && entry.endpoints.includes("/v1/chat/completions"));

function retirementProblems(model: ModelEntry, retirement: Retirement, data: CatalogueFile): string[] {
  const successor = data.models.find((entry) => entry.id === retirement.successor);
  const where = `models.${model.id}.retired`;
  if (!successor) return [`${where}: unknown successor ${retirement.successor}`];
  if (successor.retired) return [`${where}: successor ${successor.id} is retired itself`];
  const missing = model.endpoints.filter((endpoint) => !servesEndpoint(successor, endpoint));
  return missing.length > 0 ? [`${where}: successor ${successor.id} does not serve ${missing.join(", ")}`] : [];
}

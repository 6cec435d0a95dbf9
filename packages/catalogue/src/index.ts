export * from "./catalogue.js";
export * from "./catalogue-holder.js";
export * from "./catalogue-schema.js";
export * from "./channel-key.js";
export * from "./model-prices.js";
export * from "./token-prices.js";
export * from "./watch-catalogue-file.js";

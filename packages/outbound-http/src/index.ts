export * from "./key-refusal.js";
export * from "./map-vendor-error.js";
export * from "./request-public-url.js";
export * from "./vendor-error.js";

// The catalogue's Postgres store (its schema, edits, key cipher and live follow), a front door
// of its own beside the catalogue file's model in the index.
export * from "./catalogue-migrate.js";
export * from "./store/catalogue-edits.js";
export * from "./store/catalogue-store.js";
export * from "./store/follow-catalogue.js";
export * from "./store/import-catalogue-file.js";
export * from "./store/key-cipher.js";
export * from "./store/open-catalogue.js";

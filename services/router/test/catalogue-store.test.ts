import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { checkCatalogue } from "@gateway/catalogue";
import {
  applyEdit,
  type CatalogueEdit,
  CatalogueRefused,
  CatalogueStore,
  importCatalogueFile,
  KeyCipher,
  maskedCatalogue,
  migrate,
} from "@gateway/catalogue/store";
import { createTemporaryDatabase, queryRows, repoRoot, type TemporaryDatabase } from "@gateway/stack";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

const shippedPath = `${repoRoot}infra/catalogue/models.yaml`;
let database: TemporaryDatabase;
let pool: pg.Pool;
let store: CatalogueStore;

const edit = (change: CatalogueEdit) =>
  store.change({ actor: "test", action: change.action, apply: (current) => applyEdit(change, current) });

beforeAll(async () => {
  database = await createTemporaryDatabase();
  await migrate(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  store = new CatalogueStore(pool, new KeyCipher(randomBytes(32).toString("base64")));
  await importCatalogueFile(store, shippedPath);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe("the catalogue store", () => {
  it("holds the imported file and imports the same file only once", async () => {
    const stored = await store.load();
    const shipped = checkCatalogue(parse(readFileSync(shippedPath, "utf8")));
    expect(shipped.ok && stored?.data).toEqual(shipped.ok && shipped.data);
    expect(await importCatalogueFile(store, shippedPath)).toBeUndefined();
  });

  it("round-trips an export through an import without a change", async () => {
    const before = await store.revision();
    const exported = maskedCatalogue((await store.load())!.data);
    const result = await edit({ action: "catalogue.import", catalogue: JSON.parse(JSON.stringify(exported)) });
    expect(result).toEqual({ revision: before, changed: [] });
  });

  it("stores a channel's keys encrypted and shows them only masked", async () => {
    const keys = [`sk-first-${randomBytes(8).toString("hex")}`, `sk-second-${randomBytes(8).toString("hex")}`];
    const { changed } = await edit({
      action: "channel.add",
      name: "openai-two-keys",
      entry: { vendor: "openai", base_url: "https://api.openai.com/v1", api_keys: keys, weight: 2 },
    });
    expect(changed.map((object) => `${object.kind}:${object.name}`)).toEqual(["channel:openai-two-keys"]);
    const rows = await queryRows<{ sealed: Buffer; masked: string }>(
      database.url,
      "SELECT sealed, masked FROM catalogue.channel_keys WHERE channel = 'openai-two-keys' ORDER BY position",
    );
    expect(rows.map((row) => row.masked)).toEqual(keys.map((key) => `sk-…${key.slice(-4)}`));
    for (const [index, row] of rows.entries()) expect(row.sealed.toString("latin1")).not.toContain(keys[index]);
    const stored = (await store.load())!.data;
    expect(stored.channels["openai-two-keys"]?.api_keys).toEqual(keys);
    expect(maskedCatalogue(stored).channels["openai-two-keys"]?.api_keys).toEqual(rows.map((row) => row.masked));
    const audit = await store.history(1);
    expect(JSON.stringify(audit)).not.toContain(keys[0]);
    expect(audit[0]).toMatchObject({ actor: "test", action: "channel.add", kind: "channel", name: "openai-two-keys" });
  });

  it("refuses an invalid change whole, with the reasons, and writes nothing", async () => {
    const before = await store.revision();
    const changesBefore = await queryRows(database.url, "SELECT id FROM catalogue.changes");
    const refused = await edit({
      action: "model.add",
      entry: { id: "nonsense-model", vendor: "nobody", created: 1, context_window: 1, endpoints: ["/v1/chat"] },
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CatalogueRefused);
    const { problems } = refused as CatalogueRefused;
    expect(problems.join("\n")).toMatch(/models\.\d+\.groups/);
    expect(await store.revision()).toBe(before);
    expect(await queryRows(database.url, "SELECT id FROM catalogue.changes")).toHaveLength(changesBefore.length);
    expect((await store.load())!.data.models.some((model) => model.id === "nonsense-model")).toBe(false);
  });

  it("changes a group's multiplier and a model's price by merge patch", async () => {
    await edit({ action: "group.update", name: "premium", patch: { multiplier_basis_points: 20_000 } });
    await edit({ action: "model.update", name: "gpt-4o-mini", patch: { price: { input: 123 } } });
    const data = (await store.load())!.data;
    expect(data.groups.premium?.multiplier_basis_points).toBe(20_000);
    // gpt-4o-mini takes the dataset's prices: the patch starts from them, and only the input changes.
    const model = data.models.find((entry) => entry.id === "gpt-4o-mini")!;
    expect(model.price?.input).toBe(123);
    expect(model.price?.output).toEqual(expect.any(Number));
    expect(model.price?.output).not.toBe(0);
  });
});

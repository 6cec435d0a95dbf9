import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "@gateway/platform";
import { afterEach, describe, expect, it } from "vitest";
import { CatalogueHolder } from "./catalogue-holder.js";
import { type CatalogueWatch, watchCatalogueFile } from "./watch-catalogue-file.js";

const shipped = readFileSync(fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url)), "utf8");
const withDefaultRpm = (rpm: number) =>
  shipped.replace("limits: { requests_per_minute: 600,", `limits: { requests_per_minute: ${rpm},`);
const logger = createLogger("test", "silent");
const sources = { env: {}, simulatorUrl: "http://127.0.0.1:8090" };

/** A directory laid out as the kubelet lays out a ConfigMap volume, updated the way it updates one. */
function configMapVolume(content: string) {
  const directory = mkdtempSync(join(tmpdir(), "catalogue-watch-"));
  let version = 0;
  const publish = (text: string) => {
    version += 1;
    const data = `..v${version}`;
    mkdirSync(join(directory, data));
    writeFileSync(join(directory, data, "models.yaml"), text);
    symlinkSync(data, join(directory, "..data_tmp"));
    renameSync(join(directory, "..data_tmp"), join(directory, "..data"));
    if (version > 1) rmSync(join(directory, `..v${version - 1}`), { recursive: true });
  };
  publish(content);
  symlinkSync("..data/models.yaml", join(directory, "models.yaml"));
  return { path: join(directory, "models.yaml"), publish, remove: () => rmSync(directory, { recursive: true }) };
}

const defaultRpm = (holder: CatalogueHolder) => holder.current.limitsFor("default").requests_per_minute;

describe("watching the catalogue file", () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  const watched = (content: string) => {
    const volume = configMapVolume(content);
    const holder = CatalogueHolder.fromFile(volume.path, sources, logger);
    // What each reload answered: true for a catalogue taken, false for one refused.
    const reloads: boolean[] = [];
    const recorded = {
      reload: () => {
        const taken = holder.reload();
        reloads.push(taken);
        return taken;
      },
    };
    const watch: CatalogueWatch = watchCatalogueFile(recorded, volume.path, logger, 50);
    cleanup.push(() => watch.close(), volume.remove);
    return { volume, holder, reloads };
  };

  it("reloads the catalogue when the kubelet swaps the ConfigMap's data", async () => {
    const { volume, holder } = watched(withDefaultRpm(600));
    expect(defaultRpm(holder)).toBe(600);
    volume.publish(withDefaultRpm(700));
    await expect.poll(() => defaultRpm(holder), { timeout: 5_000 }).toBe(700);
  });

  it("keeps the catalogue in force when the new file does not parse, and takes the next good one", async () => {
    const { volume, holder, reloads } = watched(withDefaultRpm(600));
    const before = holder.current;
    volume.publish("models: [not: a: catalogue");
    await expect.poll(() => reloads, { timeout: 5_000 }).toEqual([false]);
    expect(holder.current).toBe(before);
    volume.publish(withDefaultRpm(800));
    await expect.poll(() => defaultRpm(holder), { timeout: 5_000 }).toBe(800);
    expect(reloads).toEqual([false, true]);
  });

  it("reloads once for a burst of changes, with the newest content", async () => {
    const { volume, holder, reloads } = watched(withDefaultRpm(600));
    volume.publish(withDefaultRpm(600));
    volume.publish(withDefaultRpm(900));
    // Two swaps inside one quiet period are one reload, of the newest content.
    await expect.poll(() => defaultRpm(holder), { timeout: 5_000 }).toBe(900);
    expect(reloads).toEqual([true]);
  });

  it("leaves the service running, reloading on SIGHUP only, when the directory cannot be watched", () => {
    const missing = join(tmpdir(), `no-such-directory-${process.pid}`, "models.yaml");
    const watch = watchCatalogueFile({ reload: () => true }, missing, logger);
    expect(() => watch.close()).not.toThrow();
  });
});

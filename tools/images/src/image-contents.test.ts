import { describe, expect, it } from "vitest";
import { contentProblems, developmentOnlyPackages } from "./image-contents.js";

const clean = [
  "app/dist/main.js",
  "app/node_modules/.pnpm/express@5.3.0/node_modules/express/index.js",
  "app/node_modules/.pnpm/@types+node@20.19.43/node_modules/@types/node/index.d.ts",
  "app/node_modules/.pnpm/node_modules/express",
  "app/node_modules/.pnpm/some@1.0.0/node_modules/some/test/fixture.key",
  "usr/bin/tini",
  "usr/local/bin/node",
  "etc/ssl/private/ssl-cert-snakeoil.key",
].flatMap((path) => [path, ...parents(path)]);

function parents(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join("/"));
}

describe("an image's contents", () => {
  it("pass with production packages, type declarations and a library's own fixtures", () => {
    expect(contentProblems(clean, ["NODE_ENV=production", "PATH=/usr/bin"])).toEqual({
      problems: [],
      productionPackages: 3,
    });
  });

  it("fail on a workspace development dependency, a compiler, a test file, a secret file or variable", () => {
    const paths = [
      ...clean,
      "app/node_modules/.pnpm/typescript@5.9.3",
      "usr/bin/gcc-12",
      "usr/bin/make",
      "app/dist/app.test.js",
      "app/.env",
      "root/.npmrc",
    ];
    expect(contentProblems(paths, ["OPENAI_API_KEY=sk-1"]).problems).toEqual([
      "development dependency typescript",
      "compiler or build tool /usr/bin/gcc-12",
      "compiler or build tool /usr/bin/make",
      "test file /app/dist/app.test.js",
      "secret-like file /app/.env",
      "secret-like file /root/.npmrc",
      "secret-like variable OPENAI_API_KEY in the image",
    ]);
  });

  it("count as development-only what only devDependencies name", () => {
    const developmentOnly = developmentOnlyPackages();
    expect(developmentOnly.has("vitest")).toBe(true);
    expect(developmentOnly.has("typescript")).toBe(true);
    expect(developmentOnly.has("express")).toBe(false);
  });
});

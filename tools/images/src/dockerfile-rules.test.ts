import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { imageProblems } from "./dockerfile-rules.js";
import { dockerfilePath, officialBase, serviceImages } from "./service-images.js";

const dockerfile = readFileSync(dockerfilePath, "utf8");

describe("the service Dockerfile", () => {
  it("defaults its base to the official image pnpm images tries first", () => {
    expect(dockerfile).toContain(`ARG BASE=${officialBase}\n`);
  });

  it.each(serviceImages)("builds $target with a pinned base, a non-root user, tini and deploy output only", (image) => {
    expect(imageProblems(dockerfile, image)).toEqual([]);
  });
});

const pinned = "node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d";
const build = `FROM ${pinned} AS build\nRUN pnpm install && pnpm --filter @gateway/edge deploy --prod /deploy/edge\n`;
const app = (lines: string) => `${build}FROM ${pinned} AS app\n${lines}`;
const good = 'COPY --from=build /deploy/edge /app\nUSER 1000:1000\nENTRYPOINT ["/usr/bin/tini", "--"]\n';
const problemsOf = (text: string, healthcheck = false) => imageProblems(text, { target: "app", healthcheck });

describe("the Dockerfile rules", () => {
  it("accept deploy output copied into a pinned, non-root, tini image", () => {
    expect(problemsOf(app(good))).toEqual([]);
  });

  it("refuse a base image pinned only by tag", () => {
    expect(problemsOf(app(good).replace(`FROM ${pinned} AS app`, "FROM node:24-bookworm-slim AS app"))).toEqual([
      "FROM node:24-bookworm-slim is not pinned by an @sha256 digest",
    ]);
  });

  it("judge a base given as a build argument by its default", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${BASE}, not a template.
    const argument = (value: string) => `ARG BASE=${value}\n${app(good).replaceAll(`FROM ${pinned}`, "FROM ${BASE}")}`;
    expect(problemsOf(argument(pinned))).toEqual([]);
    expect(problemsOf(argument("node:24-bookworm-slim"))).toEqual([
      "FROM node:24-bookworm-slim is not pinned by an @sha256 digest",
      "FROM node:24-bookworm-slim is not pinned by an @sha256 digest",
    ]);
  });

  it("refuse root, a user name and a missing USER", () => {
    expect(problemsOf(app(good.replace("USER 1000:1000", "USER 0")))).toEqual([
      "USER must be a numeric non-root id, found 0",
    ]);
    expect(problemsOf(app(good.replace("USER 1000:1000", "USER node")))).toEqual([
      "USER must be a numeric non-root id, found node",
    ]);
    expect(problemsOf(app(good.replace("USER 1000:1000\n", "")))).toEqual([
      "USER must be a numeric non-root id, found none (root)",
    ]);
  });

  it("take USER and ENTRYPOINT from the stage an image is built on", () => {
    const layered = `${build}FROM ${pinned} AS base\nUSER 1000\nENTRYPOINT ["tini", "--"]\nFROM base AS app\nCOPY --from=build /deploy/edge/dist /app\n`;
    expect(problemsOf(layered)).toEqual([]);
    expect(problemsOf(`${layered}USER 0:0\n`)).toEqual(["USER must be a numeric non-root id, found 0:0"]);
  });

  it("refuse an image started without tini", () => {
    expect(problemsOf(app(good.replace('ENTRYPOINT ["/usr/bin/tini", "--"]', 'ENTRYPOINT ["node"]')))).toEqual([
      "ENTRYPOINT must be tini in exec form (signals, zombie reaping), found node",
    ]);
  });

  it("refuse node_modules with dev dependencies, the build context, ADD and installs in the image", () => {
    expect(problemsOf(app(`COPY --from=build /src/node_modules /app/node_modules\n${good}`))).toEqual([
      "COPY /src/node_modules from build is not inside a `pnpm deploy --prod` output directory",
    ]);
    expect(problemsOf(app(`COPY . /app\n${good}`))).toEqual([
      "COPY . takes from the build context, not a `pnpm deploy --prod` output",
    ]);
    expect(problemsOf(app(`ADD app.tar /app\n${good}`))).toEqual(["ADD app.tar /app: only COPY of deploy output"]);
    expect(problemsOf(app(`${good}RUN npm install --omit=dev\n`))).toEqual([
      "RUN npm install --omit=dev installs packages into the image",
    ]);
  });

  it("refuse a deploy that keeps dev dependencies", () => {
    expect(problemsOf(app(good).replace("deploy --prod /deploy/edge", "deploy /deploy/edge"))).toEqual([
      "COPY /deploy/edge from build is not inside a `pnpm deploy --prod` output directory",
    ]);
  });

  it("require a HEALTHCHECK where asked, and NONE does not count", () => {
    expect(problemsOf(app(good), true)).toEqual(["HEALTHCHECK missing"]);
    expect(problemsOf(app(`${good}HEALTHCHECK NONE\n`), true)).toEqual(["HEALTHCHECK missing"]);
    expect(problemsOf(app(`${good}HEALTHCHECK --interval=5s CMD ["node", "-e", "1"]\n`), true)).toEqual([]);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./repo-paths.js";

// docs/endpoints.md against edge's route registrations: each heading names the routes it
// describes as `METHOD /path`, and the "Not offered" section the refused families.

const read = (path: string) => readFileSync(`${repoRoot}${path}`, "utf8");
const app = read("services/edge/src/app.ts");
const gemini = read("services/edge/src/routes/gemini.ts");
const refusedSource = read("services/edge/src/routes/refused-endpoints.ts");
const doc = read("docs/endpoints.md");

/** Path parameters compare by place, not name: `:taskId` in the code is `{task_id}` in the docs. */
const normalized = (route: string) => route.replace(/\/(?::[A-Za-z]+|\{[A-Za-z_]+\})/g, "/{}");

function registeredRoutes(): string[] {
  const routes: string[] = [];
  const registrations = /\b(app|v1|routes)\.(get|post|delete|put|patch)\(\s*"([^"]+)"/g;
  for (const [, router, method, path] of app.matchAll(registrations)) {
    routes.push(`${method!.toUpperCase()} ${router === "v1" ? "/v1" : ""}${path}`);
  }
  // Gemini's router is mounted at /v1beta (and beside OpenAI's at /v1 for @google/genai 3).
  for (const [, , method, path] of gemini.matchAll(registrations)) {
    const route = `${method!.toUpperCase()} /v1beta${path!.replace("\\\\:", ":")}`;
    if (!route.endsWith(":action")) {
      routes.push(route);
      continue;
    }
    const actions = /const actions[^{]*\{([\s\S]*?)\n {2}\};/.exec(gemini)![1]!;
    for (const [, action] of actions.matchAll(/^\s+(\w+):/gm)) routes.push(route.replace(":action", action!));
  }
  return routes.map(normalized);
}

function documentedRoutes(): string[] {
  const headings = doc.split("\n").filter((line) => line.startsWith("## "));
  return headings
    .flatMap((heading) =>
      [...heading.matchAll(/`((?:GET|POST|DELETE|PUT|PATCH) \/[^`]*)`/g)].map(([, route]) => route!),
    )
    .map(normalized);
}

function notOfferedSection(): string {
  const start = doc.indexOf("## Not offered");
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

describe("docs/endpoints.md", () => {
  const registered = registeredRoutes();
  const documented = documentedRoutes();

  it("reads edge's routes, so an empty scan cannot pass", () => {
    expect(registered).toEqual(
      expect.arrayContaining([
        "POST /v1/chat/completions",
        "GET /v1/videos/generations/{}/content",
        "POST /v1beta/models/{}:generateContent",
      ]),
    );
  });

  it("describes every route edge registers", () => {
    expect(registered.filter((route) => !documented.includes(route))).toEqual([]);
  });

  it("describes no route edge does not register", () => {
    expect(documented.filter((route) => !registered.includes(route))).toEqual([]);
  });

  it("lists exactly the API families edge refuses", () => {
    const refused = [...refusedSource.matchAll(/\["(\/[^"]+)", "/g)].map(([, prefix]) => `/v1${prefix}`);
    const listed = [...notOfferedSection().matchAll(/`(\/v1\/[^`]+)`/g)].map(([, prefix]) => prefix!);
    expect(refused.length).toBeGreaterThan(0);
    expect(listed.sort()).toEqual(refused.sort());
  });
});

import { GatewayError } from "@gateway/platform";
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/console-error.js";
import type { CatalogueEditor } from "../router-client.js";
import type { OperatorGuards } from "../sessions/operator-roles.js";

// The change itself is router's to validate (catalogue-edits.ts, then the whole catalogue's check):
// here only its shape as one JSON object with an action.
const changeBody = z.looseObject({ action: z.string().min(1).max(64) });
const historyQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });
const testBody = z.object({ model: z.string().trim().max(128).default("") });

const parsed = (json: string) => (json ? JSON.parse(json) : null);

// Router names every problem, one per line after its first ("the catalogue refused the change:").
const problemsOf = (message: string) =>
  message
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The catalogue edited from the console: every operator reads it and its history, only an admin
 * changes it or tests a channel. Each change reaches router's CatalogueAdminService with the
 * operator as actor, so the catalogue's own audit says who.
 */
export function catalogueEditRoutes(api: Router, editor: CatalogueEditor, guards: OperatorGuards): void {
  api.get("/admin/catalogue/stored", guards.requireOperator, async (_request, response) => {
    const { revision, catalogueJson } = await editor.getCatalogue({});
    response.json({ revision, catalogue: parsed(catalogueJson) });
  });
  api.get("/admin/catalogue/history", guards.requireOperator, async (request, response) => {
    const { limit } = parseInput(historyQuery, request.query);
    const { changes } = await editor.listCatalogueChanges({ limit });
    response.json({
      changes: changes.map(({ beforeJson, afterJson, ...change }) => ({
        ...change,
        before: parsed(beforeJson),
        after: parsed(afterJson),
      })),
    });
  });
  api.post("/admin/catalogue/changes", guards.requireAdmin, async (request, response) => {
    const change = parseInput(changeBody, request.body);
    const { identity } = guards.actorOf(response);
    try {
      response.json(await editor.changeCatalogue({ actor: identity, changeJson: JSON.stringify(change) }));
    } catch (error) {
      if (!(error instanceof GatewayError) || error.httpStatus !== 400) throw error;
      response.status(422).json({
        error: { code: "catalogue_refused", message: error.message, problems: problemsOf(error.message) },
      });
    }
  });
  api.post("/admin/channels/:name/test", guards.requireAdmin, async (request, response) => {
    const { model } = parseInput(testBody, request.body ?? {});
    response.json(await editor.testChannel({ channel: String(request.params.name), model }));
  });
}

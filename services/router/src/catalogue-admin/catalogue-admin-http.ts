import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { CatalogueRefused } from "@gateway/catalogue/store";
import type { AdminRoute, Logger } from "@gateway/platform";
import { z } from "zod";
import type { CatalogueAdmin } from "./catalogue-admin.js";

// A whole catalogue import is a few hundred KB of JSON.
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const digest = (value: string) => createHash("sha256").update(value).digest();
const actorSchema = z
  .string()
  .trim()
  .regex(/^[\w.@-]{1,64}$/);

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems?: string[],
  ) {
    super(message);
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpProblem(413, "body_too_large", `the body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpProblem(400, "invalid_json", "the body is not JSON");
  }
}

const send = (response: ServerResponse, status: number, body: unknown) =>
  void response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

/**
 * The catalogue admin API on router's admin port, for `pnpm gw`: `Authorization: Bearer
 * <GATEWAY_ADMIN_TOKEN>` on every call; `x-gateway-actor` names who changes (the audit's actor).
 *   GET  /admin/catalogue            the catalogue in force, keys masked, and its revision
 *   POST /admin/catalogue/changes    one change (catalogue-edits.ts); 422 with `problems` when malformed or refused
 *   GET  /admin/catalogue/changes    the audit, newest first (?limit=, at most 500)
 */
export function catalogueAdminRoute(admin: CatalogueAdmin, adminToken: string, logger: Logger): AdminRoute {
  const expected = digest(adminToken);
  return (request, response) => {
    const answer = async () => {
      const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (!presented || !timingSafeEqual(digest(presented), expected)) {
        throw new HttpProblem(
          401,
          "invalid_api_key",
          "Missing or incorrect admin token: send Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.",
        );
      }
      const url = new URL(request.url ?? "/", "http://admin");
      const route = `${request.method} ${url.pathname}`;
      if (route === "GET /admin/catalogue") return admin.read();
      if (route === "GET /admin/catalogue/changes") {
        const limit = z.coerce
          .number()
          .int()
          .min(1)
          .max(500)
          .catch(50)
          .parse(url.searchParams.get("limit") ?? 50);
        return { data: await admin.history(limit) };
      }
      if (route === "POST /admin/catalogue/changes") {
        const change = await readJson(request);
        const actor = actorSchema.safeParse(request.headers["x-gateway-actor"]);
        // The CLI's operator, as the ledger's audit names them.
        return admin.change(actor.success ? `cli:${actor.data}` : "cli", change);
      }
      throw new HttpProblem(404, "not_found", `no route ${route}`);
    };
    answer().then(
      (body) => send(response, 200, body),
      (error: unknown) => {
        if (error instanceof CatalogueRefused) {
          return send(response, 422, {
            error: {
              message: error.message,
              type: "invalid_request_error",
              code: "catalogue_refused",
              problems: error.problems,
            },
          });
        }
        if (error instanceof HttpProblem) {
          return send(response, error.status, {
            error: {
              message: error.message,
              type: "invalid_request_error",
              code: error.code,
              problems: error.problems,
            },
          });
        }
        logger.error({ err: error }, "catalogue admin request failed");
        send(response, 500, {
          error: { message: "the catalogue admin API failed", type: "api_error", code: "internal" },
        });
      },
    );
  };
}

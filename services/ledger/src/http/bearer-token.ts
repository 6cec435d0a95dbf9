import type { Request } from "express";

/** The token of an `Authorization: Bearer <token>` header, or "" when there is none. */
export function bearerToken(request: Request): string {
  const header = request.get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
}

import type { Response } from "express";
import { sessionOf } from "../sessions/require-session.js";

/** The signed-in admin as ledger's records name an actor: `console:PROVIDER:SUBJECT`. */
export function adminActor(response: Response): string {
  const session = sessionOf(response);
  return `console:${session.provider}:${session.subject}`;
}

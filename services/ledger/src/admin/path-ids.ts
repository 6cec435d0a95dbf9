import type { Request } from "express";
import { z } from "zod";
import { accountNotFound, keyNotFound } from "../ledger-errors.js";

const uuid = z.uuid();

// An id that is not even a uuid cannot name anything: answer 404 like any unknown id.

export function accountIdOf(request: Request): string {
  const id = String(request.params.accountId);
  if (!uuid.safeParse(id).success) throw accountNotFound(id);
  return id;
}

export function keyIdOf(request: Request): string {
  const id = String(request.params.keyId);
  if (!uuid.safeParse(id).success) throw keyNotFound(id);
  return id;
}

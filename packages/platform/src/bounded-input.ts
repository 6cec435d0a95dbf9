import { z } from "zod";

// Bounds every service applies to what a client sends, so no identifier, number or text can
// fail a protobuf encoding, a Postgres write or a gRPC status instead of getting a 400.

/** The longest model id accepted anywhere; catalogue ids are far shorter. */
export const MAX_MODEL_CHARS = 256;

/** The largest value a protobuf int32 field holds. */
export const INT32_MAX = 2_147_483_647;

export const modelId = z.string().min(1).max(MAX_MODEL_CHARS);

/** A whole number from `min` that still fits a protobuf int32 field. */
export const int32From = (min: number) => z.number().int().min(min).max(INT32_MAX);

/** Postgres text cannot hold NUL: a client's string with one must be refused before it gets there. */
export const hasNoNul = (text: string) => !text.includes("\0");

/** A client's string that may be stored in or compared against Postgres. */
export const storableText = z.string().refine(hasNoNul, "must not contain NUL (\\u0000) characters");

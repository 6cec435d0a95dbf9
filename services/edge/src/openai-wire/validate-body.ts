import { echoed, invalidRequest } from "@gateway/platform";
import type { z } from "zod";

/** `messages[0].content` style, as OpenAI names a parameter. */
function paramName(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index ? "." : ""}${String(part)}`))
    .join("");
}

function describe(issue: z.core.$ZodIssue): { param: string; message: string } {
  if (issue.code === "unrecognized_keys") {
    // A key is the client's own text: repeated only in part, however long it is.
    const key = echoed(issue.keys[0] ?? "");
    const param = paramName([...issue.path, key]);
    return { param, message: `Unrecognized request argument supplied: ${param}` };
  }
  if (issue.code === "invalid_union" && "note" in issue && issue.note === "No matching discriminator") {
    const param = paramName(issue.path);
    return { param, message: `Invalid value for '${param}': not one of the supported values.` };
  }
  const param = paramName(issue.path);
  return { param, message: `Invalid '${param}': ${issue.message}.` };
}

/** Parses a body with a schema or throws a 400 naming the first offending parameter. */
export function validateBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    throw invalidRequest("The request body must be a JSON object (Content-Type: application/json).");
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const { param, message } = describe(parsed.error.issues[0]!);
  throw invalidRequest(message, param || null);
}

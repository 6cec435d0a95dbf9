import { invalidRequest, payloadTooLarge } from "@gateway/platform";
import busboy from "busboy";
import type { Request } from "express";
import { meteredBody, stopMetering } from "./body-budget.js";

export interface MultipartLimits {
  // File fields the endpoint takes and how many files each may carry; any other file is refused.
  fileFields: Record<string, number>;
  // Per file and for all files together; over either is a 413 naming the field.
  maxFileBytes: number;
  maxTotalFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
}

export interface UploadedPart {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartForm {
  // A repeated name (timestamp_granularities[]) keeps every value, in order.
  fields: Record<string, string | string[]>;
  files: UploadedPart[];
}

// busboy reports a body cut before its closing boundary on the parser and on the file being read.
const malformedBody = () => invalidRequest("The multipart body is malformed or ends before its closing boundary.");

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

function addField(fields: MultipartForm["fields"], name: string, value: string): void {
  const existing = fields[name];
  if (existing === undefined) fields[name] = value;
  else fields[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
}

/**
 * Reads a multipart/form-data body as it streams in, holding at most the limits in memory: a
 * file that grows past them ends the read at once with a 413, and the rest of the body is
 * discarded unread (Node drains it after the response) rather than buffered.
 */
export function readMultipart(request: Request, limits: MultipartLimits): Promise<MultipartForm> {
  const contentType = request.headers["content-type"] ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
    return Promise.reject(
      invalidRequest("This endpoint takes multipart/form-data (Content-Type: multipart/form-data)."),
    );
  }
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: [] };
    const counts = new Map<string, number>();
    let totalBytes = 0;
    let settled = false;
    let parser: busboy.Busboy;
    const body = meteredBody(request);
    try {
      parser = busboy({
        headers: request.headers,
        limits: {
          fileSize: limits.maxFileBytes,
          files: Object.values(limits.fileFields).reduce((sum, count) => sum + count, 0),
          fields: limits.maxFields,
          fieldSize: limits.maxFieldBytes,
        },
      });
    } catch {
      reject(invalidRequest("The multipart body has no boundary."));
      return;
    }
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      stopMetering(request);
      parser.removeAllListeners();
      // Something may still be emitted by the abandoned parser; keep it from crashing the process.
      parser.on("error", () => {});
      request.resume();
      reject(error);
    };

    parser.on("file", (field, stream, info) => {
      stream.on("error", () => fail(malformedBody()));
      const allowed = limits.fileFields[field];
      const count = (counts.get(field) ?? 0) + 1;
      counts.set(field, count);
      if (allowed === undefined) {
        stream.resume();
        return fail(invalidRequest(`Unexpected file field '${field}'.`, field));
      }
      if (count > allowed) {
        stream.resume();
        return fail(invalidRequest(`Too many files in '${field}': at most ${allowed}.`, field));
      }
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => {
        totalBytes += chunk.length;
        if (totalBytes > limits.maxTotalFileBytes) {
          fail(
            payloadTooLarge(
              `The uploaded files are larger than ${megabytes(limits.maxTotalFileBytes)} together.`,
              field,
            ),
          );
        } else if (!settled) chunks.push(chunk);
      });
      stream.on("limit", () =>
        fail(payloadTooLarge(`The file '${info.filename}' is larger than ${megabytes(limits.maxFileBytes)}.`, field)),
      );
      stream.on("end", () => {
        if (settled) return;
        form.files.push({
          field,
          filename: info.filename ?? "",
          contentType: info.mimeType,
          data: Buffer.concat(chunks),
        });
      });
    });
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) return fail(invalidRequest(`The value of '${name}' is too long.`, name));
      addField(form.fields, name, value);
    });
    parser.on("filesLimit", () => fail(invalidRequest("Too many files in the request.")));
    parser.on("fieldsLimit", () => fail(invalidRequest("Too many fields in the request.")));
    parser.on("error", () => fail(malformedBody()));
    parser.on("close", () => {
      if (settled) return;
      settled = true;
      resolve(form);
    });
    // The client left (or its connection broke): nobody reads the answer, only clean-up is left.
    request.on("error", fail);
    // The body budget's refusal of a chunk past it.
    body.on("error", fail);
    body.pipe(parser);
  });
}

/** The files of one field (and its `name[]` spelling), in upload order. */
export const filesOf = (form: MultipartForm, ...fields: string[]) =>
  form.files.filter((file) => fields.includes(file.field));

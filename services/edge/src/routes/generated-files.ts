import { GatewayError, generatedFileIdPattern, generatedFileTypes, notFound } from "@gateway/platform";
import type { NextFunction, Request, Response } from "express";
import type { GeneratedFiles } from "../files/generated-files.js";

const urlRefused = (message: string, code: string) => new GatewayError(403, "invalid_request_error", code, message);

/**
 * GET /files/generated/{id}?expires&signature: a generated image, for whoever holds its signed
 * URL (no API key, as with OpenAI's image URLs), until the URL expires.
 */
export function generatedFile(files: GeneratedFiles) {
  return (request: Request, response: Response, next: NextFunction) => {
    const fileId = String(request.params.fileId);
    if (!generatedFileIdPattern.test(fileId)) throw notFound("No such file.");
    const verdict = files.signer.verify(fileId, request.query.expires, request.query.signature);
    if (verdict === "expired") throw urlRefused("This URL has expired.", "url_expired");
    if (verdict === "forged") throw urlRefused("This URL's signature is not valid.", "invalid_signature");
    const type = generatedFileTypes[fileId.slice(fileId.lastIndexOf(".") + 1)]!;
    response.sendFile(
      fileId,
      { root: files.directory, headers: { "content-type": type, "cache-control": "private, max-age=3600" } },
      (error) => {
        if (!error) return;
        if (response.headersSent) return void response.end();
        next((error as { code?: string }).code === "ENOENT" ? notFound("No such file.") : error);
      },
    );
  };
}

import { invalidRequest } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { AudioServiceClient } from "@gateway/proto/router/v1/audio";
import type { Request, Response } from "express";
import { callRouter } from "../http/call-router.js";
import { filesOf, readMultipart } from "../http/read-multipart.js";
import { checkAudioFile } from "../openai-wire/audio-file-type.js";
import { transcriptionFieldsSchema } from "../openai-wire/transcription-request-schema.js";
import { validateBody } from "../openai-wire/validate-body.js";

const transcriptionDeadlineMs = 10 * 60_000;
// OpenAI's limit for every transcription model.
const maxAudioBytes = 25 * 1024 * 1024;
export const audioLimits = {
  fileFields: { file: 1 },
  maxFileBytes: maxAudioBytes,
  maxTotalFileBytes: maxAudioBytes,
  maxFields: 20,
  maxFieldBytes: 64 * 1024,
};

/** POST /v1/audio/transcriptions (multipart): the transcript as the vendor wrote it, JSON or text. */
export function audioTranscriptions(service: AudioServiceClient) {
  return async (request: Request, response: Response) => {
    const form = await readMultipart(request, audioLimits);
    const fields = validateBody(transcriptionFieldsSchema, form.fields);
    const file = filesOf(form, "file")[0];
    if (!file) throw invalidRequest("Missing required parameter: 'file'.", "file");
    checkAudioFile(file.filename, file.data);
    const transcript = await callRouter(
      service.createTranscription.bind(service),
      {
        caller: response.locals.caller as Caller,
        model: fields.model,
        file: { filename: file.filename, contentType: file.contentType, data: file.data },
        language: fields.language,
        prompt: fields.prompt,
        responseFormat: fields.response_format,
        temperature: fields.temperature,
        timestampGranularities: fields["timestamp_granularities[]"] ?? [],
      },
      response,
      transcriptionDeadlineMs,
    );
    response.type(transcript.contentType).send(transcript.body);
  };
}

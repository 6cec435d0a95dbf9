import fc from "fast-check";
import {
  anyJson,
  deepNesting,
  hostileText,
  hugeNumber,
  longText,
  mostly,
  optionalField,
  toJsonText,
  unicodeText,
} from "./fuzz-values.js";
import { solidPng, wav } from "./media-fixtures.js";

// Request generators for every endpoint of the gateway, for the fuzz suite: mostly
// plausible requests with hostile values mixed in, then sometimes mangled on the wire.

export interface FuzzRequest {
  /** Which server: edge's API, or ledger's account API (it is not behind edge). */
  target: "edge" | "ledger";
  method: string;
  /** From the server's root, with its query. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Declares the whole body but sends only this many bytes of it, then closes the connection. */
  cutAt?: number;
  /** How the body was mangled, for the known-failure list and reports. */
  mangling: string;
  /** What the body said before it was serialised (JSON endpoints), for the known-failure list. */
  json?: Record<string, unknown>;
  /** The multipart fields and file kinds before they were serialised. */
  form?: { fields: Record<string, string>; files: Record<string, string> };
}

/** Texts that ask the simulated vendor to fail: the only case where a 5xx is the right answer. */
export const vendorFailureDirectives = [
  "[sim:status=500]",
  "[sim:status=503]",
  "[sim:status=429]",
  "[sim:cut_after=2]",
];
export const toldVendorToFail = (request: FuzzRequest) =>
  vendorFailureDirectives.some((directive) => request.body?.includes(directive));

export const chatModels = [
  "gpt-4o-mini",
  "claude-sonnet-4-6",
  "gemini-2.5-flash",
  "deepseek-chat",
  "qwen-plus",
  "grok-3",
];
const otherModels = ["dall-e-3", "whisper-1", "text-embedding-3-small", "sora-2", "no-such-model", "GPT-4O-MINI"];

/** A model name: the endpoint's own, another endpoint's, an unknown one, or hostile text. */
const modelName = (own: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...own) },
    { weight: 2, arbitrary: fc.constantFrom(...otherModels, ...chatModels) },
    { weight: 1, arbitrary: hostileText },
    { weight: 1, arbitrary: anyJson },
  );

const prose = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) },
  { weight: 2, arbitrary: unicodeText },
  { weight: 1, arbitrary: fc.constantFrom(...vendorFailureDirectives).map((directive) => `tell me ${directive}`) },
);

const smallInt = (max: number) => fc.integer({ min: 1, max });
const unitFloat = fc.double({ min: 0, max: 1, noNaN: true });
const tinyPngDataUrl = `data:image/png;base64,${solidPng([200, 30, 30], 8, 8).toString("base64")}`;
const imageUrl = fc.constantFrom(
  tinyPngDataUrl,
  "data:image/png;base64,not-base64!",
  "data:image/png;base64,",
  "http://127.0.0.1:1/private.png",
  "http://[::ffff:127.0.0.1]/private.png",
);
const metadata = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 4 }),
  deepNesting,
);
const functionTool = fc.record({
  type: mostly(fc.constant("function")),
  function: fc.record({
    name: mostly(fc.constantFrom("get_weather", "lookup")),
    parameters: optionalField(fc.oneof(fc.constant({ type: "object", properties: {} }), deepNesting)),
  }),
});

/** One of a list known only once the stack runs (ids created in the suite's setup). */
const oneOf = (list: () => string[]) => fc.nat().map((index) => list()[index % Math.max(1, list().length)] ?? "none");

/** Drops the fields generated as undefined, so "absent" is really absent. */
const compact = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

const chatMessage = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ role: mostly(fc.constantFrom("user", "system", "developer")), content: mostly(prose) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      role: fc.constant("user"),
      content: fc.array(
        fc.oneof(
          fc.record({ type: fc.constant("text"), text: mostly(prose) }),
          fc.record({ type: fc.constant("image_url"), image_url: fc.record({ url: imageUrl }) }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ role: fc.constant("tool"), content: prose, tool_call_id: mostly(fc.constant("call_1")) }),
  },
  { weight: 1, arbitrary: anyJson },
);

const chatBody = fc
  .record({
    model: modelName(chatModels),
    messages: fc.oneof(
      { weight: 8, arbitrary: fc.array(chatMessage, { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: anyJson },
    ),
    stream: optionalField(fc.boolean()),
    max_tokens: optionalField(smallInt(50)),
    max_completion_tokens: optionalField(smallInt(50)),
    n: optionalField(smallInt(3)),
    temperature: optionalField(fc.double({ min: 0, max: 2, noNaN: true })),
    top_p: optionalField(unitFloat),
    stop: optionalField(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 4 }))),
    tools: optionalField(fc.array(functionTool, { maxLength: 2 })),
    stream_options: optionalField(fc.constant({ include_usage: true })),
    metadata: optionalField(metadata),
    logit_bias: optionalField(fc.oneof(fc.constant({ "50256": -100 }), deepNesting)),
    response_format: optionalField(
      fc.oneof(
        fc.constant({ type: "json_object" }),
        fc.record({
          type: fc.constant("json_schema"),
          json_schema: fc.record({
            name: fc.constant("answer"),
            schema: fc.oneof(fc.constant({ type: "object" }), deepNesting),
          }),
        }),
      ),
    ),
  })
  .map(compact);

const anthropicBlock = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: mostly(fc.constant("text")), text: mostly(prose) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("image"),
      source: fc.oneof(
        fc.record({ type: fc.constant("base64"), media_type: fc.constantFrom("image/png", "image/bmp"), data: prose }),
        fc.record({ type: fc.constant("url"), url: imageUrl }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("tool_result"),
      tool_use_id: mostly(fc.constant("toolu_1")),
      content: optionalField(prose),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant("thinking"), thinking: prose, signature: mostly(fc.string()) }),
  },
  { weight: 1, arbitrary: anyJson },
);

const anthropicMessage = fc.record({
  role: mostly(fc.constantFrom("user", "assistant")),
  content: fc.oneof(
    { weight: 3, arbitrary: prose },
    { weight: 2, arbitrary: fc.array(anthropicBlock, { maxLength: 3 }) },
  ),
});

const messagesBody = fc
  .record({
    model: modelName(chatModels),
    max_tokens: mostly(smallInt(50)),
    messages: fc.oneof(
      { weight: 8, arbitrary: fc.array(anthropicMessage, { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: anyJson },
    ),
    system: optionalField(
      fc.oneof(prose, fc.array(fc.record({ type: fc.constant("text"), text: prose }), { maxLength: 2 })),
    ),
    stream: optionalField(fc.boolean()),
    temperature: optionalField(unitFloat),
    top_k: optionalField(smallInt(40)),
    stop_sequences: optionalField(fc.array(fc.string(), { maxLength: 3 })),
    tools: optionalField(
      fc.array(
        fc.record({
          name: mostly(fc.constantFrom("get_weather", "lookup")),
          input_schema: mostly(fc.oneof(fc.constant({ type: "object", properties: {} }), deepNesting)),
        }),
        { maxLength: 2 },
      ),
    ),
    tool_choice: optionalField(
      fc.oneof(fc.constant({ type: "any" }), fc.constant({ type: "tool", name: "lookup" }), anyJson),
    ),
    thinking: optionalField(
      fc.record({ type: fc.constant("enabled"), budget_tokens: fc.integer({ min: 0, max: 4096 }) }),
    ),
    cache_control: optionalField(fc.constant({ type: "ephemeral" })),
    metadata: optionalField(fc.oneof(fc.record({ user_id: prose }), deepNesting)),
  })
  .map(compact);

const completionBody = fc
  .record({
    model: modelName(chatModels),
    prompt: mostly(fc.oneof(prose, fc.array(prose, { maxLength: 3 }), fc.array(fc.nat(50_000), { maxLength: 5 }))),
    stream: optionalField(fc.boolean()),
    max_tokens: optionalField(smallInt(30)),
    n: optionalField(smallInt(3)),
    echo: optionalField(fc.boolean()),
    stop: optionalField(fc.string()),
    suffix: optionalField(fc.string()),
    logprobs: optionalField(fc.nat(5)),
    best_of: optionalField(smallInt(3)),
  })
  .map(compact);

const embeddingBody = fc
  .record({
    model: modelName(["text-embedding-3-small", "text-embedding-v3", "gemini-embedding-001"]),
    input: mostly(
      fc.oneof(
        prose,
        fc.array(prose, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(50_000), { minLength: 1, maxLength: 5 }),
      ),
    ),
    encoding_format: optionalField(fc.constantFrom("float", "base64")),
    dimensions: optionalField(fc.oneof(smallInt(1536), hugeNumber)),
    user: optionalField(fc.string()),
  })
  .map(compact);

const imageBody = fc
  .record({
    model: modelName(["gpt-image-2.6-sunburst", "imagen-4.0-fast-generate-001", "grok-imagine-image", "dall-e-3"]),
    prompt: mostly(prose),
    n: optionalField(fc.oneof(smallInt(2), hugeNumber)),
    size: optionalField(fc.constantFrom("1024x1024", "256x256", "1792x1024", "99999999999x1", "0x0")),
    quality: optionalField(fc.constantFrom("standard", "hd", "low", "high")),
    response_format: optionalField(fc.constantFrom("url", "b64_json")),
    style: optionalField(fc.constantFrom("vivid", "natural")),
  })
  .map(compact);

const responseInputItem = fc.oneof(
  fc.record({ role: mostly(fc.constantFrom("user", "system", "assistant")), content: mostly(prose) }),
  fc.record({
    role: fc.constant("user"),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant("input_text"), text: prose }),
        fc.record({ type: fc.constant("input_image"), image_url: imageUrl }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.record({ type: fc.constant("function_call_output"), call_id: mostly(fc.constant("call_1")), output: prose }),
  anyJson,
);

const responsesBody = (knownResponseIds: () => string[]) =>
  fc
    .record({
      model: modelName(chatModels),
      input: mostly(fc.oneof(prose, fc.array(responseInputItem, { minLength: 1, maxLength: 3 }))),
      instructions: optionalField(prose),
      stream: optionalField(fc.boolean()),
      store: optionalField(fc.boolean()),
      max_output_tokens: optionalField(fc.oneof(smallInt(40), hugeNumber)),
      temperature: optionalField(fc.double({ min: 0, max: 2, noNaN: true })),
      metadata: optionalField(metadata),
      tools: optionalField(
        fc.array(
          fc.record({
            type: mostly(fc.constantFrom("function", "web_search")),
            name: fc.constant("lookup"),
            parameters: optionalField(deepNesting),
          }),
          { maxLength: 2 },
        ),
      ),
      text: optionalField(
        fc.record({
          format: fc.oneof(
            fc.constant({ type: "json_object" }),
            fc.record({ type: fc.constant("json_schema"), name: fc.constant("a"), schema: deepNesting }),
          ),
        }),
      ),
      previous_response_id: optionalField(fc.oneof(oneOf(knownResponseIds), fc.string())),
    })
    .map(compact);

const videoBody = fc
  .record({
    model: modelName(["sora-2", "sora-2-landscape"]),
    prompt: mostly(prose),
    duration: optionalField(fc.oneof(fc.constantFrom(5, 10, 15, 20), hugeNumber)),
    async: mostly(fc.constant(true)),
    callback_url: optionalField(fc.constantFrom("http://127.0.0.1:1/callback", "ftp://x", "http://[::ffff:7f00:1]/cb")),
  })
  .map(compact);

const jsonContentTypes = fc.oneof(
  { weight: 10, arbitrary: fc.constant("application/json") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json; charset=utf-16",
      "application/json; charset=utf-7",
      "application/json; charset=bogus",
      "multipart/form-data",
      "",
    ),
  },
);

/** A body as the client sends it: serialised whole, with a duplicated field, cut short, empty or not JSON at all. */
const jsonWire = (body: Record<string, unknown>) => {
  const text = toJsonText(body);
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ text, mangling: "none" }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(body), "model"), fc.oneof(anyJson, hostileText))
        .map(([field, value]) => ({
          text: `{${toJsonText({ [field]: value }).slice(1, -1)},${text.slice(1)}`,
          mangling: "duplicate field",
        })),
    },
    {
      weight: 1,
      arbitrary: fc.nat().map((cut) => ({ text: text.slice(0, cut % text.length), mangling: "cut short" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("", "null", "[]", '"text"', "{", "\u0000")
        .map((text) => ({ text, mangling: "not an object" })),
    },
    {
      // Nesting only a UTF-7 decoder sees (`+AFs-` is `[`), past every depth bound.
      weight: 1,
      arbitrary: fc.integer({ min: 100, max: 50_000 }).map((levels) => ({
        text: `{${text.slice(1, -1)}${text.length > 2 ? "," : ""}"metadata":${"+AFs-".repeat(levels)}${"+AF0-".repeat(levels)}}`,
        mangling: "utf-7 nesting",
      })),
    },
  );
};

const geminiPart = fc.oneof(
  { weight: 6, arbitrary: fc.record({ text: mostly(prose) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      inlineData: fc.record({ mimeType: mostly(fc.constantFrom("image/png", "audio/wav")), data: fc.base64String() }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ fileData: fc.record({ fileUri: imageUrl }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      functionResponse: fc.record({ name: mostly(fc.constant("get_weather")), response: anyJson }),
    }),
  },
  { weight: 1, arbitrary: anyJson },
);

const geminiContent = fc.record({
  role: optionalField(mostly(fc.constantFrom("user", "model"))),
  parts: mostly(fc.array(geminiPart, { minLength: 1, maxLength: 3 })),
});

const geminiBody = fc
  .record({
    contents: mostly(fc.array(geminiContent, { minLength: 1, maxLength: 3 })),
    systemInstruction: optionalField(fc.record({ parts: fc.array(fc.record({ text: prose }), { maxLength: 2 }) })),
    tools: optionalField(
      fc.constant([
        {
          functionDeclarations: [
            { name: "get_weather", parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } } },
          ],
        },
      ]),
    ),
    generationConfig: optionalField(
      fc.record({
        temperature: optionalField(fc.double({ min: 0, max: 2, noNaN: true })),
        topK: optionalField(mostly(smallInt(40))),
        maxOutputTokens: optionalField(mostly(smallInt(50))),
        candidateCount: optionalField(mostly(smallInt(3))),
        responseMimeType: optionalField(mostly(fc.constantFrom("application/json", "text/plain"))),
        thinkingConfig: optionalField(fc.record({ thinkingBudget: mostly(fc.integer({ min: -1, max: 2048 })) })),
      }),
    ),
  })
  .map(compact);

const embedBody = fc
  .record({
    content: mostly(fc.record({ parts: fc.array(fc.record({ text: mostly(prose) }), { minLength: 1, maxLength: 2 }) })),
    outputDimensionality: optionalField(fc.oneof(smallInt(3072), hugeNumber)),
    taskType: optionalField(mostly(fc.constantFrom("RETRIEVAL_QUERY", "CLUSTERING"))),
  })
  .map(compact);

const geminiActions = ["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"];
const embeddingModels = ["text-embedding-3-small", "gemini-embedding-001"];

/** Gemini's `models/{model}:{action}` under /v1beta or /v1, the body fitting the action most of the time. */
const geminiCall = fc
  .tuple(
    fc.constantFrom("/v1beta", "/v1"),
    // Lone surrogates become U+FFFD first: encodeURIComponent throws on them.
    modelName([...chatModels, ...embeddingModels]).map((model) =>
      encodeURIComponent(Buffer.from(typeof model === "string" ? model : (JSON.stringify(model) ?? "")).toString()),
    ),
    mostly(fc.constantFrom(...geminiActions)),
    fc.constantFrom("", "?alt=sse"),
  )
  .chain(([version, model, generatedAction, query]) => {
    // A generated JSON object may carry its own `toString` key, which String() cannot convert.
    const action = typeof generatedAction === "string" ? generatedAction : (JSON.stringify(generatedAction) ?? "");
    const embed = action.toLowerCase().includes("embed");
    const body = embed
      ? action === "batchEmbedContents"
        ? fc.array(embedBody, { minLength: 1, maxLength: 3 }).map((requests) => ({ requests }))
        : embedBody
      : geminiBody;
    return jsonPost(`${version}/models/${model}:${encodeURIComponent(Buffer.from(action).toString())}${query}`, body);
  });

/** A JSON POST to one endpoint of edge. */
const jsonPost = (
  path: string,
  bodies: fc.Arbitrary<Record<string, unknown>>,
  extraHeaders = fc.constant<Record<string, string>>({}),
) =>
  fc.tuple(bodies, jsonContentTypes, extraHeaders).chain(([json, contentType, headers]) =>
    jsonWire(json).map(
      ({ text, mangling }): FuzzRequest => ({
        target: "edge",
        method: "POST",
        path,
        headers: { ...headers, ...(contentType && { "content-type": contentType }) },
        body: Buffer.from(text),
        mangling: contentType === "application/json" ? mangling : `${mangling}, content type ${contentType || "none"}`,
        json,
      }),
    ),
  );

/** A header value fetch can send (printable ASCII), plausible or not. */
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 300,
});

const idempotencyHeaders = fc.option(
  fc.oneof(fc.uuid(), headerValue).map((key) => ({ "idempotency-key": key })),
  { nil: {} as Record<string, string>, freq: 2 },
);

// WAV files as a careless or forging client writes them: cut off, lying about rates and sizes.
const wavFile = fc.oneof(
  { weight: 3, arbitrary: fc.constant(wav(0.5)).map((data) => ({ kind: "wav", data })) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        cut: fc.option(fc.integer({ min: 0, max: 44 }), { nil: undefined }),
        fmtSize: fc.constantFrom(16, 0, 2, 0xffffffff),
        channels: fc.constantFrom(1, 0, 0xffff),
        sampleRate: fc.constantFrom(8000, 0, 0xffffffff),
        byteRate: fc.constantFrom(16000, 0, 1, 0xffffffff),
        dataSize: fc.constantFrom(8000, 0, 0xffffffff),
      })
      .map(({ cut, fmtSize, channels, sampleRate, byteRate, dataSize }) => {
        const data = wav(0.5);
        data.writeUInt32LE(fmtSize, 16);
        data.writeUInt16LE(channels, 22);
        data.writeUInt32LE(sampleRate, 24);
        data.writeUInt32LE(byteRate, 28);
        data.writeUInt32LE(dataSize, 40);
        return {
          kind: cut === undefined ? "odd wav header" : "wav cut in its header",
          data: cut === undefined ? data : data.subarray(0, cut),
        };
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constant({
      kind: "mp3",
      data: Buffer.concat([Buffer.from("ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000"), Buffer.alloc(400)]),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: "random bytes", data: Buffer.from(bytes) })),
  },
);

const pngFile = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(64, 256, 512)
      .map((side) => ({ kind: `png ${side}`, data: solidPng([10, 20, 30], side, side) })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "png not square", data: solidPng([10, 20, 30], 64, 32) }) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0, max: 60 })
      .map((cut) => ({ kind: "png cut short", data: solidPng([1, 2, 3], 64, 64).subarray(0, cut) })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: "random bytes", data: Buffer.from(bytes) })),
  },
);

interface Part {
  name: string;
  value: Buffer;
  filename?: string;
}

const formField = (plausible: fc.Arbitrary<string>) =>
  fc.option(fc.oneof({ weight: 8, arbitrary: plausible }, { weight: 1, arbitrary: hostileText }), {
    nil: undefined,
    freq: 2,
  });

const filename = (plausible: string) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(plausible) },
    { weight: 1, arbitrary: fc.constantFrom("", 'a"b.png', "../../etc/passwd", "零.wav", "x".repeat(600)) },
  );

/** Multipart bytes: well formed, or cut before the closing boundary, with a wrong boundary, or none. */
const multipartWire = (parts: Part[]) =>
  fc
    .oneof(
      { weight: 10, arbitrary: fc.constant("none") },
      { weight: 1, arbitrary: fc.constantFrom("unterminated", "wrong boundary", "no boundary", "no part headers") },
    )
    .chain((mangling) => {
      const boundary = "fuzzboundary7MA4YWxkTrZu0gW";
      const encoded = parts.map(({ name, value, filename }) => {
        const disposition = `form-data; name="${name}"${filename === undefined ? "" : `; filename="${filename}"`}`;
        const head =
          mangling === "no part headers"
            ? ""
            : `Content-Disposition: ${disposition}\r\n${filename === undefined ? "" : "Content-Type: application/octet-stream\r\n"}`;
        return Buffer.concat([Buffer.from(`--${boundary}\r\n${head}\r\n`), value, Buffer.from("\r\n")]);
      });
      const whole = Buffer.concat([...encoded, Buffer.from(`--${boundary}--\r\n`)]);
      const contentType = {
        none: `multipart/form-data; boundary=${boundary}`,
        unterminated: `multipart/form-data; boundary=${boundary}`,
        "wrong boundary": "multipart/form-data; boundary=another",
        "no boundary": "multipart/form-data",
        "no part headers": `multipart/form-data; boundary=${boundary}`,
      }[mangling]!;
      const bodies =
        mangling === "unterminated"
          ? fc.nat().map((cut) => whole.subarray(0, whole.length > 10 ? 1 + (cut % (whole.length - 10)) : 0))
          : fc.constant(whole);
      return bodies.map((body) => ({ body, contentType, mangling }));
    });

const multipartPost = (
  path: string,
  fields: fc.Arbitrary<Record<string, string | undefined>>,
  files: fc.Arbitrary<Array<{ name: string; filename: string; kind: string; data: Buffer }>>,
) =>
  fc.tuple(fields, files).chain(([fieldValues, fileParts]) => {
    const present = Object.fromEntries(
      Object.entries(fieldValues).filter(([, value]) => value !== undefined),
    ) as Record<string, string>;
    const parts: Part[] = [
      ...Object.entries(present).map(([name, value]) => ({ name, value: Buffer.from(value) })),
      ...fileParts.map(({ name, filename, data }) => ({ name, filename, value: data })),
    ];
    return multipartWire(parts).map(
      ({ body, contentType, mangling }): FuzzRequest => ({
        target: "edge",
        method: "POST",
        path,
        headers: { "content-type": contentType },
        body,
        mangling,
        form: { fields: present, files: Object.fromEntries(fileParts.map(({ name, kind }) => [name, kind])) },
      }),
    );
  });

const imageEdit = multipartPost(
  "/v1/images/edits",
  fc.record({
    model: formField(fc.constantFrom("gpt-image-2.6-flare", "gpt-image-2.6-sunburst", "dall-e-2")),
    prompt: formField(fc.constant("add a hat")),
    n: formField(fc.constantFrom("1", "2", "0", "99999999999999999999", "-1")),
    size: formField(fc.constantFrom("256x256", "512x512", "1024x1024", "7x7")),
    response_format: formField(fc.constantFrom("url", "b64_json")),
    junk: fc.option(fc.constant("x"), { nil: undefined, freq: 8 }),
  }),
  fc
    .tuple(fc.constantFrom("image", "image[]"), pngFile, filename("photo.png"), fc.option(pngFile, { nil: undefined }))
    .map(([name, image, file, mask]) => [
      { name, filename: file, ...image },
      ...(mask ? [{ name: "mask", filename: "mask.png", ...mask }] : []),
    ]),
);

const transcription = multipartPost(
  "/v1/audio/transcriptions",
  fc.record({
    model: formField(fc.constantFrom("whisper-1", "gpt-4o-transcribe")),
    language: formField(fc.constantFrom("en", "zh", "english")),
    prompt: formField(prose),
    response_format: formField(fc.constantFrom("json", "text", "srt", "verbose_json", "vtt")),
    temperature: formField(fc.constantFrom("0", "0.5", "1", "2", "1e308")),
  }),
  fc
    .tuple(wavFile, filename("speech.wav"), fc.constantFrom("file", "audio"))
    .map(([file, name, field]) => [{ name: field, filename: name, ...file }]),
);

/** A path segment: an id of the right shape, hostile text, or one that tries to leave its route. */
const pathId = (known: () => string[]) =>
  fc
    .oneof(
      { weight: 3, arbitrary: oneOf(known) },
      { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: hostileText },
      { weight: 1, arbitrary: fc.constantFrom("..", "%00", "a%2Fb", "%E0%A4%A", "%", "resp_\u0000") },
    )
    // Lone surrogates become U+FFFD first: encodeURIComponent throws on them.
    .map((id) => (/%|\.\./.test(id) && !/[^\x21-\x7e]/.test(id) ? id : encodeURIComponent(Buffer.from(id).toString())));

const query = (params: Record<string, fc.Arbitrary<string | undefined>>) =>
  fc.record(params).map((values) => {
    const entries = Object.entries(values).filter(([, value]) => value !== undefined) as Array<[string, string]>;
    return entries.length ? `?${new URLSearchParams(entries).toString()}` : "";
  });

const get = (
  path: fc.Arbitrary<string>,
  method: fc.Arbitrary<string> = fc.constant("GET"),
  target: FuzzRequest["target"] = "edge",
) =>
  fc
    .tuple(path, method)
    .map(([fullPath, verb]): FuzzRequest => ({ target, method: verb, path: fullPath, headers: {}, mangling: "none" }));

const refusedPrefixes = [
  "/files",
  "/fine_tuning/jobs",
  "/uploads",
  "/batches",
  "/organization/users",
  "/billing",
  "/assistants",
  "/threads/t/runs",
  "/vector_stores",
  "/dashboard/billing/usage",
];

const timestamp = fc.oneof(
  fc
    .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc.constantFrom(
    "0000-01-01T00:00:00Z",
    "+275760-09-13T00:00:00Z",
    "9999-12-31T23:59:59.999Z",
    "1970-01-01T00:00:00+14:00",
    "2024-02-30T00:00:00Z",
    "not a date",
  ),
);
const day = fc.oneof(
  fc
    .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10)),
  fc.constantFrom("0000-01-01", "9999-12-31", "2024-13-01", "-0001-01-01"),
);
const cursor = fc
  .tuple(timestamp, fc.oneof(fc.uuid(), hostileText))
  .map(([at, id]) => Buffer.from(JSON.stringify([at, id])).toString("base64url"));
const hostileParam = (plausible: fc.Arbitrary<string>) =>
  fc.option(
    fc.oneof(
      { weight: 4, arbitrary: plausible },
      { weight: 1, arbitrary: hostileText.map((text) => text.slice(0, 2_000)) },
    ),
    { nil: undefined, freq: 2 },
  );

const accountApi = fc.oneof(
  fc.constant("/v1/account/balance"),
  fc
    .tuple(
      fc.constantFrom("/v1/account/usage", "/v1/account/logs"),
      query({
        from: hostileParam(timestamp),
        to: hostileParam(timestamp),
        model: hostileParam(fc.constantFrom("gpt-4o-mini", "a\u0000b")),
        key_id: hostileParam(fc.uuid()),
        limit: hostileParam(fc.constantFrom("1", "50", "500", "0", "99999999999999999999", "-1", "1.5")),
        cursor: hostileParam(cursor),
        status: hostileParam(fc.constantFrom("ok", "error", "bogus")),
      }),
    )
    .map(([path, search]) => `${path}${search}`),
  query({ from: hostileParam(day), to: hostileParam(day), model: hostileParam(fc.constant("gpt-4o-mini")) }).map(
    (search) => `/v1/account/statistics${search}`,
  ),
  pathId(() => []).map((id) => `/v1/account/logs/${id}`),
);

/** Ids of things that exist, so GET/DELETE generators hit real records as well as missing ones. */
export interface KnownIds {
  responses: () => string[];
  videos: () => string[];
}

/** One generator per endpoint, by the name the suite reports. */
export function endpointRequests(known: KnownIds): Record<string, fc.Arbitrary<FuzzRequest>> {
  return {
    "POST /v1/chat/completions": jsonPost("/v1/chat/completions", chatBody),
    "POST /v1/messages": jsonPost("/v1/messages", messagesBody, fc.constant({ "anthropic-version": "2023-06-01" })),
    "POST /v1/messages/count_tokens": jsonPost(
      "/v1/messages/count_tokens",
      messagesBody.map(({ max_tokens, stream, temperature, top_k, stop_sequences, metadata, ...count }) => count),
    ),
    "POST /v1/completions": jsonPost("/v1/completions", completionBody),
    "POST /v1/embeddings": jsonPost("/v1/embeddings", embeddingBody),
    "POST /v1/images/generations": jsonPost("/v1/images/generations", imageBody),
    "POST /v1/images/edits": imageEdit,
    "POST /v1/audio/transcriptions": transcription,
    "POST /v1/responses": jsonPost("/v1/responses", responsesBody(known.responses)),
    "GET and DELETE /v1/responses/{id}": get(
      pathId(known.responses).map((id) => `/v1/responses/${id}`),
      fc.constantFrom("GET", "DELETE", "PUT"),
    ),
    "POST /v1/videos/generations": jsonPost("/v1/videos/generations", videoBody, idempotencyHeaders),
    "GET /v1/videos/generations/{id}": get(
      fc
        .tuple(
          pathId(known.videos),
          fc.constantFrom("", "/content"),
          query({
            expires: hostileParam(fc.constantFrom("0", "4102444800", "99999999999999999999")),
            signature: hostileParam(fc.string({ unit: fc.constantFrom(..."0123456789abcdef") })),
          }),
        )
        .map(([id, tail, search]) => `/v1/videos/generations/${id}${tail}${search}`),
    ),
    "POST /v1beta/models/{model}:{action} (Gemini)": geminiCall,
    "GET /v1beta/models (Gemini)": get(
      fc.oneof(
        fc.constantFrom("/v1beta/models", "/v1beta/models?pageSize=2", "/v1beta/models?pageToken=%%%"),
        pathId(() => ["gemini-2.5-flash"]).map((id) => `/v1beta/models/${id}`),
      ),
    ),
    "GET /v1/models": get(
      fc.oneof(
        fc.constant("/v1/models"),
        pathId(() => ["gpt-4o-mini"]).map((id) => `/v1/models/${id}`),
        longText.map((id) => `/v1/models/${id}`),
      ),
    ),
    "refused and unknown endpoints": get(
      fc.oneof(
        fc
          .tuple(
            fc.constantFrom(...refusedPrefixes),
            pathId(() => []),
          )
          .map(([prefix, rest]) => `/v1${prefix}/${rest}`),
        pathId(() => []).map((rest) => `/v1/${rest}`),
        fc.constantFrom(
          "/",
          "/v2/chat/completions",
          "/v1",
          "/v1/",
          "/files/generated/x",
          "/files/generated/x?expires=1&signature=00",
          "/healthz",
        ),
      ),
      fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"),
    ),
    "account API (ledger)": get(accountApi, fc.constant("GET"), "ledger"),
  };
}

/** Requests without a usable key: each must be a 401 (or the 429 of the invalid-key slowdown), whatever the body. */
export const unauthenticated = fc
  .tuple(
    fc.constantFrom(
      "/v1/chat/completions",
      "/v1/messages",
      "/v1/responses",
      "/v1/images/edits",
      "/v1/audio/transcriptions",
      "/v1/models",
      "/v1/files",
    ),
    fc.option(
      fc.oneof(
        headerValue,
        headerValue.map((value) => `Bearer ${value}`),
        fc.constant("Bearer "),
        fc.constant(`Bearer ${"k".repeat(8_000)}`),
      ),
      { nil: undefined },
    ),
    fc.oneof(
      fc.constant(Buffer.alloc(0)),
      deepNesting.map((raw) => Buffer.from(`{"model":${raw.text}}`)),
    ),
  )
  .map(
    ([path, authorization, body]): FuzzRequest => ({
      target: "edge",
      method: "POST",
      path,
      headers: { "content-type": "application/json", ...(authorization !== undefined && { authorization }) },
      body,
      mangling: "no usable key",
    }),
  );

/** Requests whose body is declared whole but cut off mid-way by the client closing the connection. */
export const abandonedUploads = fc
  .tuple(
    fc.constantFrom("/v1/chat/completions", "/v1/audio/transcriptions", "/v1/images/edits", "/v1/responses"),
    fc.integer({ min: 0, max: 2_000 }),
  )
  .map(([path, cut]): FuzzRequest => {
    const multipart = path.includes("audio") || path.includes("images");
    const boundary = "abandoned";
    const body = multipart
      ? Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`,
          ),
          wav(0.2),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ])
      : Buffer.from(toJsonText({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(3_000) }] }));
    return {
      target: "edge",
      method: "POST",
      path,
      headers: { "content-type": multipart ? `multipart/form-data; boundary=${boundary}` : "application/json" },
      body,
      cutAt: Math.min(cut, body.length - 1),
      mangling: "connection closed mid-body",
    };
  });

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { parse } from "yaml";

// OpenAI's published OpenAPI document (spec/openapi.yaml, provenance in spec/README.md) as JSON
// Schema validators. OpenAPI 3.1's schemas are JSON Schema 2020-12, so its components load as
// they are into one schema that every validator refers into by `#/components/schemas/<name>`.

const specPath = fileURLToPath(new URL("../spec/openapi.yaml", import.meta.url));
const specId = "openai-openapi";

interface Spec {
  components: { schemas: Record<string, SchemaObject> };
}
interface SchemaObject {
  anyOf?: { $ref?: string }[];
  oneOf?: { $ref?: string }[];
  properties?: { type?: { enum?: unknown[] } };
}

let loaded: { spec: Spec; ajv: Ajv2020 } | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The document is parsed once per process (about 2 s) and each schema compiled on first use. */
function specValidators() {
  if (!loaded) {
    const spec = parse(readFileSync(specPath, "utf8")) as Spec;
    // The document carries its own vocabulary (x-oaiMeta, x-stainless-*, `format: unixtime`)
    // that JSON Schema does not know; it annotates and does not constrain, so it is not enforced.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: specId, components: spec.components });
    loaded = { spec, ajv };
  }
  return loaded;
}

function validatorOf(schemaName: string): ValidateFunction {
  let validate = compiled.get(schemaName);
  if (!validate) {
    const { spec, ajv } = specValidators();
    if (!spec.components.schemas[schemaName]) throw new Error(`OpenAI's spec has no schema ${schemaName}`);
    validate = ajv.compile({ $ref: `${specId}#/components/schemas/${schemaName}` });
    compiled.set(schemaName, validate);
  }
  return validate;
}

const describe = (error: ErrorObject) =>
  `${error.instancePath || "/"} ${error.message ?? error.keyword}${
    error.keyword === "additionalProperties" ? ` (${String(error.params.additionalProperty)})` : ""
  }`;

const valueAt = (root: unknown, pointer: string): unknown =>
  pointer
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((value, token) => (value as Record<string, unknown> | undefined)?.[token], root);

const typeOf = (value: unknown) => (value as { type?: unknown } | null | undefined)?.type;

/**
 * An error from a member of a union that the value's own `type` already rules out, such as a
 * refusal part's "must have property 'refusal'" for an output_text part: the spec's unions
 * (output items, content parts, tools) are told apart by `type`, so only the member named by
 * it speaks to what is wrong. Ajv's own discriminator support cannot read all of the spec's unions.
 */
function fromRuledOutMember(error: ErrorObject, root: unknown, schemas: Spec["components"]["schemas"]): boolean {
  const member = /^#\/components\/schemas\/([^/]+)/.exec(error.schemaPath)?.[1];
  const allowed = member ? schemas[member]?.properties?.type?.enum : undefined;
  if (!allowed) return false;
  const here = valueAt(root, error.instancePath);
  const typed = error.instancePath.endsWith("/type")
    ? typeOf(valueAt(root, error.instancePath.slice(0, -"/type".length)))
    : typeOf(here);
  return typed !== undefined && !allowed.includes(typed);
}

/**
 * What makes `value` differ from the named schema of OpenAI's spec (`components.schemas`), as
 * "<JSON pointer> <problem>" lines; none when it conforms.
 */
export function openAISpecErrors(schemaName: string, value: unknown): string[] {
  const validate = validatorOf(schemaName);
  if (validate(value)) return [];
  const schemas = specValidators().spec.components.schemas;
  const errors = (validate.errors ?? []).filter((error) => !fromRuledOutMember(error, value, schemas));
  const specific = errors.filter((error) => error.keyword !== "anyOf" && error.keyword !== "oneOf");
  return [...new Set((specific.length > 0 ? specific : errors).map(describe))];
}

const refName = (ref: string | undefined) => ref?.split("/").at(-1);

/**
 * The member of a union schema whose `type` property is `type`: stream events are an anyOf of
 * some sixty event schemas, whose errors together would bury the one that matters.
 */
function unionMember(unionName: string, type: unknown): string | undefined {
  const schemas = specValidators().spec.components.schemas;
  const members = (schemas[unionName]?.anyOf ?? schemas[unionName]?.oneOf ?? []).map((member) => refName(member.$ref));
  return members.find((name) => name !== undefined && schemas[name]?.properties?.type?.enum?.includes(type));
}

/** What makes a Responses `response` object differ from the spec's Response. */
export const responseErrors = (response: unknown): string[] => openAISpecErrors("Response", response);

/**
 * What makes one streamed Responses event differ from the spec's ResponseStreamEvent: checked
 * against the event schema its `type` names, and an error when no event schema has that type.
 */
export function responseStreamEventErrors(event: unknown): string[] {
  const type = (event as { type?: unknown } | null)?.type;
  const member = unionMember("ResponseStreamEvent", type);
  if (!member) return [`/type ${JSON.stringify(type)} is not a ResponseStreamEvent type`];
  return openAISpecErrors(member, event);
}

/**
 * `x-codeSamples` on every operation of the OpenAPI document: the `@rubricon/sdk` call, and the `rubricon` command
 * where the CLI has one. The reference at /docs (Scalar) shows them beside its own curl sample; other renderers
 * (Redoc, Mintlify) read the same extension.
 *
 * The SDK is generated from this document, so this module cannot import it. The SDK's method names follow from a
 * route's path and method alone; `sdkMethods` applies the rules of the SDK's generator (packages/sdk/scripts/
 * codegen.ts), and the SDK's tests check that every sample here names the method the SDK has.
 */

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  format?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  "x-codeSamples"?: CodeSample[];
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const RESERVED_ROOT = new Set(["request", "stream", "getRedirectUrl", "baseUrl", "constructor", "toString"]);

type Kind = "json" | "list" | "stream" | "redirect";
interface SdkMethod {
  method: string;
  path: string;
  kind: Kind;
  resource: string[];
  name: string;
}

const isParam = (segment: string) => /^\{.+\}$/.test(segment);
const camel = (segment: string) => {
  const words = segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
};
const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const looksPlural = (segment: string) => /[^su]s$/.test(segment) || /ies$/.test(segment);

function resolve(doc: Document, schema: Schema | undefined, depth = 0): Schema | undefined {
  if (!schema?.$ref || depth > 8) return schema;
  return resolve(doc, doc.components?.schemas?.[schema.$ref.split("/").pop()!] as Schema, depth + 1);
}

function success(op: Operation) {
  const status = Object.keys(op.responses ?? {})
    .filter((s) => /^[23]\d\d$/.test(s))
    .sort()[0];
  return { status: Number(status ?? 200), content: op.responses?.[status ?? "200"]?.content ?? {} };
}

function isList(doc: Document, op: Operation): boolean {
  const schema = resolve(doc, success(op).content["application/json"]?.schema);
  return schema?.properties?.data?.type === "array" && schema.properties.has_more !== undefined;
}

function kindOf(doc: Document, op: Operation): Kind {
  const { status, content } = success(op);
  if (status >= 300 && status < 400) return "redirect";
  if (content["text/event-stream"]) return "stream";
  const cursor = (op.parameters ?? []).some((p) => p.in === "query" && p.name === "starting_after");
  return isList(doc, op) && cursor ? "list" : "json";
}

/** The SDK's property path and method name for every operation, as its generator names them. */
export function sdkMethods(doc: Document): SdkMethod[] {
  const entries: (SdkMethod & { list: boolean })[] = [];
  const perPath = new Map<string, number>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      perPath.set(path, (perPath.get(path) ?? 0) + 1);
      entries.push({
        method: m.toUpperCase(),
        path,
        kind: kindOf(doc, op),
        list: isList(doc, op),
        resource: [],
        name: "",
      });
    }
  for (const e of entries) {
    const segments = e.path.split("/").filter(Boolean);
    const statics = segments.filter((s) => !isParam(s)).map(camel);
    const last = segments.at(-1) ?? "";
    const isAction = statics.length >= 2 && perPath.get(e.path) === 1;
    e.resource = statics;
    if (isParam(last)) e.name = e.method === "GET" ? "retrieve" : e.method === "DELETE" ? "del" : "update";
    else if (e.method === "GET") {
      if (e.list) e.name = "list";
      else if (isAction) [e.resource, e.name] = [statics.slice(0, -1), statics.at(-1)!];
      else e.name = "retrieve";
    } else if (e.method === "POST") {
      if (isAction && !looksPlural(last)) [e.resource, e.name] = [statics.slice(0, -1), statics.at(-1)!];
      else e.name = "create";
    } else e.name = e.method === "DELETE" ? "del" : "update";
  }
  const namespaces = new Set(
    entries.flatMap((e) => e.resource.map((_, i) => e.resource.slice(0, i + 1).join("."))),
  );
  for (const e of entries) {
    const asNamespace = [...e.resource, e.name];
    if (namespaces.has(asNamespace.join("."))) {
      e.resource = asNamespace;
      e.name = e.method === "GET" ? "retrieve" : "create";
    }
  }
  const seen = new Set<string>();
  for (const e of entries) {
    if (e.kind === "redirect") e.name = `${e.name}Url`;
    if (e.resource.length === 0) e.resource = ["root"];
    if (RESERVED_ROOT.has(e.resource[0]!)) e.resource[0] = `${e.resource[0]}Resource`;
    if (seen.has([...e.resource, e.name].join("."))) e.name = `${e.name}${pascal(e.method.toLowerCase())}`;
    seen.add([...e.resource, e.name].join("."));
  }
  return entries.map(({ list: _, ...e }) => e);
}

/** A value a reader recognises and edits: the schema's example first, then a placeholder by type. */
function exampleOf(schema: Schema | undefined, doc: Document, depth = 0): unknown {
  if (!schema || depth > 5) return undefined;
  if (schema.$ref) return exampleOf(resolve(doc, schema), doc, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return exampleOf(variants.find((v) => v.type !== "null") ?? variants[0], doc, depth + 1);
  if (schema.allOf?.length) return exampleOf(schema.allOf[0], doc, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "object") {
    const out: Record<string, unknown> = {};
    for (const key of schema.required ?? []) {
      const value = exampleOf(schema.properties?.[key], doc, depth + 1);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  if (type === "array") {
    const item = exampleOf(schema.items, doc, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (type === "string")
    return schema.format === "uri"
      ? "https://example.com"
      : schema.format === "date-time"
        ? "2026-01-01T00:00:00Z"
        : "string";
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  return undefined;
}

function sdkSample(m: SdkMethod, op: Operation, doc: Document, apiBase: string): string {
  const args = [...m.path.matchAll(/\{([^}]+)\}/g)].map((p) => JSON.stringify(p[1]));
  if (op.requestBody) {
    const content = op.requestBody.content ?? {};
    const body = exampleOf((content["application/json"] ?? Object.values(content)[0])?.schema, doc) ?? {};
    args.push(JSON.stringify(body, null, 2).replace(/"([A-Za-z_$][\w$]*)":/g, "$1:"));
  }
  const call = `rubricon.${[...m.resource, m.name].join(".")}(${args.join(", ")})`;
  const use =
    m.kind === "list"
      ? [`for await (const item of ${call}) {`, "  console.log(item);", "}"]
      : m.kind === "stream"
        ? [`for await (const event of await ${call}) {`, "  console.log(event.event, event.data);", "}"]
        : m.kind === "redirect"
          ? [`const url = await ${call};`, "console.log(url);"]
          : [`const result = await ${call};`, "console.log(result);"];
  return [
    'import { Rubricon } from "@rubricon/sdk";',
    "",
    `const rubricon = new Rubricon({ apiKey: process.env.RUBRICON_API_KEY, baseUrl: ${JSON.stringify(apiBase)} });`,
    "",
    ...use,
  ].join("\n");
}

/** The `rubricon` command for an operation, where the CLI has one (see docs/cli.md). */
const CLI: Record<string, string> = {
  "GET /auth/whoami": "rubricon whoami",
  "GET /evaluations": "rubricon evaluations list",
  "POST /evaluations":
    "rubricon evaluations create --name Checkout --type SSE --url https://example.com/a --url https://example.com/b",
  "GET /evaluations/{id}": "rubricon evaluations get {id}",
  "PATCH /evaluations/{id}": 'rubricon evaluations update {id} --set name="Checkout v2"',
  "DELETE /evaluations/{id}": "rubricon evaluations delete {id}",
  "GET /evaluations/{id}/export": "rubricon evaluations export {id} --format csv",
  "GET /evaluations/{id}/comparisons": "rubricon comparisons list {id}",
  "POST /evaluations/{id}/comparisons": "rubricon comparisons create {id} --file comparison.yaml",
  "GET /evaluations/{id}/comparisons/{comparisonId}": "rubricon comparisons get {id} {comparisonId}",
  "PATCH /evaluations/{id}/comparisons/{comparisonId}":
    'rubricon comparisons update {id} {comparisonId} --set name="Variant B"',
  "DELETE /evaluations/{id}/comparisons/{comparisonId}": "rubricon comparisons delete {id} {comparisonId}",
  "GET /evaluations/{id}/ratings": "rubricon ratings list {id}",
  "GET /evaluations/{id}/ratings/{ratingId}": "rubricon ratings get {id} {ratingId}",
  "GET /evaluations/{id}/results": "rubricon results {id}",
  "GET /evaluations/{id}/agreement": "rubricon agreement {id}",
  "POST /evaluations/{id}/run-autousers": "rubricon runs start {id} --autouser {autouserId}",
  "GET /evaluations/{id}/autouser-runs": "rubricon runs list {id}",
  "GET /evaluations/{id}/autouser-stream": "rubricon runs watch {id}",
  "POST /evaluations/{id}/stop-autousers": "rubricon runs stop {id}",
  "GET /templates": "rubricon templates list",
  "POST /templates": "rubricon templates create --file template.yaml",
  "GET /templates/{id}": "rubricon templates get {id}",
  "PATCH /templates/{id}": 'rubricon templates update {id} --set name="Clarity"',
  "DELETE /templates/{id}": "rubricon templates delete {id}",
  "GET /autousers": "rubricon autousers list",
  "POST /autousers": "rubricon autousers create --file autouser.yaml",
  "GET /autousers/{id}": "rubricon autousers get {id}",
  "PATCH /autousers/{id}": 'rubricon autousers update {id} --set name="Dana"',
  "DELETE /autousers/{id}": "rubricon autousers delete {id}",
  "GET /webhooks": "rubricon webhooks list",
  "POST /webhooks": "rubricon webhooks create --url https://example.com/hooks --events evaluation.created",
  "GET /webhooks/{id}": "rubricon webhooks get {id}",
  "PATCH /webhooks/{id}": "rubricon webhooks update {id} --set disabled=true",
  "DELETE /webhooks/{id}": "rubricon webhooks delete {id}",
  "POST /webhooks/{id}/rotate-secret": "rubricon webhooks rotate-secret {id}",
  "GET /events": "rubricon events list",
  "GET /events/{id}": "rubricon events get {id}",
  "GET /events/stream": "rubricon listen --forward-to http://localhost:4242/hooks",
  "GET /api-keys": "rubricon api-keys list",
  "POST /api-keys": "rubricon api-keys create --name ci",
  "DELETE /api-keys/{id}": "rubricon api-keys revoke {id}",
  "GET /usage": "rubricon usage",
};

/** The document with an SDK sample on every operation and a CLI sample where the CLI has the command. */
export function withCodeSamples<T>(document: T, apiBase: string): T {
  const doc = document as unknown as Document;
  for (const m of sdkMethods(doc)) {
    const op = doc.paths[m.path]![m.method.toLowerCase()]!;
    const samples: CodeSample[] = [
      { lang: "typescript", label: "SDK (TypeScript)", source: sdkSample(m, op, doc, apiBase) },
    ];
    const cli = CLI[`${m.method} ${m.path}`];
    if (cli) samples.push({ lang: "shell", label: "CLI", source: cli });
    op["x-codeSamples"] = [...(op["x-codeSamples"] ?? []), ...samples];
  }
  return document;
}

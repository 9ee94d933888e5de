import { type OperationSpec, operations } from "@rubricon/sdk";

/** The parts of an OpenAPI 3.1 document the samples read. */
export interface Schema {
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
  minItems?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  schema?: Schema;
}

export interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  "x-codeSamples"?: CodeSample[];
  [key: string]: unknown;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
  [key: string]: unknown;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** A value a reader can recognise and edit: the schema's own example first, then a placeholder by type. */
function exampleOf(schema: Schema | undefined, doc: OpenApiDocument, depth = 0): unknown {
  if (!schema || depth > 5) return undefined;
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop() ?? "";
    return exampleOf(doc.components?.schemas?.[name], doc, depth + 1);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return exampleOf(variants.find((v) => v.type !== "null") ?? variants[0], doc, depth + 1);
  if (schema.allOf?.length) return exampleOf(schema.allOf[0], doc, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) {
        const value = exampleOf(schema.properties?.[key], doc, depth + 1);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case "array": {
      const item = exampleOf(schema.items, doc, depth + 1);
      return item === undefined ? [] : [item];
    }
    case "string":
      if (schema.format === "uri") return "https://example.com";
      if (schema.format === "email") return "ada@example.com";
      if (schema.format === "date-time") return "2026-01-01T00:00:00Z";
      return "string";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    default:
      return undefined;
  }
}

function literal(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2)
    .split("\n")
    .map((line, i) => (i === 0 ? line : indent + line))
    .join("\n")
    .replace(/"([A-Za-z_$][\w$]*)":/g, "$1:");
}

/** The `@rubricon/sdk` call for one operation, as a user would write it. */
export function sdkSample(
  op: OperationSpec,
  operation: Operation,
  doc: OpenApiDocument,
  apiBase: string,
): string {
  const args = op.pathParams.map((name) => {
    const p = operation.parameters?.find((x) => x.in === "path" && x.name === name);
    const value = p?.example ?? p?.schema?.example;
    return JSON.stringify(typeof value === "string" ? value : `${name}`);
  });
  if (op.hasBody) {
    const content = operation.requestBody?.content ?? {};
    const schema = (content["application/json"] ?? Object.values(content)[0])?.schema;
    const body = exampleOf(schema, doc) ?? {};
    args.push(literal(body, ""));
  }
  const call = `rubricon.${[...op.resource, op.name].join(".")}(${args.join(", ")})`;
  const lines = [
    'import { Rubricon } from "@rubricon/sdk";',
    "",
    `const rubricon = new Rubricon({ apiKey: process.env.RUBRICON_API_KEY, baseUrl: ${JSON.stringify(apiBase)} });`,
    "",
  ];
  switch (op.kind) {
    case "list":
      lines.push(`for await (const item of ${call}) {`, "  console.log(item);", "}");
      break;
    case "stream":
      lines.push(
        `for await (const event of await ${call}) {`,
        "  console.log(event.event, event.data);",
        "}",
      );
      break;
    case "redirect":
      lines.push(`const url = await ${call};`, "console.log(url);");
      break;
    default:
      lines.push(`const result = await ${call};`, "console.log(result);");
  }
  return lines.join("\n");
}

/**
 * The live document with an SDK sample on every operation the SDK has a method for, matched by method and path
 * from the SDK's own operation table, so a sample never names a method that does not exist. Curl samples come
 * from the renderer's generator.
 */
export function withSdkSamples(doc: OpenApiDocument, apiBase: string): OpenApiDocument {
  const byRoute = new Map(operations.map((op) => [`${op.method} ${op.path}`, op]));
  const paths: OpenApiDocument["paths"] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    const next: Record<string, Operation> = { ...item };
    for (const method of METHODS) {
      const operation = item[method];
      const op = byRoute.get(`${method.toUpperCase()} ${path}`);
      if (!operation || !op) continue;
      next[method] = {
        ...operation,
        "x-codeSamples": [
          ...(operation["x-codeSamples"] ?? []),
          { lang: "typescript", label: "SDK (TypeScript)", source: sdkSample(op, operation, doc, apiBase) },
        ],
      };
    }
    paths[path] = next;
  }
  return { ...doc, paths };
}

import { ErrorEnvelope } from "@rubricon/contracts";
import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenApiRouter } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import type { RouteTable } from "../http/route-table";
import { apiVersionChangelog, apiVersionsDescription } from "../versions";
import { withCodeSamples } from "./code-samples";
import {
  ERROR_STATUSES,
  errorResponses,
  headerComponents,
  RATE_LIMIT_HEADERS,
  REDIRECT_RESPONSE,
} from "./components";
import { accessNotes, TAGS } from "./descriptions";
import { carryBodyRules, conditionalGet, multipartBody, type Operation, streamOperation } from "./operations";

/**
 * trpc-to-openapi's document plus one post-processing step: the real success status of each route, the error
 * envelope on every error response, the request-id header, and one global bearer scheme.
 */
export function buildOpenApiDocument(
  router: AnyRouter,
  routes: RouteTable,
  baseUrl: string,
): Record<string, unknown> {
  const doc = generateOpenApiDocument(router as unknown as OpenApiRouter, {
    openApiVersion: "3.1.0",
    title: "API",
    version: "v1",
    description:
      "Rubricon REST API: UX evaluations rated by people and autousers. Every error response carries the " +
      `ErrorEnvelope.\n\n${apiVersionsDescription()}`,
    baseUrl: `${baseUrl}/api/v1`,
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description: "API key (`ak_live_...`) or OAuth access token.",
      },
    },
  }) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: {
      schemas?: Record<string, unknown>;
      securitySchemes?: unknown;
      responses?: Record<string, unknown>;
      headers?: Record<string, unknown>;
    };
    security?: unknown;
    tags?: { name: string; description: string }[];
  };

  (doc as unknown as { info: Record<string, unknown> }).info["x-api-versions"] = apiVersionChangelog();

  // ErrorEnvelope carries an id in its meta, so zod-openapi answers a $ref and puts the schema in components.
  const envelope = createSchema(ErrorEnvelope);
  doc.components.schemas = {
    ...doc.components.schemas,
    ...envelope.components,
    ErrorEnvelope: envelope.components?.ErrorEnvelope ?? envelope.schema,
  };
  doc.components.headers = headerComponents();
  doc.components.responses = errorResponses();
  // trpc-to-openapi registers its own error schemas; every error here answers the ErrorEnvelope instead.
  for (const name of Object.keys(doc.components.schemas ?? {}))
    if (name.startsWith("error.")) delete doc.components.schemas![name];
  // The specification declares Bearer as the single security scheme. The dashboard's session cookie is not a
  // scheme third parties use; the routes that take only it say so in their description and `x-session-only`.
  doc.security = [{ bearerAuth: [] }];
  const usedTags = new Set<string>();

  for (const route of routes.routes) {
    const oasPath = route.path;
    if (route.stream) {
      doc.paths[oasPath] = { ...doc.paths[oasPath], [route.method.toLowerCase()]: streamOperation(route) };
    }
    const op = doc.paths[oasPath]?.[route.method.toLowerCase()];
    if (!op) continue;
    delete op.security;
    const success = String(route.meta.successStatus ?? 200);
    const responses = op.responses ?? {};
    const ok = (responses["200"] ?? { description: "Success" }) as Record<string, unknown>;
    delete responses["200"];
    for (const key of Object.keys(responses)) if (/^[45]\d\d$/.test(key)) delete responses[key];
    const extra = Object.fromEntries(
      (route.meta.produces ?? []).map((type) => [type, { schema: { type: "string" } }]),
    );
    responses[success] =
      success === "302"
        ? REDIRECT_RESPONSE
        : {
            ...ok,
            ...(route.meta.produces ? { content: { ...(ok.content as object), ...extra } } : {}),
            headers: { "X-Request-Id": { $ref: "#/components/headers/XRequestId" }, ...RATE_LIMIT_HEADERS },
          };
    for (const status of Object.keys(ERROR_STATUSES))
      responses[status] = { $ref: `#/components/responses/Error${status}` };
    if (route.meta.reusedBody) conditionalGet(op, responses, success);
    op.responses = responses;
    // One scope as a string (every route but a few); routes that need several list them all.
    const scopes = [route.meta.scope ?? []].flat();
    if (scopes.length === 1) op["x-required-scope"] = scopes[0];
    if (scopes.length > 1) op["x-required-scopes"] = scopes;
    // The same meta `assertMayCall` enforces: a session-only route refuses keys and tokens with 403.
    if (route.meta.sessionOnly) op["x-session-only"] = true;
    if (route.meta.public) {
      // Reached without credentials (device pairing): no security requirement.
      op["x-public"] = true;
      op.security = [];
    }
    if (route.meta.deprecation) {
      op.deprecated = true;
      responses["410"] = { $ref: "#/components/responses/Error410" };
    }
    if (route.meta.unmetered) op["x-unmetered"] = true;
    if (route.meta.routeLimit) op["x-route-limit"] = route.meta.routeLimit;
    if (route.meta.feature) {
      responses["503"] = { $ref: "#/components/responses/Error503" };
      op["x-feature-flag"] = route.meta.feature;
    }
    if (route.meta.plans) op["x-plans"] = route.meta.plans;
    // zod-openapi puts a field's description on its schema; readers and tools look for it on the parameter.
    for (const param of (op.parameters ?? []) as {
      description?: string;
      schema?: { description?: string };
    }[])
      if (!param.description && param.schema?.description) param.description = param.schema.description;
    if (route.meta.upload) op.requestBody = multipartBody(route);
    else carryBodyRules(route, op);
    if (route.method === "POST" || route.method === "PATCH" || route.method === "PUT") {
      responses["413"] = { $ref: "#/components/responses/Error413" };
      responses["415"] = { $ref: "#/components/responses/Error415" };
    }
    op.description = [op.description, ...accessNotes(route.meta)].filter(Boolean).join("\n\n");
    for (const tag of op.tags ?? []) usedTags.add(tag);
  }
  doc.tags = [...usedTags].map((name) => {
    const description = TAGS[name];
    if (!description)
      throw new Error(`The OpenAPI tag \`${name}\` has no description in openapi/descriptions.ts.`);
    return { name, description };
  });
  return withCodeSamples(doc, `${baseUrl}/api/v1`) as unknown as Record<string, unknown>;
}

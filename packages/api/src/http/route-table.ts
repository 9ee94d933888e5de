import { ApiError } from "@rubricon/core";
import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { z } from "zod";
import type { RouteMeta } from "../request/route-meta";
import { procedureDef, routerProcedures } from "../trpc/internals";

export interface Route {
  method: string;
  path: string;
  procedurePath: string;
  procedure: AnyProcedure;
  meta: RouteMeta;
  paramNames: string[];
  regex: RegExp;
  isStatic: boolean;
  /** A server-sent event stream (a tRPC subscription declared with `meta.stream`). */
  stream: boolean;
  /**
   * The input fields the procedure accepts (path parameters included), or null when its schema takes any: a
   * query parameter outside them is refused, as an unknown body field is.
   */
  readonly inputNames: ReadonlySet<string> | null;
}

/** The property names of a procedure's input schemas, or null when one of them accepts other names too. */
function inputNamesOf(procedure: AnyProcedure): ReadonlySet<string> | null {
  const names = new Set<string>();
  for (const schema of procedureDef(procedure).inputs) {
    let json: { properties?: Record<string, unknown>; additionalProperties?: unknown; type?: unknown };
    try {
      json = z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }) as typeof json;
    } catch {
      return null;
    }
    if (json.type !== "object" || !json.properties) return null;
    if (json.additionalProperties !== undefined && json.additionalProperties !== false) return null;
    for (const name of Object.keys(json.properties)) names.add(name);
  }
  return names;
}

/** A path segment as the value it encodes; broken percent-encoding is the caller's error, not ours. */
function decodePathParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw ApiError.invalid(name, `The path parameter \`${name}\` is not valid percent-encoded UTF-8.`);
  }
}

/** Stands for a `{param}` first segment, which matches any. */
const PARAM_SEGMENT = "{}";

function firstSegment(path: string): string {
  const first = path.split("/")[1] ?? "";
  return /^\{\w+\}$/.test(first) ? PARAM_SEGMENT : first;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/**
 * Built once per process from each procedure's OpenAPI (or event-stream) meta. Static paths are tried before `{param}` paths, so
 * `/templates/search` is never shadowed by `/templates/{id}`; matching is case-sensitive.
 */
export class RouteTable {
  readonly routes: Route[];

  constructor(router: AnyRouter) {
    this.routes = routerProcedures(router)
      .flatMap(([procedurePath, procedure]) => {
        const meta = procedureDef(procedure).meta as RouteMeta | undefined;
        const openapi = meta?.stream ?? meta?.openapi;
        if (!openapi || ("enabled" in openapi && openapi.enabled === false)) return [];
        const paramNames: string[] = [];
        const pattern = openapi.path
          .split("/")
          .map((seg) => {
            const m = /^\{(\w+)\}$/.exec(seg);
            if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
            paramNames.push(m[1]!);
            return "([^/]+)";
          })
          .join("/");
        return [
          {
            method: openapi.method,
            path: openapi.path,
            procedurePath,
            procedure,
            meta: meta!,
            paramNames,
            regex: new RegExp(`^${pattern}$`),
            isStatic: paramNames.length === 0,
            stream: meta!.stream !== undefined,
            inputNames: inputNamesOf(procedure),
          },
        ];
      })
      .sort((a, b) => Number(b.isStatic) - Number(a.isStatic));
    this.index();
  }

  /** All routes whose path matches, so the caller can answer 405 with `Allow` when only the method is wrong. */
  match(path: string): RouteMatch[] {
    const found: RouteMatch[] = [];
    for (const route of this.candidates(path)) {
      const m = route.regex.exec(path);
      if (!m) continue;
      // A static route matching exactly wins over param routes with the same shape.
      if (
        found.length > 0 &&
        found[0]!.route.isStatic &&
        !route.isStatic &&
        found.some((f) => f.route.path !== route.path)
      )
        continue;
      const params: Record<string, string> = {};
      route.paramNames.forEach((name, i) => {
        params[name] = decodePathParam(name, m[i + 1]!);
      });
      found.push({ route, params });
    }
    return found;
  }

  /**
   * The routes that can match a path: those with as many segments, whose first segment is the path's or a
   * parameter, in the table's order. Trying every route's pattern cost a request about 10 µs.
   */
  private candidates(path: string): Route[] {
    const segments = path.split("/");
    const byFirst = this.bySegments.get(segments.length);
    if (!byFirst) return [];
    return byFirst.get(segments[1]!) ?? byFirst.get(PARAM_SEGMENT) ?? [];
  }

  private readonly bySegments = new Map<number, Map<string, Route[]>>();

  private index(): void {
    const shapes = this.routes.map((route) => ({
      route,
      count: route.path.split("/").length,
      first: firstSegment(route.path),
    }));
    for (const { count, first } of shapes) {
      const byFirst = this.bySegments.get(count) ?? new Map<string, Route[]>();
      this.bySegments.set(count, byFirst);
      for (const key of [first, PARAM_SEGMENT]) {
        if (byFirst.has(key)) continue;
        byFirst.set(
          key,
          shapes
            .filter((s) => s.count === count && (s.first === key || s.first === PARAM_SEGMENT))
            .map((s) => s.route),
        );
      }
    }
  }
}

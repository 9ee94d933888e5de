import { describe, expect, it } from "vitest";
import { RouteTable } from "../src/http/route-table";
import { appRouter } from "../src/routers/index";

const table = new RouteTable(appRouter);

/** Every route's pattern tried in the table's order, as matching worked before it was indexed. */
function matchEveryRoute(path: string) {
  const found: { path: string; method: string; params: Record<string, string> }[] = [];
  for (const route of table.routes) {
    const m = route.regex.exec(path);
    if (!m) continue;
    if (found.length > 0 && found[0]!.params.__static === "1" && route.paramNames.length > 0) {
      if (found.some((f) => f.path !== route.path)) continue;
    }
    const params: Record<string, string> = route.paramNames.length === 0 ? { __static: "1" } : {};
    route.paramNames.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]!);
    });
    found.push({ path: route.path, method: route.method, params });
  }
  return found.map(({ params: { __static: _, ...params }, ...rest }) => ({ ...rest, params }));
}

describe("RouteTable.match", () => {
  const paths = [
    ...table.routes.map((r) => r.path.replace(/\{(\w+)\}/g, (_, name: string) => `x_${name}`)),
    ...table.routes.map((r) => r.path.replace(/\{(\w+)\}/g, "search")),
    "/",
    "/nope",
    "/evaluations/a/b/c/d/e",
    "/{}/x",
    "/evaluations/%E2%9C%93",
  ];

  it("finds, for every route's path and for unknown ones, exactly what trying every route finds", () => {
    expect(table.routes.length).toBeGreaterThan(50);
    for (const path of paths) {
      const indexed = table
        .match(path)
        .map((m) => ({ path: m.route.path, method: m.route.method, params: m.params }));
      expect(indexed, path).toEqual(matchEveryRoute(path));
    }
  });

  it("answers every method of a path, so a wrong one is a 405 with Allow", () => {
    const methods = table.match("/evaluations").map((m) => m.route.method);
    expect(methods).toEqual(expect.arrayContaining(["GET", "POST"]));
    expect(table.match("/evaluations/eval_1").map((m) => m.params)).toContainEqual({ id: "eval_1" });
    expect(table.match("/no-such-thing")).toEqual([]);
  });
});

/**
 * Renders a zod issue path as the request parameter name clients know, e.g. `designUrls[0].url`: the `param` of
 * an error envelope, and what the dashboard reads off a validation failure to mark the field.
 */
export function paramOf(path: readonly PropertyKey[]): string | undefined {
  if (path.length === 0) return undefined;
  return path.reduce<string>(
    (acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)),
    "",
  );
}

import type { StreamRequestOptions } from "./core/request-options";
import type { RequestSpec, Transport } from "./core/transport";
import { type OperationSpec, operations } from "./generated/operations";
import type { Resources } from "./generated/resources";

/** The resource objects of the client, one method per row of the operations table. */
export function buildResources(
  transport: Transport,
  table: readonly OperationSpec[] = operations,
): Resources {
  const root: Record<string, unknown> = {};
  for (const op of table) {
    let node = root;
    for (const segment of op.resource) {
      node[segment] ??= {};
      node = node[segment] as Record<string, unknown>;
    }
    const method = operationMethod(transport, op);
    node[op.name] = method;
    // `delete` reads naturally but is a keyword elsewhere; both names work, as in other REST clients.
    if (op.name === "del") node.delete = method;
  }
  return root as unknown as Resources;
}

/** Arguments are positional: each path parameter in path order, then the body, then the query, then options. */
function operationMethod(transport: Transport, op: OperationSpec) {
  const label = `${[...op.resource, op.name].join(".")}()`;
  return (...args: unknown[]) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => {
      const value = args[i];
      if (typeof value !== "string" || value === "") {
        throw new TypeError(`${label}: \`${name}\` must be a non-empty string.`);
      }
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    });
    let next = op.pathParams.length;
    const body = op.hasBody ? args[next++] : undefined;
    const query = op.hasQuery ? (args[next++] as Record<string, unknown> | undefined) : undefined;
    const options = args[next] as StreamRequestOptions | undefined;
    const spec: RequestSpec = {
      method: op.method,
      path,
      query,
      body,
      options,
      lastEventId: options?.lastEventId,
    };
    switch (op.kind) {
      case "list":
        return transport.list(spec);
      case "stream":
        return transport.stream(spec);
      case "redirect":
        return transport.redirectUrl(spec);
      default:
        return transport.request(spec);
    }
  };
}

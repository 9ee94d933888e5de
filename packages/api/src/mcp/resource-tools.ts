import type { z } from "zod";
import type { RouteMeta } from "../request/route-meta";
import { appRouter } from "../routers/index";
import { procedureDef, routerProcedures } from "../trpc/internals";
import type { McpTool } from "./tools";

const procedures = new Map(routerProcedures(appRouter));

/**
 * A tool that is a REST route: the route's own procedure, input schema and scope, so the tool cannot drift from
 * the route (same validation, same scope check, same plan and limits, same answer). The description names the
 * route and the scope from the route's meta.
 */
function routeTool(name: string, procedurePath: string, title: string, summary: string): McpTool {
  const procedure = procedures.get(procedurePath);
  if (!procedure) throw new Error(`MCP tool ${name} names no procedure ${procedurePath}`);
  const def = procedureDef(procedure);
  const meta = def.meta as RouteMeta;
  if (!meta.openapi) throw new Error(`MCP tool ${name}: ${procedurePath} is not a REST route`);
  const { method, path } = meta.openapi;
  const scopes = [meta.scope ?? []].flat();
  return {
    name,
    title,
    description: `${summary} (${method} ${path}).${scopes.length > 0 ? ` Scope ${scopes.join(" and ")}.` : ""}`,
    input: def.inputs[0] as z.ZodType,
    readOnly: method === "GET",
    call(caller, input) {
      let fn: unknown = caller;
      for (const key of procedurePath.split(".")) fn = (fn as Record<string, unknown>)[key];
      return (fn as (input: unknown) => Promise<unknown>)(input);
    },
  };
}

/** A tool per resource family beyond the first set in `tools.ts`: list, get and create where they apply. */
export const RESOURCE_TOOLS: McpTool[] = [
  routeTool(
    "update_evaluation",
    "evaluations.update",
    "Update an evaluation",
    "Changes an evaluation's fields, or moves its status: Draft to Running opens rating, Running to Ended closes it",
  ),
  routeTool(
    "list_comparisons",
    "evaluations.comparisons.list",
    "List comparisons",
    "The evaluation's comparisons (designs or design pairs) in rater order",
  ),
  routeTool(
    "get_comparison",
    "evaluations.comparisons.get",
    "Get a comparison",
    "One comparison of an evaluation",
  ),
  routeTool(
    "create_comparison",
    "evaluations.comparisons.create",
    "Add a comparison",
    "Adds a design (SSE) or a pair of designs (SxS) to an evaluation",
  ),
  routeTool("get_template", "templates.get", "Get a template", "One rating template with its dimensions"),
  routeTool(
    "create_template",
    "templates.create",
    "Create a template",
    "A team rating template: the dimensions raters score and their scales",
  ),
  routeTool("get_autouser", "autousers.get", "Get an autouser", "One persona rater with its current rubric"),
  routeTool(
    "create_autouser",
    "autousers.create",
    "Create an autouser",
    "A team persona rater from a name, role, description, goals and traits",
  ),
  routeTool(
    "list_autouser_runs",
    "autouserRuns.list",
    "List autouser runs",
    "The evaluation's autouser runs, newest first, with status and cost",
  ),
  routeTool(
    "get_autouser_run",
    "autouserRuns.get",
    "Get an autouser run",
    "One autouser run: its status, ratings made and failure, if any",
  ),
  routeTool(
    "get_ai_insights",
    "results.insights",
    "Get AI insights",
    "The written summary of an evaluation's results: themes, strengths and problems, with the ratings they rest on",
  ),
  routeTool(
    "list_ratings",
    "ratings.list",
    "List ratings",
    "The evaluation's ratings, newest first, filterable",
  ),
  routeTool("get_rating", "ratings.get", "Get a rating", "One rating with its dimension scores and comments"),
  routeTool(
    "create_rating",
    "ratings.create",
    "Submit a rating",
    "Rates one comparison of a Running evaluation as the token's user",
  ),
  routeTool("list_shares", "shares.list", "List shares", "The people an evaluation is shared with directly"),
  routeTool(
    "create_share",
    "shares.create",
    "Share an evaluation",
    "Shares an evaluation with an existing user, by id or email, as VIEWER, EDITOR or OWNER",
  ),
  routeTool(
    "list_invites",
    "invites.list",
    "List invites",
    "Pending invitations to rate or view an evaluation",
  ),
  routeTool(
    "create_invite",
    "invites.create",
    "Invite a rater",
    "Invites someone without an account, by email, to an evaluation",
  ),
  routeTool(
    "get_file",
    "files.get",
    "Get a file's download URL",
    "A signed URL to a ready file's bytes, valid for five minutes, as `location`",
  ),
  routeTool(
    "init_file_upload",
    "files.init",
    "Start a file upload",
    "Reserves a file and answers a signed URL to PUT its bytes to; finalize it before use",
  ),
  routeTool(
    "finalize_file_upload",
    "files.finalize",
    "Finish a file upload",
    "Checks the uploaded bytes against the size and type declared and makes the file ready to use",
  ),
  routeTool("list_webhooks", "webhooks.list", "List webhook endpoints", "The team's webhook endpoints"),
  routeTool("get_webhook", "webhooks.get", "Get a webhook endpoint", "One webhook endpoint and its status"),
  routeTool(
    "create_webhook",
    "webhooks.create",
    "Create a webhook endpoint",
    "Subscribes a URL to event types; the answer holds the signing secret, shown only once",
  ),
  routeTool(
    "list_webhook_deliveries",
    "webhooks.deliveries.list",
    "List webhook deliveries",
    "An endpoint's deliveries, newest first, with their status and last answer",
  ),
  routeTool(
    "send_test_webhook",
    "webhooks.test",
    "Send a test event",
    "Queues a synthetic event of the given type to an endpoint",
  ),
  routeTool("list_events", "events.list", "List events", "The team's event log, newest first"),
  routeTool("get_event", "events.get", "Get an event", "One event with the object it carries"),
];

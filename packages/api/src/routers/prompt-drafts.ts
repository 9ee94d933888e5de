import { DraftFromPromptInput, type RequiredScope } from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { toErrorEnvelope } from "../http/error-envelope";
import { promptDrafterFor } from "../models";
import type { RequestContext } from "../request/context";
import type { ServerSentEvent } from "../request/reply";
import type { RouteMeta } from "../request/route-meta";
import { apiProcedure, router } from "../trpc/init";

/** Drafts per user per minute: each may spend a model call on the team's key. */
export const DRAFT_LIMIT = { key: "user", limit: 20, windowSec: 60, bucket: "prompt-drafts" } as const;

const EVENTS = (noun: string, body: string) => ({
  start: "`{kind, generator, model}`: who drafts (`model` with its name, or `rules`)",
  text_delta: "`{delta}`: a line of the rule-based drafter's notes on what it understood",
  draft: `the ${noun} draft: \`{object, generator, model, draft}\`, \`draft\` being a valid \`${body}\` body (without \`teamId\`); the last event`,
  error:
    "an ErrorEnvelope (`model_error`, `details.reason` `provider_error` or `invalid_draft`); no draft, the stream ends",
});

function streamMeta(kind: core.DraftKind, scope: RequiredScope): RouteMeta {
  const path = kind === "autouser" ? "/autousers" : "/templates";
  const noun = kind === "autouser" ? "persona" : "template";
  return {
    stream: {
      method: "POST",
      path: `${path}/draft-from-prompt`,
      tags: [kind === "autouser" ? "Autousers" : "Templates"],
      summary: `Draft ${kind === "autouser" ? "an autouser" : "a template"} from a description`,
      description:
        `Streams a draft ${noun} written from a one-paragraph \`description\`, by the team's model (BYOK key, else ` +
        "the platform default) or, with no model, by the rule-based drafter (deterministic: the same words give " +
        `the same draft). The draft is checked against \`POST ${path}\` and returned, never saved: save it with ` +
        `\`POST ${path}\`. A team you cannot act on is 404 \`team_not_found\` naming \`teamId\`; a description ` +
        "outside 20 to 2,000 characters is 400 naming `description`; 20 drafts a minute per user (429).",
      events: EVENTS(noun, `POST ${path}`),
    },
    scope,
    routeLimit: DRAFT_LIMIT,
    idempotent: false,
    maxBodyBytes: 16 * 1024,
  };
}

function draftStream(kind: core.DraftKind) {
  return async function* ({
    ctx,
    input,
    signal,
  }: {
    ctx: RequestContext & { core: core.CoreContext; actor: core.Actor };
    input: DraftFromPromptInput;
    signal: AbortSignal | undefined;
  }): AsyncGenerator<ServerSentEvent> {
    const run = await core.startPromptDraft(ctx.core, ctx.actor, kind, input, promptDrafterFor(ctx.services));
    for await (const e of run(signal ?? new AbortController().signal)) {
      if (e.event === "failed") {
        const error = new core.ApiError("model_error", e.data.message, {
          details: { reason: e.data.reason },
        });
        yield { event: "error", data: toErrorEnvelope(error, ctx.requestId, ctx.services.env.baseUrl) };
        return;
      }
      yield e;
    }
  };
}

// POST /autousers/draft-from-prompt — a persona drafted from a paragraph, streamed, not saved
export const autouserPromptDraft = apiProcedure
  .meta(streamMeta("autouser", "autousers:write"))
  .input(DraftFromPromptInput)
  .subscription(draftStream("autouser"));

// POST /templates/draft-from-prompt — a template drafted from a paragraph, streamed, not saved
export const templateDraftsRouter = router({
  draftFromPrompt: apiProcedure
    .meta(streamMeta("template", "templates:write"))
    .input(DraftFromPromptInput)
    .subscription(draftStream("template")),
});

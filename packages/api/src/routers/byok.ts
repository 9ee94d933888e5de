import {
  ByokCheckInput,
  ByokPatchInput,
  ByokProbeResult,
  ByokPutInput,
  ByokQuery,
  ByokSettings,
  ByokTestResult,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import type { RequestContext } from "../request/context";
import { apiProcedure, router } from "../trpc/init";

const tags = ["Settings"];

/** Test and probe spend a real provider call each: 5 per minute per user, as the spec sets. */
const checkLimit = { key: "user", limit: 5, windowSec: 60 } as const;

function byokOptions(ctx: RequestContext): core.ByokCheckOptions {
  const { env } = ctx.services;
  return {
    encryptionKey: env.encryptionKey,
    allowPrivateUrls: env.autouserAllowPrivateUrls,
    platform: env.platformModel,
  };
}

const WRITE_NOTE =
  "Owners and admins only, from a signed-in session. The key is write only: answers carry `hasKey` and the " +
  "key's last four characters, never the key.";

export const byokRouter = router({
  // GET /settings/byok — the team's model settings and what applies now
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/settings/byok",
        tags,
        summary: "Retrieve BYOK settings",
        description:
          "The team's own model provider and key status, and what autousers and the builder use now: these " +
          "settings, the platform default, or none. Any member; API keys and tokens need `autousers:read`.",
      },
      scope: "autousers:read",
    })
    .input(ByokQuery)
    .output(ByokSettings)
    .query(({ ctx, input }) => core.getByokSettings(ctx.core, ctx.actor, input.teamId, byokOptions(ctx))),

  // PUT /settings/byok — replace the team's settings
  put: apiProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/settings/byok",
        tags,
        summary: "Replace BYOK settings",
        description: `Sets the team's provider, model, base URL and key. ${WRITE_NOTE}`,
      },
      sessionOnly: true,
    })
    .input(ByokPutInput)
    .output(ByokSettings)
    .mutation(({ ctx, input }) => core.putByokSettings(ctx.core, ctx.actor, input, byokOptions(ctx))),

  // PATCH /settings/byok — change some fields
  patch: apiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/settings/byok",
        tags,
        summary: "Update BYOK settings",
        description: `Changes the fields sent. A new provider or base URL needs \`apiKey\` again. ${WRITE_NOTE}`,
      },
      sessionOnly: true,
    })
    .input(ByokPatchInput)
    .output(ByokSettings)
    .mutation(({ ctx, input }) => core.patchByokSettings(ctx.core, ctx.actor, input, byokOptions(ctx))),

  // DELETE /settings/byok — remove the settings and the key
  delete: apiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/settings/byok",
        tags,
        summary: "Delete BYOK settings",
        description:
          "Removes the team's settings and key; the platform default applies again. Answers the settings as they " +
          "now are. Owners and admins only, from a signed-in session.",
      },
      sessionOnly: true,
    })
    .input(ByokQuery)
    .output(ByokSettings)
    .mutation(({ ctx, input }) =>
      core.deleteByokSettings(ctx.core, ctx.actor, input.teamId, byokOptions(ctx)),
    ),

  // POST /settings/byok/test — one minimal real call
  test: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/settings/byok/test",
        tags,
        summary: "Test a model key",
        description:
          "Makes one minimal call to the provider with the stored key or the one sent, and answers whether it " +
          "works and, if not, why (`error.code`). A provider's refusal is a 200 with `ok: false`. Owners and " +
          "admins, from a signed-in session; 5 per minute per user.",
      },
      sessionOnly: true,
      idempotent: false,
      routeLimit: checkLimit,
    })
    .input(ByokCheckInput)
    .output(ByokTestResult)
    .mutation(({ ctx, input }) => core.testByok(ctx.core, ctx.actor, input, byokOptions(ctx))),

  // POST /settings/byok/probe — what the model can do
  probe: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/settings/byok/probe",
        tags,
        summary: "Probe a model's capabilities",
        description:
          "Reports whether the model takes images and answers structured output: structured output by a real " +
          "call, image input from Rubricon's capability table (by a real call for models the table does not " +
          "know). Owners and admins, from a signed-in session; 5 per minute per user.",
      },
      sessionOnly: true,
      idempotent: false,
      routeLimit: checkLimit,
    })
    .input(ByokCheckInput)
    .output(ByokProbeResult)
    .mutation(({ ctx, input }) => core.probeByok(ctx.core, ctx.actor, input, byokOptions(ctx))),
});

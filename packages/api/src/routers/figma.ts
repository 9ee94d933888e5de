import {
  PairingApproved,
  PairingCodeParam,
  PairingPollInput,
  PairingPollResult,
  PluginPairing,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { SignJWT } from "jose";
import { z } from "zod";
import { PLUGIN_MAX_LIFETIME_S } from "../http/principal";
import type { RouteLimit } from "../limits/route-limit";
import { apiProcedure, publicProcedure, router } from "../trpc/init";

const tags = ["Auth"];
/** The spec's limit for the pairing routes: 10 a minute per client address, the three together. */
const routeLimit: RouteLimit = { key: "ip", limit: 10, windowSec: 60, bucket: "figma-pairing" };
/** Polls every 10 seconds leave room in the minute's budget for starting and approving. */
const POLL_INTERVAL_S = 10;

export const figmaRouter = router({
  // POST /auth/figma/pair — the plugin starts pairing
  pair: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/figma/pair",
        tags,
        summary: "Start pairing the design-tool plugin",
        description:
          "Answers a short code to show the user and a polling secret. The user approves the code on the " +
          "dashboard within 10 minutes; the plugin polls `/auth/figma/pair/{code}/poll` meanwhile.",
      },
      routeLimit,
      successStatus: 201,
      secretFields: ["pollingSecret"],
    })
    .input(z.object({}).strict().optional())
    .output(PluginPairing)
    .mutation(async ({ ctx }) => {
      const started = await core.startPairing({
        db: ctx.services.db,
        clock: ctx.services.clock,
        baseUrl: ctx.services.env.baseUrl,
      });
      return {
        object: "plugin_pairing" as const,
        code: started.code,
        pollingSecret: started.pollingSecret,
        verificationUrl: `${ctx.services.env.baseUrl}/pair?code=${encodeURIComponent(started.code)}`,
        interval: POLL_INTERVAL_S,
        expiresAt: started.expiresAt.toISOString(),
      };
    }),

  // POST /auth/figma/pair/{code}/poll — pending, then the plugin token once
  poll: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/figma/pair/{code}/poll",
        tags,
        summary: "Poll a pairing",
        description:
          "With the polling secret: `pending` until the user approves, then `approved` with the 7-day plugin " +
          "token, once; the code is then spent.",
      },
      routeLimit,
      idempotent: false,
      secretFields: ["token"],
    })
    .input(PairingPollInput)
    .output(PairingPollResult)
    .mutation(async ({ ctx, input }) => {
      const { services } = ctx;
      const polled = await core.pollPairing(
        { db: services.db, clock: services.clock, baseUrl: services.env.baseUrl },
        input.code,
        input.pollingSecret,
      );
      if (polled.status === "pending")
        return { object: "plugin_pairing_status" as const, status: "pending" as const };
      const now = Math.floor(services.clock.now().getTime() / 1000);
      const exp = now + PLUGIN_MAX_LIFETIME_S;
      const token = await new SignJWT({ typ: "plugin" })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(polled.userId)
        .setIssuer(services.env.baseUrl)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(services.env.pluginJwtSecret));
      return {
        object: "plugin_pairing_status" as const,
        status: "approved" as const,
        token,
        expiresAt: new Date(exp * 1000).toISOString(),
      };
    }),

  // POST /auth/figma/pair/{code}/approve — the signed-in user approves the code
  approve: apiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/figma/pair/{code}/approve",
        tags,
        summary: "Approve a pairing",
        description: "The plugin showing this code then acts as you. A signed-in session only.",
      },
      sessionOnly: true,
      routeLimit,
    })
    .input(PairingCodeParam)
    .output(PairingApproved)
    .mutation(({ ctx, input }) => core.approvePairing(ctx.core, ctx.actor, input.code)),
});

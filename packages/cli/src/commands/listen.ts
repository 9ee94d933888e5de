import { randomBytes } from "node:crypto";
import {
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  signatureHeaders,
  USER_AGENT,
} from "@rubricon/webhooks";
import type { Command } from "commander";
import { action } from "../command-kit";
import { updateProfile } from "../config";
import { loadProfile, profileName } from "../context";
import { UsageError } from "../errors";
import { commaList } from "../input";
import { line, note } from "../output";

/** Webhook deliveries get 10 seconds; the local receiver gets the same. */
const FORWARD_TIMEOUT_MS = 10_000;
const SECRET_PREFIX = "whsec_";

function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
}

async function forward(url: string, payload: string, eventId: string, type: string, secret: string) {
  const started = Date.now();
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    ...(await signatureHeaders(payload, { secret })),
    [EVENT_ID_HEADER]: eventId,
    [EVENT_TYPE_HEADER]: type,
    [DELIVERY_ID_HEADER]: `whd_listen_${randomBytes(8).toString("hex")}`,
  };
  try {
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: payload,
      redirect: "manual",
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return { status: res.status, ms: Date.now() - started };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    const why =
      (err as Error).name === "TimeoutError" ? "no answer within 10 s" : (cause ?? (err as Error).message);
    return { error: why, ms: Date.now() - started };
  }
}

export function registerListen(program: Command): void {
  program
    .command("listen")
    .description(
      "Receive the team's events live and POST each to a local URL, signed as webhook deliveries are, so a receiver using @rubricon/webhooks verifies them unchanged",
    )
    .requiredOption("--forward-to <url>", "where to POST each event, e.g. http://localhost:4242/hooks")
    .option("--events <types>", "only these event types, comma-separated (default: all)", commaList)
    .option("--secret <whsec>", "sign with this secret instead of the profile's listen secret")
    .action(
      action(async (inv) => {
        let target: URL;
        try {
          target = new URL(String(inv.opts.forwardTo));
        } catch {
          throw new UsageError(
            `--forward-to must be a URL like http://localhost:4242/hooks, got "${inv.opts.forwardTo}".`,
          );
        }
        if (target.protocol !== "http:" && target.protocol !== "https:") {
          throw new UsageError("--forward-to must be an http or https URL.");
        }
        const types = inv.opts.events as string[] | undefined;
        let secret = inv.opts.secret as string | undefined;
        if (secret !== undefined && !/^whsec_[A-Za-z0-9_-]{16,}$/.test(secret)) {
          throw new UsageError(
            "--secret must look like a webhook secret: whsec_ followed by at least 16 characters.",
          );
        }
        if (!secret) {
          // The same secret every time for a profile, so the receiver's configuration survives restarts. A run
          // given its key on the command line is not the profile's: it leaves the profile as it found it, and a
          // secret it makes lives only as long as the run.
          const name = profileName(inv.opts);
          secret = loadProfile(inv.opts).listenSecret;
          if (!secret) {
            secret = newSecret();
            const chosen = secret;
            if (inv.opts.apiKey === undefined) updateProfile(name, (p) => ({ ...p, listenSecret: chosen }));
          }
        }
        const { client } = await inv.api();

        let lastEventId: string | undefined;
        let announced = false;
        let stopping = false;
        const stop = () => {
          stopping = true;
          current?.close();
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        let current: { close(): void } | undefined;
        for (let attempt = 0; !stopping; attempt++) {
          try {
            const stream = await client.events.stream(types ? { types: types.join(",") } : {}, {
              ...(lastEventId ? { lastEventId } : {}),
            });
            current = stream;
            for await (const event of stream) {
              if (event.event === "ready") {
                attempt = 0;
                if (!announced) {
                  announced = true;
                  const ready = JSON.parse(event.data) as { teamId: string };
                  if (inv.opts.json) {
                    line(
                      JSON.stringify({
                        object: "listen",
                        secret,
                        forwardTo: target.toString(),
                        teamId: ready.teamId,
                      }),
                    );
                  } else {
                    note(
                      `Ready. Forwarding the events of team ${ready.teamId} to ${target}. Signing secret:`,
                    );
                    line(secret);
                  }
                } else note("Reconnected.");
                continue;
              }
              if (event.id) lastEventId = event.id;
              const result = await forward(
                target.toString(),
                event.data,
                event.id ?? "",
                event.event,
                secret,
              );
              if (inv.opts.json) {
                line(JSON.stringify({ id: event.id, type: event.event, ...result }));
              } else {
                const outcome = "status" in result ? `[${result.status}]` : `[error: ${result.error}]`;
                line(
                  `${new Date().toISOString()}  ${event.event.padEnd(26)} ${event.id}  --> POST ${target} ${outcome} ${result.ms} ms`,
                );
              }
            }
          } catch (err) {
            if (stopping) break;
            if ((err as { status?: number }).status !== undefined || attempt >= 8) throw err;
            note(`Connection lost; reconnecting (${(err as Error).message}).`);
            await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)));
          }
          if (!stopping) await new Promise((r) => setTimeout(r, 500));
        }
      }),
    );
}

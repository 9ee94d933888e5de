import type { Command } from "commander";
import { action, show } from "../command-kit";
import { configPath, updateProfile } from "../config";
import { apiRoot, loadProfile, originOf, profileName, resolveCredential } from "../context";
import { UsageError } from "../errors";
import { positiveInt } from "../input";
import { line, note, printRecord } from "../output";

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535)
    throw new UsageError(`--port must be a port number from 1 to 65535, got "${value}".`);
  return n;
}

export function registerAuth(program: Command): void {
  program
    .command("login")
    .description(
      "Sign in through the browser (OAuth with PKCE) and keep the sign-in in the profile; with --api-key, keep that key instead",
    )
    .option("--no-browser", "print the sign-in address instead of opening a browser")
    .option("--scopes <scopes>", "the access to ask for, space-separated", "*")
    .option(
      "--port <n>",
      "the loopback port the sign-in returns to (default: any free port), e.g. to forward it over SSH",
      port,
    )
    .option("--timeout <seconds>", "how long to wait for the sign-in", positiveInt("--timeout"), 300)
    .action(
      action(async (inv) => {
        const name = profileName(inv.opts);
        const root = apiRoot(inv.opts);
        // The server the profile should remember: what was given, else what it already had.
        const baseUrl =
          inv.opts.baseUrl ?? process.env.RUBRICON_BASE_URL?.trim() ?? loadProfile(inv.opts).baseUrl;
        if (inv.opts.apiKey) {
          const { client } = await inv.api();
          const me = (await client.auth.whoami()) as Record<string, unknown>;
          updateProfile(name, (p) => ({
            ...p,
            baseUrl: baseUrl ?? p.baseUrl,
            apiKey: inv.opts.apiKey,
            oauth: undefined,
            teamId: me.teamId as string,
          }));
          if (inv.opts.json) show({ profile: name, ...me }, inv.opts);
          else line(`Saved the API key in profile ${name} (team ${me.teamId}).`);
          return;
        }
        const { login, noDisplayReason } = await import("../oauth");
        const wanted = inv.opts.browser !== false;
        const noDisplay = wanted ? noDisplayReason() : undefined;
        const oauth = await login({
          origin: originOf(root),
          apiRoot: root,
          scope: String(inv.opts.scopes),
          openBrowser: wanted && !noDisplay,
          noBrowserReason: noDisplay,
          port: inv.opts.port as number | undefined,
          timeoutMs: Number(inv.opts.timeout) * 1000,
          say: note,
        });
        updateProfile(name, (p) => ({ ...p, baseUrl: baseUrl ?? p.baseUrl, apiKey: undefined, oauth }));
        const { client } = await inv.api();
        const me = (await client.auth.whoami()) as Record<string, unknown>;
        updateProfile(name, (p) => ({ ...p, teamId: me.teamId as string }));
        if (inv.opts.json) show({ profile: name, ...me }, inv.opts);
        else
          line(`Signed in to ${originOf(root)} as user ${me.userId} on team ${me.teamId} (profile ${name}).`);
      }),
    );

  program
    .command("logout")
    .description("Forget the profile's credentials (and end its sign-in on the server)")
    .action(
      action(async (inv) => {
        const name = profileName(inv.opts);
        const profile = loadProfile(inv.opts);
        let revoked = false;
        if (profile.oauth) {
          const { revoke } = await import("../oauth");
          revoked = await revoke(profile.oauth);
        }
        const had = Boolean(profile.apiKey || profile.oauth);
        updateProfile(name, (p) => ({ ...p, apiKey: undefined, oauth: undefined, teamId: undefined }));
        if (inv.opts.json) show({ profile: name, loggedOut: had, revoked }, inv.opts);
        else line(had ? `Logged out of profile ${name}.` : `Profile ${name} had no credentials.`);
      }),
    );

  program
    .command("whoami")
    .description("Who the current credentials act as: user, team, scopes")
    .action(
      action(async (inv) => {
        const { client, apiRoot: root } = await inv.api();
        const me = (await client.auth.whoami()) as Record<string, unknown>;
        const credential = await resolveCredential(inv.opts);
        show(me, inv.opts, () => {
          printRecord({
            ...me,
            server: root,
            credentials: credential?.source,
            profile: profileName(inv.opts),
          });
        });
      }),
    );

  program
    .command("profiles")
    .description("List the saved profiles")
    .action(
      action(async (inv) => {
        const { readConfig } = await import("../config");
        const config = readConfig();
        const rows = Object.entries(config.profiles).map(([name, p]) => ({
          name,
          server: p.baseUrl ?? "",
          credentials: p.apiKey ? "api key" : p.oauth ? "signed in" : "none",
          team: p.teamId ?? "",
        }));
        if (inv.opts.json) show({ path: configPath(), profiles: rows }, inv.opts);
        else {
          const { printTable } = await import("../output");
          printTable(rows, [
            { header: "name", value: "name" },
            { header: "server", value: "server" },
            { header: "credentials", value: "credentials" },
            { header: "team", value: "team" },
          ]);
        }
      }),
    );
}

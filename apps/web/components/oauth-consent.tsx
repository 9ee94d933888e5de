"use client";

import type { ConsentDetails } from "@rubricon/contracts";
import { useEffect, useState } from "react";

interface Failure {
  error?: { message?: string };
}

async function readJson<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as T & Failure;
  if (!res.ok) throw new Error(body.error?.message ?? `The server answered ${res.status}.`);
  return body;
}

const RESOURCE_NAMES: Record<string, string> = { "/api/v1": "the REST API", "/mcp": "the MCP server" };

function resourceName(resource: string): string {
  try {
    return RESOURCE_NAMES[new URL(resource).pathname] ?? resource;
  } catch {
    return resource;
  }
}

/**
 * The consent step of an app's authorization: who asks, where the answer goes, what each scope allows, and the
 * team the grant is for. The decision goes back to the authorization server, which sends the browser to the app.
 */
export function OAuthConsent({ uid }: { uid: string }) {
  const url = `/api/oauth/interaction/${encodeURIComponent(uid)}`;
  const [details, setDetails] = useState<ConsentDetails | null>(null);
  const [teamId, setTeamId] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  useEffect(() => {
    fetch(url, { credentials: "same-origin" })
      .then((res) => readJson<ConsentDetails>(res))
      .then((d) => {
        setDetails(d);
        setTeamId(d.teams[0]?.id ?? "");
      })
      .catch((err: Error) => setError(err.message));
  }, [url]);

  async function decide(decision: "allow" | "deny") {
    setPending(true);
    setError(null);
    try {
      const res = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(decision === "allow" ? { decision, teamId } : { decision }),
      });
      const { redirectTo } = await readJson<{ redirectTo: string }>(res);
      window.location.assign(redirectTo);
    } catch (err) {
      setError((err as Error).message);
      setPending(false);
    }
  }

  if (!details) {
    return error ? (
      <p className="alert alert-error" role="alert">
        {error}
      </p>
    ) : (
      <p className="muted">Loading the request…</p>
    );
  }

  return (
    <section className="card stack consent" aria-labelledby="consent-heading">
      <h1 id="consent-heading">Authorize {details.client.name}</h1>
      <p>
        <strong>{details.client.name}</strong> wants to use{" "}
        {details.resources.map(resourceName).join(" and ")} as you. After you decide, you go back to{" "}
        <strong className="mono">{details.client.redirectHost}</strong>.
      </p>
      <h2>It will be able to</h2>
      <ul aria-label="Requested permissions">
        {details.scopes.map((s) => (
          <li key={s.scope}>
            {s.description} <code className="mono small muted">{s.scope}</code>
          </li>
        ))}
      </ul>
      <div className="field">
        <label htmlFor="consent-team">Team</label>
        <select id="consent-team" value={teamId} onChange={(e) => setTeamId(e.target.value)}>
          {details.teams.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <p className="muted small">
          The app acts on this team only. You can disconnect it under Connected apps.
        </p>
      </div>
      {error && (
        <p className="alert alert-error" role="alert">
          {error}
        </p>
      )}
      <div className="button-row">
        <button
          type="button"
          className="button button-primary"
          disabled={pending}
          onClick={() => decide("allow")}
        >
          Allow
        </button>
        <button type="button" className="button" disabled={pending} onClick={() => decide("deny")}>
          Deny
        </button>
      </div>
    </section>
  );
}

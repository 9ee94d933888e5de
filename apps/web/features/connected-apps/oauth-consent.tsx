"use client";

import type { ConsentDetails } from "@rubricon/contracts";
import { useEffect, useState } from "react";
import { apiRequest } from "@/lib/api";
import { errorMessage } from "@/lib/errors";
import { Field, FormError, Loading } from "@/ui";

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
    apiRequest<ConsentDetails>(url)
      .then((d) => {
        setDetails(d);
        setTeamId(d.teams[0]?.id ?? "");
      })
      .catch((err: unknown) => setError(errorMessage(err)));
  }, [url]);

  async function decide(decision: "allow" | "deny") {
    setPending(true);
    setError(null);
    try {
      const { redirectTo } = await apiRequest<{ redirectTo: string }>(url, {
        method: "POST",
        body: decision === "allow" ? { decision, teamId } : { decision },
      });
      window.location.assign(redirectTo);
    } catch (err) {
      setError(errorMessage(err));
      setPending(false);
    }
  }

  if (!details) {
    return error ? <FormError error={error} /> : <Loading>Loading the request…</Loading>;
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
      <Field label="Team" hint="The app acts on this team only. You can disconnect it under Connected apps.">
        {(props) => (
          <select {...props} value={teamId} onChange={(e) => setTeamId(e.target.value)}>
            {details.teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormError error={error} />
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

"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Field } from "@/ui";

/**
 * The team the page works on: the personal team unless the user picks another. Webhooks and the event log
 * belong to one team, and the plan of that team decides whether they are available.
 */
export function useActingTeam(): { teamId: string | null; picker: React.ReactNode } {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  const [chosen, setChosen] = useState<string | null>(null);
  const teamId = chosen ?? whoami.data?.teamId ?? teams.data?.data[0]?.id ?? null;
  const picker =
    teams.data && teams.data.data.length > 1 ? (
      <Field id="acting-team" label="Team" className="team-picker">
        {(props) => (
          <select {...props} value={teamId ?? ""} onChange={(e) => setChosen(e.target.value)}>
            {teams.data.data.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    ) : null;
  return { teamId, picker };
}

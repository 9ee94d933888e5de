"use client";

import { useQuery } from "@tanstack/react-query";
import type { Dispatch, SetStateAction } from "react";
import { useTRPC } from "@/lib/trpc";
import { Badge, FieldRow, FieldSet, FormError, Loading } from "@/ui";

/** Chosen autousers by id, each with how many of its agents rate every comparison. */
export type AgentCounts = Record<string, number>;

export function AutouserPicker({
  agents,
  setAgents,
  error,
}: {
  agents: AgentCounts;
  setAgents: Dispatch<SetStateAction<AgentCounts>>;
  error: string | undefined;
}) {
  const trpc = useTRPC();
  const autousers = useQuery(trpc.autousers.list.queryOptions({ limit: 100 }));
  return (
    <FieldSet
      legend={
        <>
          Autousers <span className="muted">(optional)</span>
        </>
      }
      hint="Persona raters that score every comparison beside your human raters."
      error={error}
    >
      {autousers.isPending && <Loading small>Loading autousers…</Loading>}
      <FormError error={autousers.error} />
      <ul className="stack autouser-picker">
        {autousers.data?.data.map((a) => {
          const chosen = agents[a.id] !== undefined;
          return (
            <FieldRow as="li" key={a.id}>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={chosen}
                  onChange={(e) =>
                    setAgents(({ [a.id]: _drop, ...rest }) =>
                      e.target.checked ? { ...rest, [a.id]: 1 } : rest,
                    )
                  }
                />{" "}
                {a.name}
                {a.isSystem && <Badge tone="system">System</Badge>}
              </label>
              {chosen && (
                <label className="inline-field">
                  Agents for {a.name}{" "}
                  <input
                    type="number"
                    min={1}
                    max={50}
                    step={1}
                    inputMode="numeric"
                    value={agents[a.id]}
                    onChange={(e) => setAgents((g) => ({ ...g, [a.id]: Number(e.target.value) }))}
                  />
                </label>
              )}
            </FieldRow>
          );
        })}
      </ul>
    </FieldSet>
  );
}

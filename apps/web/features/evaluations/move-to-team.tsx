"use client";

import type { Evaluation } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { plural } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";
import { useConfirm } from "@/ui/confirm-dialog";

/**
 * "Move to team": offered only when the user administers the evaluation's team and at least one other, since the
 * move needs an owner or admin of both.
 */
export function MoveToTeam({ evaluation }: { evaluation: Evaluation }) {
  const trpc = useTRPC();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  const [target, setTarget] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const move = useMutation(
    trpc.evaluations.transfer.mutationOptions({
      onSuccess: async (result) => {
        setError(null);
        const to = teams.data?.data.find((t) => t.id === result.toTeamId)?.name ?? result.toTeamId;
        const dropped = result.droppedAutouserIds.length;
        setDone(
          `Moved to ${to}.${dropped > 0 ? ` ${plural(dropped, "team autouser")} of the old team no longer selected.` : ""}`,
        );
        setTarget("");
        queryClient.setQueryData(trpc.evaluations.get.queryKey({ id: evaluation.id }), result.evaluation);
        await queryClient.invalidateQueries(trpc.evaluations.list.pathFilter());
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );

  const administered = (teams.data?.data ?? []).filter((t) => t.role === "owner" || t.role === "admin");
  if (!administered.some((t) => t.id === evaluation.teamId)) return null;
  const choices = administered.filter((t) => t.id !== evaluation.teamId);
  if (choices.length === 0) return null;

  return (
    <section className="card stack" aria-labelledby="move-heading">
      <h2 id="move-heading">Move to team</h2>
      <p className="muted small">
        The evaluation moves with its comparisons, ratings, files, runs and shares; its share link keeps
        working. It counts toward the new team's monthly evaluations.
      </p>
      <form
        className="button-row"
        onSubmit={async (event) => {
          event.preventDefault();
          const team = choices.find((t) => t.id === target);
          if (!team) return;
          const ok = await confirm({
            message: `Move "${evaluation.name}" to ${team.name}? Members of this team lose access unless they are in ${team.name}.`,
            confirmLabel: "Move to team",
          });
          if (ok) move.mutate({ id: evaluation.id, teamId: team.id });
        }}
      >
        <label className="visually-hidden" htmlFor="move-team">
          Team to move to
        </label>
        <select id="move-team" value={target} onChange={(event) => setTarget(event.target.value)}>
          <option value="">Choose a team…</option>
          {choices.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <button type="submit" className="button" disabled={!target || move.isPending}>
          Move to team
        </button>
      </form>
      <FormError error={error} />
      {done && (
        <p className="alert alert-info" role="status">
          {done}
        </p>
      )}
    </section>
  );
}

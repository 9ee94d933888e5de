"use client";

import type { TeamRole } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import {
  ACTIONS_HEADER,
  DataTable,
  Field,
  FieldRow,
  FormError,
  PageHeader,
  QueryState,
  useConfirm,
} from "@/ui";

const ROLES: TeamRole[] = ["owner", "admin", "member"];

/** Each of the user's teams with its members; owners and admins add, re-role and remove them. */
export function MembersPanel() {
  const trpc = useTRPC();
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  return (
    <div className="stack">
      <PageHeader title="Members" description="Who is on each of your teams, and their roles." />
      {teams.data?.data.map((t) => (
        <TeamMembers
          key={t.id}
          teamId={t.id}
          teamName={t.name}
          manage={t.role === "owner" || t.role === "admin"}
          owner={t.role === "owner"}
          me={whoami.data?.userId}
        />
      ))}
    </div>
  );
}

function TeamMembers(props: {
  teamId: string;
  teamName: string;
  manage: boolean;
  owner: boolean;
  me: string | undefined;
}) {
  const { teamId, teamName, manage, owner, me } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.teams.members.list.queryOptions({ id: teamId, limit: 100 }));
  const owners = members.data?.data.filter((m) => m.role === "owner").length ?? 0;
  const confirm = useConfirm();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const onError = (e: unknown) => {
    setNotice(null);
    setError(errorMessage(e));
  };
  const refresh = async () => {
    setError(null);
    await queryClient.invalidateQueries(trpc.teams.members.list.pathFilter());
  };
  const add = useMutation(
    trpc.teams.members.add.mutationOptions({
      onSuccess: async (result) => {
        setNotice(
          result.object === "team_invite"
            ? `We emailed ${result.email} an invitation; they join the team when they accept it.`
            : null,
        );
        await refresh();
      },
      onError,
    }),
  );
  const update = useMutation(trpc.teams.members.update.mutationOptions({ onSuccess: refresh, onError }));
  const remove = useMutation(trpc.teams.members.remove.mutationOptions({ onSuccess: refresh, onError }));
  const handOver = useMutation(
    trpc.teams.transferAdmin.mutationOptions({
      onSuccess: async (result) => {
        setNotice(`${result.newOwner.email} now owns ${teamName}; you are an admin.`);
        await queryClient.invalidateQueries(trpc.teams.list.pathFilter());
        await refresh();
      },
      onError,
    }),
  );
  const headingId = `members-${teamId}`;

  function onAdd(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    add.mutate({
      id: teamId,
      email: String(form.get("email") ?? "").trim(),
      role: String(form.get("role")) as TeamRole,
    });
    event.currentTarget.reset();
  }

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>{teamName}</h2>
      <FormError error={error} />
      {notice && (
        <p className="alert alert-info" role="status">
          {notice}
        </p>
      )}
      <QueryState query={members} loading="Loading members…">
        {(page) => (
          <DataTable
            bare
            rows={page.data}
            rowKey={(m) => m.userId}
            columns={[
              {
                header: "Member",
                cell: (m) => (
                  <>
                    {m.name ?? m.email}
                    <div className="muted small">{m.email}</div>
                  </>
                ),
              },
              {
                header: "Role",
                cell: (m) =>
                  manage ? (
                    <>
                      <label className="visually-hidden" htmlFor={`role-${teamId}-${m.userId}`}>
                        Role of {m.email}
                      </label>
                      <select
                        id={`role-${teamId}-${m.userId}`}
                        value={m.role}
                        onChange={(e) =>
                          update.mutate({ id: teamId, userId: m.userId, role: e.target.value as TeamRole })
                        }
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    </>
                  ) : (
                    <span className="capitalize">{m.role}</span>
                  ),
              },
              {
                header: ACTIONS_HEADER,
                className: "nowrap",
                cell: (m) => (
                  <>
                    {owner && m.userId !== me && (
                      <button
                        type="button"
                        className="button"
                        disabled={handOver.isPending}
                        aria-label={`Hand ${teamName} to ${m.email}`}
                        onClick={async () => {
                          const ok = await confirm({
                            message: `Hand ${teamName} to ${m.email}? They become its owner and you an admin.`,
                            confirmLabel: "Hand over",
                          });
                          if (ok) handOver.mutate({ id: teamId, userId: m.userId });
                        }}
                      >
                        Hand over
                      </button>
                    )}
                    {m.role === "owner" && owners === 1 ? (
                      // The API refuses to leave a team without an owner; say so instead of offering it.
                      <span className="muted small" data-testid="sole-owner">
                        Only owner
                      </span>
                    ) : (
                      (manage || m.userId === me) && (
                        <button
                          type="button"
                          className="button button-danger-ghost"
                          aria-label={`Remove ${m.email} from ${teamName}`}
                          onClick={async () => {
                            const ok = await confirm({
                              message: `Remove ${m.email} from ${teamName}? Their API keys on the team are revoked.`,
                              confirmLabel: "Remove",
                              destructive: true,
                            });
                            if (ok) remove.mutate({ id: teamId, userId: m.userId });
                          }}
                        >
                          Remove
                        </button>
                      )
                    )}
                  </>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {manage && (
        <form onSubmit={onAdd} aria-label={`Add a member to ${teamName}`}>
          <FieldRow>
            <Field id={`add-email-${teamId}`} label="Email">
              {(props) => <input {...props} name="email" type="email" required />}
            </Field>
            <Field id={`add-role-${teamId}`} label="Role">
              {(props) => (
                <select {...props} name="role" defaultValue="member">
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <div className="form-actions">
              <button type="submit" className="button button-primary" disabled={add.isPending}>
                Add member
              </button>
            </div>
          </FieldRow>
        </form>
      )}
    </section>
  );
}

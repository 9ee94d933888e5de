"use client";

import { type Evaluation, SHARE_ACCESS, type SharePermission } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { SHARE_ACCESS_LABELS } from "@/lib/share-access";
import { useTRPC } from "@/lib/trpc";
import { ACTIONS_HEADER, DataTable, Field, FieldRow, FormError } from "@/ui";

const PERMISSIONS: SharePermission[] = ["VIEWER", "EDITOR", "OWNER"];
const LABEL: Record<SharePermission, string> = { VIEWER: "Viewer", EDITOR: "Editor", OWNER: "Owner" };

/** The Share button and its dialog: people with access, invite by email, and the link's settings. */
export function ShareDialog({ evaluation }: { evaluation: Evaluation }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="button"
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        Share
      </button>
      <dialog
        ref={dialog}
        className="card share-dialog"
        aria-labelledby="share-dialog-title"
        onClose={() => setOpen(false)}
      >
        <div className="stack">
          <div className="page-header">
            <h2 id="share-dialog-title">Share “{evaluation.name}”</h2>
            <button type="button" className="button button-ghost" onClick={() => dialog.current?.close()}>
              Close
            </button>
          </div>
          {open && <SharePanel evaluation={evaluation} />}
        </div>
      </dialog>
    </>
  );
}

function SharePanel({ evaluation }: { evaluation: Evaluation }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = evaluation.id;
  const shares = useQuery(trpc.shares.list.queryOptions({ id, limit: 100 }));
  const invites = useQuery(trpc.invites.list.queryOptions({ id, limit: 100 }));
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = async () => {
    setError(null);
    await queryClient.invalidateQueries(trpc.shares.pathFilter());
    await queryClient.invalidateQueries(trpc.invites.pathFilter());
  };
  const onError = (e: unknown) => {
    setNotice(null);
    setError(errorMessage(e));
  };
  const share = useMutation(trpc.shares.create.mutationOptions({ onSuccess: refresh }));
  const change = useMutation(trpc.shares.update.mutationOptions({ onSuccess: refresh, onError }));
  const remove = useMutation(trpc.shares.delete.mutationOptions({ onSuccess: refresh, onError }));
  const withdraw = useMutation(trpc.invites.delete.mutationOptions({ onSuccess: refresh, onError }));
  const update = useMutation(
    trpc.evaluations.update.mutationOptions({
      onSuccess: (updated) => {
        setError(null);
        queryClient.setQueryData(trpc.evaluations.get.queryKey({ id }), updated);
      },
      onError,
    }),
  );

  async function onAdd(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const permission = String(form.get("permission")) as SharePermission;
    setError(null);
    setNotice(null);
    try {
      // By e-mail, a share is an invitation answered alike whether or not the address has an account.
      await share.mutateAsync({ id, email, permission });
      setNotice(`We emailed ${email} an invitation; they get access when they accept it.`);
    } catch (e) {
      return onError(e);
    }
    (event.target as HTMLFormElement).reset();
  }

  const pending = invites.data?.data.filter((i) => i.status === "pending") ?? [];
  return (
    <>
      <form className="stack" onSubmit={onAdd} noValidate aria-label="Add people">
        <FieldRow>
          <Field id="share-email" label="Email">
            {(props) => (
              <input {...props} name="email" type="email" required placeholder="name@example.com" />
            )}
          </Field>
          <Field id="share-permission" label="Permission">
            {(props) => (
              <select {...props} name="permission" defaultValue="VIEWER">
                {PERMISSIONS.map((p) => (
                  <option key={p} value={p}>
                    {LABEL[p]}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </FieldRow>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={share.isPending}>
            Share
          </button>
        </div>
      </form>
      {notice && (
        <p className="alert alert-info" role="status">
          {notice}
        </p>
      )}
      <FormError error={error} />

      <section aria-labelledby="people-heading" className="stack">
        <h3 id="people-heading">People with access</h3>
        <p className="muted small">Everyone on the owning team, and:</p>
        {shares.data && shares.data.data.length === 0 && (
          <p className="muted">Nobody outside the team yet.</p>
        )}
        {(shares.data?.data.length ?? 0) > 0 && (
          <DataTable
            plain
            label="People with access"
            rows={shares.data!.data}
            rowKey={(s) => s.id}
            columns={[
              {
                header: "Person",
                cell: (s) => (
                  <>
                    {s.user?.name ?? s.user?.email}
                    <div className="muted small">{s.user?.email}</div>
                  </>
                ),
              },
              {
                header: "Permission",
                cell: (s) => (
                  <>
                    <label className="visually-hidden" htmlFor={`perm-${s.id}`}>
                      Permission of {s.user?.email}
                    </label>
                    <select
                      id={`perm-${s.id}`}
                      value={s.permission}
                      onChange={(e) =>
                        change.mutate({ id, shareId: s.id, permission: e.target.value as SharePermission })
                      }
                    >
                      {PERMISSIONS.map((p) => (
                        <option key={p} value={p}>
                          {LABEL[p]}
                        </option>
                      ))}
                    </select>
                  </>
                ),
              },
              {
                header: ACTIONS_HEADER,
                cell: (s) => (
                  <button
                    type="button"
                    className="button button-danger-ghost"
                    aria-label={`Remove ${s.user?.email}`}
                    onClick={() => remove.mutate({ id, shareId: s.id })}
                  >
                    Remove
                  </button>
                ),
              },
            ]}
          />
        )}
        {pending.length > 0 && (
          <>
            <h3>Invited</h3>
            <ul className="stack">
              {pending.map((i) => (
                <li key={i.id}>
                  {i.email} · {LABEL[i.permission]}{" "}
                  <button
                    type="button"
                    className="button button-ghost"
                    aria-label={`Withdraw the invite to ${i.email}`}
                    onClick={() => withdraw.mutate({ id, inviteId: i.id })}
                  >
                    Withdraw
                  </button>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>

      <section aria-labelledby="link-settings-heading" className="stack">
        <h3 id="link-settings-heading">Link settings</h3>
        <Field
          id="share-access"
          label="Who can open the link"
          hint={
            <>With “{SHARE_ACCESS_LABELS.ANYONE_WITH_LINK}”, people outside the team can ask for access.</>
          }
        >
          {(props) => (
            <select
              {...props}
              value={evaluation.shareAccess}
              disabled={evaluation.shareAccess === "PASSWORD_PROTECTED"}
              onChange={(e) =>
                update.mutate({ id, shareAccess: e.target.value as Evaluation["shareAccess"] })
              }
            >
              {SHARE_ACCESS.filter((a) => a !== "PASSWORD_PROTECTED" || evaluation.shareAccess === a).map(
                (a) => (
                  <option key={a} value={a}>
                    {SHARE_ACCESS_LABELS[a]}
                  </option>
                ),
              )}
            </select>
          )}
        </Field>
      </section>
    </>
  );
}

"use client";

import { type ApiKey, SCOPE_FAMILIES, SCOPES, type Scope } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { CopyButton, Field, FieldSet, FormError, Loading, SubmitButton } from "@/ui";
import { useConfirm } from "@/ui/confirm-dialog";
import { PageHeader } from "@/ui/page-header";
import { ApiKeyTable } from "./api-key-table";
import { TeamKeys } from "./team-keys";

/** Scopes grouped by resource family for the checkboxes; `*` and `events:read` sit apart. */
const SCOPE_GROUPS: { title: string; scopes: Scope[] }[] = [
  ...SCOPE_FAMILIES.map((family) => ({
    title: family.charAt(0).toUpperCase() + family.slice(1),
    scopes: SCOPES.filter((s) => s.startsWith(`${family}:`)),
  })),
  {
    title: "Other",
    scopes: SCOPES.filter((s) => s === "*" || s === "events:read"),
  },
];

export function ApiKeysPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ limit: 100 }));
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [listError, setListError] = useState<string | null>(null);

  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.apiKeys.pathFilter()),
      onError: (error) => setListError(errorMessage(error)),
    }),
  );

  async function onRevoke(key: ApiKey) {
    const ok = await confirm({
      message: `Revoke “${key.name}”? Requests using it will fail immediately.`,
      confirmLabel: "Revoke",
      destructive: true,
    });
    if (!ok) return;
    setListError(null);
    revoke.mutate({ id: key.id });
  }

  const active = keys.data?.data.filter((k) => !k.revokedAt) ?? [];

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let scripts and integrations call the Rubricon API as your team."
      />

      {created && (
        <section className="card card-highlight stack" aria-labelledby="new-key-heading">
          <h2 id="new-key-heading">Your new key “{created.name}”</h2>
          <p className="alert alert-warning" role="status">
            Copy this key now and store it somewhere safe. It will not be shown again.
          </p>
          <div className="copy-box">
            <label htmlFor="new-api-key" className="visually-hidden">
              New API key
            </label>
            <input
              id="new-api-key"
              className="copy-value mono"
              readOnly
              value={created.key}
              onFocus={(e) => e.target.select()}
            />
            <CopyButton value={created.key} label="Copy API key" />
          </div>
          <div>
            <button type="button" className="button" onClick={() => setCreated(null)}>
              I have stored it
            </button>
          </div>
        </section>
      )}

      <div className="api-keys-layout">
        <section className="card" aria-labelledby="keys-heading">
          <h2 id="keys-heading">Active keys</h2>
          {keys.isPending && <Loading>Loading keys…</Loading>}
          <FormError error={keys.error} />
          <FormError error={listError} />
          {keys.data && active.length === 0 && (
            <p className="muted">No API keys yet. Create one to get started.</p>
          )}
          {active.length > 0 && (
            <ApiKeyTable
              keys={active}
              extra={{
                title: "Scopes",
                cell: (key) => (
                  <div className="chips">
                    {key.scopes.map((scope) => (
                      <span className="chip" key={scope}>
                        {scope}
                      </span>
                    ))}
                  </div>
                ),
              }}
              onRevoke={onRevoke}
              revoking={revoke.isPending}
              revokeLabel={(key) => `Revoke ${key.name}`}
            />
          )}
        </section>

        <CreateKeyForm onCreated={setCreated} />
      </div>

      <TeamKeys />
    </>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: { name: string; key: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [error, setError] = useState<string | null>(null);

  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: async (key) => {
        onCreated({ name: key.name, key: key.key });
        setScopes([]);
        await queryClient.invalidateQueries(trpc.apiKeys.pathFilter());
      },
      onError: (err) => setError(errorMessage(err)),
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    if (!name) return setError("Give the key a name, e.g. the integration that will use it.");
    if (scopes.length === 0) return setError("Choose at least one scope.");
    setError(null);
    create.mutate({ name, scopes }, { onSuccess: () => form.reset() });
  }

  function toggle(scope: Scope, on: boolean) {
    setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));
  }

  return (
    <section className="card" aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create a key</h2>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field id="key-name" label="Key name">
          {(props) => <input {...props} name="name" type="text" maxLength={200} placeholder="CI pipeline" />}
        </Field>
        <FieldSet legend="Scopes" hint="Grant only what the integration needs.">
          <div className="scope-groups">
            {SCOPE_GROUPS.map((group) => (
              <div key={group.title} className="scope-group">
                <span className="scope-group-title">{group.title}</span>
                {group.scopes.map((scope) => (
                  <label key={scope} className="checkbox">
                    <input
                      type="checkbox"
                      value={scope}
                      checked={scopes.includes(scope)}
                      onChange={(e) => toggle(scope, e.target.checked)}
                    />
                    <span className="mono small">{scope}</span>
                  </label>
                ))}
              </div>
            ))}
          </div>
        </FieldSet>
        <FormError error={error} />
        <div>
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">
            Create key
          </SubmitButton>
        </div>
      </form>
    </section>
  );
}

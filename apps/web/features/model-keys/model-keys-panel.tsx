"use client";

import {
  BYOK_PROVIDERS,
  type ByokProbeResult,
  type ByokSettings,
  type ByokTestResult,
} from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useActingTeam } from "@/features/teams/use-acting-team";
import { errorMessage, errorParam } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Field, FormError, Loading } from "@/ui";
import { PageHeader } from "@/ui/page-header";

type Provider = (typeof BYOK_PROVIDERS)[number];

const PROVIDER_NAMES: Record<Provider, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  google: "Google Gemini",
  "openai-compatible": "OpenAI-compatible server (Ollama, vLLM, LM Studio)",
};

const MODEL_EXAMPLES: Record<Provider, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  google: "gemini-2.5-flash",
  "openai-compatible": "llama3.2-vision",
};

function describeEffective(settings: ByokSettings): string {
  const { effective } = settings;
  if (effective.source === "byok") return `This team's own key: ${effective.provider} / ${effective.model}.`;
  if (effective.source === "platform") {
    return `The platform default: ${effective.provider} / ${effective.model}. Save a key of your own to use it instead.`;
  }
  return "No model: autousers rate with the heuristic judge until a key is saved.";
}

export function ModelKeysPanel() {
  const trpc = useTRPC();
  const { teamId, picker } = useActingTeam();
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  const settings = useQuery({
    ...trpc.byok.get.queryOptions({ teamId: teamId ?? undefined }),
    enabled: teamId !== null,
  });
  const role = teams.data?.data.find((t) => t.id === teamId)?.role;
  const canEdit = role === "owner" || role === "admin";

  return (
    <>
      <PageHeader
        title="Model keys"
        description="Bring your own key: autousers and the builder call your model provider with it. Keys are stored encrypted and never shown again."
        actions={picker}
      />
      {settings.isPending && teamId && <Loading>Loading settings…</Loading>}
      <FormError error={settings.error} />
      {settings.data && teamId && (
        <div className="stack-lg">
          <section className="card" aria-labelledby="effective-heading">
            <h2 id="effective-heading">What autousers use now</h2>
            <p data-testid="effective-model">{describeEffective(settings.data)}</p>
            {settings.data.configured && (
              <p className="muted small">
                {settings.data.hasKey ? `Saved key ends in …${settings.data.keyHint}. ` : "No key saved. "}
                {settings.data.updatedAt && `Updated ${formatDateTime(settings.data.updatedAt)}.`}
              </p>
            )}
          </section>
          {canEdit ? (
            <SettingsForm key={teamId} teamId={teamId} settings={settings.data} />
          ) : (
            <p className="muted">Only owners and admins of this team can change its model keys.</p>
          )}
        </div>
      )}
    </>
  );
}

function SettingsForm({ teamId, settings }: { teamId: string; settings: ByokSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState<Provider>(settings.provider ?? "openai");
  const [model, setModel] = useState(settings.model ?? "");
  const [baseUrl, setBaseUrl] = useState(settings.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [enabled, setEnabled] = useState(settings.configured ? settings.enabled : true);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; param?: string } | null>(null);
  const [checked, setChecked] = useState<
    { kind: "test"; result: ByokTestResult } | { kind: "probe"; result: ByokProbeResult } | null
  >(null);

  const fail = (err: unknown) => setError({ message: errorMessage(err), param: errorParam(err) });
  const saved = async (next: ByokSettings, message: string) => {
    queryClient.setQueryData(trpc.byok.get.queryKey({ teamId }), next);
    await queryClient.invalidateQueries(trpc.byok.get.pathFilter());
    setNotice(message);
  };
  const save = useMutation(
    trpc.byok.put.mutationOptions({ onSuccess: (next) => saved(next, "Settings saved."), onError: fail }),
  );
  const remove = useMutation(
    trpc.byok.delete.mutationOptions({
      onSuccess: (next) => saved(next, "Settings and key removed."),
      onError: fail,
    }),
  );
  const test = useMutation(
    trpc.byok.test.mutationOptions({
      onSuccess: (result) => setChecked({ kind: "test", result }),
      onError: fail,
    }),
  );
  const probe = useMutation(
    trpc.byok.probe.mutationOptions({
      onSuccess: (result) => setChecked({ kind: "probe", result }),
      onError: fail,
    }),
  );
  const busy = save.isPending || remove.isPending || test.isPending || probe.isPending;

  const reset = () => {
    setNotice(null);
    setError(null);
    setChecked(null);
  };
  const target = () => ({
    teamId,
    provider,
    model: model.trim(),
    baseUrl: baseUrl.trim() === "" ? null : baseUrl.trim(),
    ...(apiKey !== "" && { apiKey }),
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    reset();
    if (!model.trim()) return setError({ message: "Enter the model to use.", param: "model" });
    save.mutate({ ...target(), enabled }, { onSuccess: () => setApiKey("") });
  }

  function check(kind: "test" | "probe") {
    reset();
    if (!model.trim()) return setError({ message: "Enter the model to try.", param: "model" });
    (kind === "test" ? test : probe).mutate(target());
  }

  const invalid = (param: string) => (error?.param === param ? true : undefined);

  return (
    <section className="card form-card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Your provider</h2>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field id="byok-provider" label="Provider">
          {(props) => (
            <select
              {...props}
              value={provider}
              aria-invalid={invalid("provider")}
              onChange={(e) => setProvider(e.target.value as Provider)}
            >
              {BYOK_PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {PROVIDER_NAMES[p]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="byok-model" label="Model">
          {(props) => (
            <input
              {...props}
              className="mono"
              value={model}
              placeholder={MODEL_EXAMPLES[provider]}
              aria-invalid={invalid("model")}
              onChange={(e) => setModel(e.target.value)}
            />
          )}
        </Field>
        <Field
          id="byok-base-url"
          label="Base URL"
          hint={
            provider === "openai-compatible"
              ? "Required: the server's OpenAI-compatible address."
              : "Optional: a proxy in front of the provider."
          }
        >
          {(props) => (
            <input
              {...props}
              type="url"
              className="mono"
              value={baseUrl}
              placeholder={
                provider === "openai-compatible"
                  ? "http://localhost:11434/v1"
                  : "Leave empty for the provider's own"
              }
              aria-invalid={invalid("baseUrl")}
              onChange={(e) => setBaseUrl(e.target.value)}
            />
          )}
        </Field>
        <Field
          id="byok-api-key"
          label="API key"
          hint={
            settings.hasKey
              ? `A key ending in …${settings.keyHint} is saved; leave this empty to keep it.`
              : provider === "openai-compatible"
                ? "Optional for local servers."
                : "Write only: it is never shown again."
          }
        >
          {(props) => (
            <input
              {...props}
              type="password"
              className="mono"
              autoComplete="off"
              value={apiKey}
              aria-invalid={invalid("apiKey")}
              onChange={(e) => setApiKey(e.target.value)}
            />
          )}
        </Field>
        <label className="checkbox">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          Use this key for the team's autousers and builder
        </label>
        <FormError error={error?.message} />
        {notice && (
          <p className="alert alert-info" role="status">
            {notice}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy}>
            Save
          </button>
          <button type="button" className="button" disabled={busy} onClick={() => check("test")}>
            {test.isPending ? "Testing…" : "Test"}
          </button>
          <button type="button" className="button" disabled={busy} onClick={() => check("probe")}>
            {probe.isPending ? "Probing…" : "Probe"}
          </button>
          {settings.configured && (
            <button
              type="button"
              className="button button-danger-ghost"
              disabled={busy}
              onClick={() => {
                reset();
                remove.mutate({ teamId });
              }}
            >
              Remove
            </button>
          )}
        </div>
      </form>
      {checked && <CheckResult checked={checked} />}
    </section>
  );
}

function CheckResult({
  checked,
}: {
  checked: { kind: "test"; result: ByokTestResult } | { kind: "probe"; result: ByokProbeResult };
}) {
  const { result } = checked;
  const keyNote =
    result.keySource === "stored"
      ? "the saved key"
      : result.keySource === "supplied"
        ? "the key entered"
        : "no key";
  if (!result.ok && result.error) {
    return (
      <div className="alert alert-error" role="alert" data-testid="check-result">
        <strong>
          {checked.kind === "test" ? "The key does not work" : "The probe could not ask the model"}
        </strong>
        <p>
          {result.error.message} <span className="mono small">({result.error.code})</span>
        </p>
        <p className="small">
          Tried {result.provider} / {result.model} with {keyNote}.
        </p>
      </div>
    );
  }
  if (checked.kind === "test") {
    return (
      <p className="alert alert-info" role="status" data-testid="check-result">
        The key works: {result.provider} / {result.model} answered in {result.latencyMs} ms ({keyNote}).
      </p>
    );
  }
  const { capabilities, basis, known } = checked.result;
  const yes = (v: boolean) => (v ? "yes" : "no");
  return (
    <div className="alert alert-info" role="status" data-testid="check-result">
      <strong>
        {result.provider} / {result.model}
        {known ? "" : " (not in Rubricon's model table)"}
      </strong>
      <ul>
        <li>
          Image input: {yes(capabilities.imageInput)} (
          {basis.imageInput === "table" ? "from the model table" : "checked by a call"})
        </li>
        <li>Structured output: {yes(capabilities.structuredOutput)} (checked by a call)</li>
      </ul>
      {!capabilities.imageInput && (
        <p className="small">Autousers will judge pages from their text, without screenshots.</p>
      )}
    </div>
  );
}

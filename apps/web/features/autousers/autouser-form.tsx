"use client";

import {
  ACCESSIBILITY_NEED_VALUES,
  type Autouser,
  AutouserCreateInput,
  type AutouserPromptDraft,
  DEFAULT_VIEWPORTS,
  DEVICE_KINDS,
  EXPERTISE_LEVELS,
  NETWORK_PROFILES,
  paramOf,
} from "@rubricon/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { DraftFromDescription } from "@/features/catalog/draft-from-description";
import { DEVICE_LABELS, EXPERTISE_LABELS, NEED_LABELS, NETWORK_LABELS } from "@/lib/autousers";
import { errorMessage, errorParam } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { Field, FieldRow, FieldSet, FormError } from "@/ui";

type Mode =
  | { kind: "create"; teamId: string }
  | { kind: "edit"; autouser: Autouser }
  | { kind: "view"; autouser: Autouser };

type AccessibilityNeed = (typeof ACCESSIBILITY_NEED_VALUES)[number];
type DeviceKind = (typeof DEVICE_KINDS)[number];

interface Values {
  name: string;
  role: string;
  description: string;
  goals: string;
  traits: string;
  expertise: (typeof EXPERTISE_LEVELS)[number];
  accessibilityNeeds: AccessibilityNeed[];
  kind: DeviceKind;
  width: string;
  height: string;
  network: (typeof NETWORK_PROFILES)[number];
  systemPrompt: string;
  status: Autouser["status"];
  visibility: Autouser["visibility"];
}

const EMPTY: Values = {
  name: "",
  role: "",
  description: "",
  goals: "",
  traits: "",
  expertise: "intermediate",
  accessibilityNeeds: [],
  kind: "desktop",
  width: String(DEFAULT_VIEWPORTS.desktop.width),
  height: String(DEFAULT_VIEWPORTS.desktop.height),
  network: "fast",
  systemPrompt: "",
  status: "draft",
  visibility: "private",
};

function valuesOf(a: Autouser): Values {
  return {
    name: a.name,
    role: a.role,
    description: a.description,
    goals: a.goals.join("\n"),
    traits: a.traits.join("\n"),
    expertise: a.expertise,
    accessibilityNeeds: a.accessibilityNeeds,
    kind: a.device.kind,
    width: String(a.device.viewport.width),
    height: String(a.device.viewport.height),
    network: a.device.network,
    systemPrompt: a.systemPrompt ?? "",
    status: a.status,
    visibility: a.visibility,
  };
}

/** A drafted create body (from "Draft from a description") as form values, the rest left at their defaults. */
function valuesOfDraft(d: AutouserPromptDraft["draft"]): Values {
  const kind = d.device?.kind ?? "desktop";
  const viewport = d.device?.viewport ?? DEFAULT_VIEWPORTS[kind];
  return {
    ...EMPTY,
    name: d.name,
    role: d.role,
    description: d.description ?? "",
    goals: (d.goals ?? []).join("\n"),
    traits: (d.traits ?? []).join("\n"),
    expertise: d.expertise ?? "intermediate",
    accessibilityNeeds: d.accessibilityNeeds ?? [],
    kind,
    width: String(viewport.width),
    height: String(viewport.height),
    network: d.device?.network ?? "fast",
  };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The body the form stands for; the same for create and update (update sends every field). */
function bodyOf(v: Values) {
  return {
    name: v.name.trim(),
    role: v.role.trim(),
    description: v.description,
    goals: lines(v.goals),
    traits: lines(v.traits),
    expertise: v.expertise,
    accessibilityNeeds: v.accessibilityNeeds,
    device: {
      kind: v.kind,
      viewport: { width: Number(v.width), height: Number(v.height) },
      network: v.network,
    },
    systemPrompt: v.systemPrompt.trim() === "" ? null : v.systemPrompt,
    status: v.status,
    visibility: v.visibility,
  };
}

/** Which input shows a server or schema error: `device.viewport.width` under Width, `goals[3]` under Goals. */
function fieldOf(param: string | undefined): string {
  if (!param) return "form";
  if (param.startsWith("device.viewport.width")) return "width";
  if (param.startsWith("device.viewport.height")) return "height";
  const top = param.split(/[.[]/)[0]!;
  return top in EMPTY ? top : "form";
}

/**
 * Creating, editing and viewing a persona. The body is checked against the contract schema as the user types, so
 * Save stays disabled while something is invalid and each error shows under its field.
 */
export function AutouserForm({ mode }: { mode: Mode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const readOnly = mode.kind === "view";
  const [values, setValues] = useState<Values>(() =>
    mode.kind === "create" ? EMPTY : valuesOf(mode.autouser),
  );
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [serverError, setServerError] = useState<{ field: string; message: string } | null>(null);

  const parsed = AutouserCreateInput.safeParse(bodyOf(values));
  const errors: Record<string, string> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors[fieldOf(paramOf(issue.path))] ??= issue.message;
  }
  if (serverError) errors[serverError.field] = serverError.message;

  const onError = (error: unknown) =>
    setServerError({ field: fieldOf(errorParam(error)), message: errorMessage(error) });
  const create = useMutation(
    trpc.autousers.create.mutationOptions({
      onSuccess: async (created) => {
        queryClient.setQueryData(trpc.autousers.get.queryKey({ id: created.id }), created);
        await queryClient.invalidateQueries(trpc.autousers.list.pathFilter());
        router.push(`/autousers/${created.id}`);
      },
      onError,
    }),
  );
  const update = useMutation(
    trpc.autousers.update.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.autousers.get.queryKey({ id: updated.id }), updated);
        await queryClient.invalidateQueries(trpc.autousers.list.pathFilter());
      },
      onError,
    }),
  );
  const pending = create.isPending || update.isPending;

  function change<K extends keyof Values>(key: K, value: Values[K]) {
    setValues((v) => ({ ...v, [key]: value }));
    setTouched((t) => new Set([...t, key]));
    setServerError(null);
  }

  /** A new device kind brings its usual viewport, so the common case needs no typing. */
  function changeKind(kind: DeviceKind) {
    setValues((v) => ({
      ...v,
      kind,
      width: String(DEFAULT_VIEWPORTS[kind].width),
      height: String(DEFAULT_VIEWPORTS[kind].height),
    }));
    setServerError(null);
  }

  function toggleNeed(need: AccessibilityNeed, on: boolean) {
    change(
      "accessibilityNeeds",
      on ? [...values.accessibilityNeeds, need] : values.accessibilityNeeds.filter((n) => n !== need),
    );
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setTouched(new Set(Object.keys(EMPTY)));
    if (!parsed.success || readOnly) return;
    const body = bodyOf(values);
    if (mode.kind === "create") create.mutate({ ...body, teamId: mode.teamId });
    else update.mutate({ id: mode.autouser.id, ...body });
  }

  const shown = (key: string) => (touched.has(key) || serverError?.field === key ? errors[key] : undefined);
  return (
    <>
      {mode.kind === "create" && (
        <DraftFromDescription<AutouserPromptDraft["draft"]>
          kind="autousers"
          teamId={mode.teamId}
          onDraft={(draft) => setValues(valuesOfDraft(draft))}
        />
      )}
      <form className="card stack-lg" onSubmit={onSubmit} noValidate aria-label="Autouser">
        <fieldset className="form-fieldset stack-lg" disabled={readOnly}>
          <Field id="au-name" label="Name" error={shown("name")}>
            {(props) => (
              <input
                {...props}
                type="text"
                value={values.name}
                onChange={(e) => change("name", e.target.value)}
              />
            )}
          </Field>
          <Field id="au-role" label="Role" error={shown("role")}>
            {(props) => (
              <input
                {...props}
                type="text"
                placeholder="A parent shopping on a phone late at night"
                value={values.role}
                onChange={(e) => change("role", e.target.value)}
              />
            )}
          </Field>
          <Field
            id="au-description"
            label={
              <>
                Description <span className="muted">(optional)</span>
              </>
            }
            error={shown("description")}
          >
            {(props) => (
              <textarea
                {...props}
                rows={3}
                value={values.description}
                onChange={(e) => change("description", e.target.value)}
              />
            )}
          </Field>
          <FieldRow>
            <Field id="au-goals" label="Goals" hint="One per line." error={shown("goals")}>
              {(props) => (
                <textarea
                  {...props}
                  rows={3}
                  value={values.goals}
                  onChange={(e) => change("goals", e.target.value)}
                />
              )}
            </Field>
            <Field id="au-traits" label="Traits" hint="One per line." error={shown("traits")}>
              {(props) => (
                <textarea
                  {...props}
                  rows={3}
                  value={values.traits}
                  onChange={(e) => change("traits", e.target.value)}
                />
              )}
            </Field>
          </FieldRow>
          <Field id="au-expertise" label="Expertise">
            {(props) => (
              <select
                {...props}
                value={values.expertise}
                onChange={(e) => change("expertise", e.target.value as Values["expertise"])}
              >
                {EXPERTISE_LEVELS.map((x) => (
                  <option key={x} value={x}>
                    {EXPERTISE_LABELS[x]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <FieldSet legend="Accessibility needs">
            <div className="checkbox-grid">
              {ACCESSIBILITY_NEED_VALUES.map((need) => (
                <label key={need} className="checkbox">
                  <input
                    type="checkbox"
                    checked={values.accessibilityNeeds.includes(need)}
                    onChange={(e) => toggleNeed(need, e.target.checked)}
                  />{" "}
                  {NEED_LABELS[need]}
                </label>
              ))}
            </div>
          </FieldSet>
          <FieldSet legend="Device">
            <FieldRow>
              <Field id="au-kind" label="Device kind">
                {(props) => (
                  <select
                    {...props}
                    value={values.kind}
                    onChange={(e) => changeKind(e.target.value as DeviceKind)}
                  >
                    {DEVICE_KINDS.map((k) => (
                      <option key={k} value={k}>
                        {DEVICE_LABELS[k]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field id="au-width" label="Viewport width" error={shown("width")}>
                {(props) => (
                  <input
                    {...props}
                    type="number"
                    inputMode="numeric"
                    value={values.width}
                    onChange={(e) => change("width", e.target.value)}
                  />
                )}
              </Field>
              <Field id="au-height" label="Viewport height" error={shown("height")}>
                {(props) => (
                  <input
                    {...props}
                    type="number"
                    inputMode="numeric"
                    value={values.height}
                    onChange={(e) => change("height", e.target.value)}
                  />
                )}
              </Field>
              <Field id="au-network" label="Network">
                {(props) => (
                  <select
                    {...props}
                    value={values.network}
                    onChange={(e) => change("network", e.target.value as Values["network"])}
                  >
                    {NETWORK_PROFILES.map((n) => (
                      <option key={n} value={n}>
                        {NETWORK_LABELS[n]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </FieldRow>
          </FieldSet>
          <Field
            id="au-prompt"
            label={
              <>
                Instructions for a model judge <span className="muted">(optional)</span>
              </>
            }
            hint="Read by the model judge as the persona's own words; the heuristic judge ignores them."
            error={shown("systemPrompt")}
          >
            {(props) => (
              <textarea
                {...props}
                rows={3}
                value={values.systemPrompt}
                onChange={(e) => change("systemPrompt", e.target.value)}
              />
            )}
          </Field>
          <FieldRow>
            <Field id="au-status" label="Status">
              {(props) => (
                <select
                  {...props}
                  value={values.status}
                  onChange={(e) => change("status", e.target.value as Values["status"])}
                >
                  <option value="draft">Draft</option>
                  <option value="published">Published</option>
                </select>
              )}
            </Field>
            <Field id="au-visibility" label="Visibility">
              {(props) => (
                <select
                  {...props}
                  value={values.visibility}
                  onChange={(e) => change("visibility", e.target.value as Values["visibility"])}
                >
                  <option value="private">Private: you and the team's owners and admins</option>
                  <option value="public">Public: the whole team</option>
                </select>
              )}
            </Field>
          </FieldRow>
        </fieldset>

        <FormError error={shown("form")} />
        {!readOnly && (
          <div className="form-actions">
            <Link href="/autousers" className="button">
              Cancel
            </Link>
            <button type="submit" className="button button-primary" disabled={pending || !parsed.success}>
              {pending ? "Saving…" : "Save"}
            </button>
          </div>
        )}
      </form>
    </>
  );
}

"use client";

import {
  ACCESSIBILITY_NEED_VALUES,
  type Autouser,
  AutouserCreateInput,
  type AutouserPromptDraft,
  DEFAULT_VIEWPORTS,
  EXPERTISE_LEVELS,
  paramOf,
} from "@rubricon/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { DraftFromDescription } from "@/features/catalog/draft-from-description";
import { EXPERTISE_LABELS, NEED_LABELS } from "@/lib/autousers";
import { errorMessage, errorParam } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { Field, FieldRow, FieldSet, FormError, FormFields, SubmitButton } from "@/ui";
import {
  type AccessibilityNeed,
  bodyOf,
  type DeviceKind,
  EMPTY,
  fieldOf,
  type Values,
  valuesOf,
  valuesOfDraft,
} from "./autouser-values";
import { DeviceFields } from "./device-fields";

type Mode =
  | { kind: "create"; teamId: string }
  | { kind: "edit"; autouser: Autouser }
  | { kind: "view"; autouser: Autouser };

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
        <FormFields readOnly={readOnly}>
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
          <DeviceFields values={values} change={change} changeKind={changeKind} shown={shown} />
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
        </FormFields>

        <FormError error={shown("form")} />
        {!readOnly && (
          <div className="form-actions">
            <Link href="/autousers" className="button">
              Cancel
            </Link>
            <SubmitButton pending={pending} disabled={!parsed.success} />
          </div>
        )}
      </form>
    </>
  );
}

"use client";

import {
  SCALE_POINTS,
  SCORING_MODES,
  TEMPLATE_CONTEXTS,
  TEMPLATE_TYPES,
  type Template,
  type TemplatePromptDraft,
} from "@rubricon/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useMemo, useState } from "react";
import { DraftFromDescription } from "@/features/catalog/draft-from-description";
import { errorMessage, errorParam } from "@/lib/errors";
import {
  CONTEXT_LABELS,
  EMPTY_TEMPLATE_VALUES,
  type FieldErrors,
  fieldOf,
  SCORING_MODE_LABELS,
  type ScaleType,
  type ScoringMode,
  TEMPLATE_TYPE_LABELS,
  type TemplateContext,
  type TemplateFormValues,
  type TemplateType,
  validateTemplate,
  valuesFromDraft,
  valuesFromTemplate,
} from "@/lib/templates";
import { useTRPC } from "@/lib/trpc";
import { Field, FieldRow, FieldSet, FormError, FormFields, SubmitButton } from "@/ui";
import { ScaleFields } from "./scale-fields";

type Mode =
  | { kind: "create"; teamId: string }
  | { kind: "edit"; template: Template }
  | { kind: "view"; template: Template };

/**
 * One form for creating, editing and viewing a template. Every keystroke re-validates against the contract
 * schema and the scale rules; a field shows its error once it has been touched, and Save stays disabled while
 * anything is invalid. Editing sends only the changed fields. The parent remounts the form on each new version.
 */
export function TemplateForm({ mode }: { mode: Mode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const readOnly = mode.kind === "view";
  const [values, setValues] = useState<TemplateFormValues>(() =>
    mode.kind === "create" ? EMPTY_TEMPLATE_VALUES : valuesFromTemplate(mode.template),
  );
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});

  const validation = useMemo(
    () =>
      mode.kind === "create"
        ? validateTemplate(values, mode)
        : validateTemplate(values, { kind: "update", saved: mode.template }),
    [values, mode],
  );
  const unchanged =
    mode.kind !== "create" && validation.payload !== null && Object.keys(validation.payload).length === 0;

  const onServerError = (error: unknown) => {
    const key = fieldOf(errorParam(error));
    setServerErrors({ [key]: errorMessage(error) });
  };

  const create = useMutation(
    trpc.templates.create.mutationOptions({
      onSuccess: async (created) => {
        await queryClient.invalidateQueries(trpc.templates.list.pathFilter());
        queryClient.setQueryData(trpc.templates.get.queryKey({ id: created.id }), created);
        router.push(`/templates/${created.id}`);
      },
      onError: onServerError,
    }),
  );
  const update = useMutation(
    trpc.templates.update.mutationOptions({
      onSuccess: async (updated) => {
        queryClient.setQueryData(trpc.templates.get.queryKey({ id: updated.id }), updated);
        await Promise.all([
          queryClient.invalidateQueries(trpc.templates.versions.queryFilter({ id: updated.id })),
          queryClient.invalidateQueries(trpc.templates.list.pathFilter()),
        ]);
      },
      onError: onServerError,
    }),
  );
  const pending = create.isPending || update.isPending;

  function change<K extends keyof TemplateFormValues>(
    key: K,
    value: TemplateFormValues[K],
    alsoTouch: string[] = [],
  ) {
    setValues((v) => ({ ...v, [key]: value }));
    setTouched((t) => new Set([...t, key, ...alsoTouch]));
    setServerErrors({});
  }

  /** A new scale type brings the maximum along, so the common case never shows a mismatch. */
  function changeScaleType(scaleType: ScaleType) {
    setValues((v) => {
      const min = v.scaleMin.trim();
      const follows = /^-?\d+$/.test(min);
      return {
        ...v,
        scaleType,
        scaleMax: follows ? String(Number(min) + SCALE_POINTS[scaleType] - 1) : v.scaleMax,
      };
    });
    setTouched((t) => new Set([...t, "scaleType", "scaleMax"]));
    setServerErrors({});
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Submitting shows every error, including those of fields never touched.
    setTouched(new Set(Object.keys(EMPTY_TEMPLATE_VALUES)));
    const payload = validation.payload;
    if (!payload || readOnly) return;
    if (mode.kind === "create") {
      create.mutate(payload as Parameters<typeof create.mutate>[0]);
    } else if (!unchanged) {
      update.mutate({ id: mode.template.id, ...payload });
    }
  }

  const errorFor = (key: string): string | undefined =>
    serverErrors[key] ?? (touched.has(key.split(".")[0] ?? key) ? validation.errors[key] : undefined);

  const hiddenErrors = Object.keys(validation.errors).filter((key) => !errorFor(key));

  return (
    <>
      {mode.kind === "create" && (
        <DraftFromDescription<TemplatePromptDraft["draft"]>
          kind="templates"
          teamId={mode.teamId}
          onDraft={(draft) => setValues(valuesFromDraft(draft))}
        />
      )}
      <form className="card stack-lg" onSubmit={onSubmit} noValidate aria-label="Template">
        <FormFields readOnly={readOnly}>
          <Field id="tpl-name" label="Name" error={errorFor("name")}>
            {(props) => (
              <input
                {...props}
                type="text"
                value={values.name}
                onChange={(e) => change("name", e.target.value)}
              />
            )}
          </Field>

          <Field
            id="tpl-description"
            label={
              <>
                Description <span className="muted">(optional)</span>
              </>
            }
            error={errorFor("description")}
          >
            {(props) => (
              <textarea
                {...props}
                rows={2}
                value={values.description}
                onChange={(e) => change("description", e.target.value)}
              />
            )}
          </Field>

          <FieldRow>
            <Field id="tpl-type" label="Type" error={errorFor("type")}>
              {(props) => (
                <select
                  {...props}
                  value={values.type}
                  onChange={(e) => change("type", e.target.value as TemplateType)}
                >
                  {TEMPLATE_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {TEMPLATE_TYPE_LABELS[t]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="tpl-icon" label="Icon" error={errorFor("icon")}>
              {(props) => (
                <input
                  {...props}
                  type="text"
                  value={values.icon}
                  onChange={(e) => change("icon", e.target.value)}
                />
              )}
            </Field>
          </FieldRow>

          <ScaleFields
            values={values}
            change={change}
            changeScaleType={changeScaleType}
            errorFor={errorFor}
          />

          <Field id="tpl-scaleQuestion" label="Scale question" error={errorFor("scaleQuestion")}>
            {(props) => (
              <input
                {...props}
                type="text"
                placeholder="How good is this experience overall?"
                value={values.scaleQuestion}
                onChange={(e) => change("scaleQuestion", e.target.value)}
              />
            )}
          </Field>

          <Field
            id="tpl-guidelines"
            label="Guidelines"
            hint="What raters should weigh when they score."
            error={errorFor("guidelines")}
          >
            {(props) => (
              <textarea
                {...props}
                rows={5}
                value={values.guidelines}
                onChange={(e) => change("guidelines", e.target.value)}
              />
            )}
          </Field>

          <FieldSet legend="Contexts" error={errorFor("contexts")}>
            <div className="checkbox-row">
              {TEMPLATE_CONTEXTS.map((c) => (
                <label key={c} className="checkbox">
                  <input
                    type="checkbox"
                    checked={values.contexts.includes(c)}
                    onChange={(e) =>
                      change(
                        "contexts",
                        // Kept in the contract's order so toggling back and forth is not a change.
                        TEMPLATE_CONTEXTS.filter((x: TemplateContext) =>
                          x === c ? e.target.checked : values.contexts.includes(x),
                        ),
                      )
                    }
                  />
                  {CONTEXT_LABELS[c]}
                </label>
              ))}
            </div>
          </FieldSet>

          <Field id="tpl-scoringMode" label="Scoring mode" error={errorFor("scoringMode")}>
            {(props) => (
              <select
                {...props}
                value={values.scoringMode}
                onChange={(e) => change("scoringMode", e.target.value as ScoringMode)}
              >
                {SCORING_MODES.map((m) => (
                  <option key={m} value={m}>
                    {SCORING_MODE_LABELS[m]}
                  </option>
                ))}
              </select>
            )}
          </Field>

          <div className="stack">
            <label className="checkbox">
              <input
                type="checkbox"
                checked={values.openTextEnabled}
                onChange={(e) => change("openTextEnabled", e.target.checked)}
              />
              Open-text comments enabled
            </label>
            <label className="checkbox">
              <input
                type="checkbox"
                checked={values.isPrimary}
                onChange={(e) => change("isPrimary", e.target.checked)}
              />
              Primary template
            </label>
          </div>
        </FormFields>

        <FormError error={serverErrors.form} />

        {!readOnly && (
          <div className="form-actions">
            {hiddenErrors.length > 0 && (
              <p className="hint form-actions-hint">Fill in the required fields to save.</p>
            )}
            {unchanged && <p className="hint form-actions-hint">No unsaved changes.</p>}
            {mode.kind === "create" && (
              <Link href="/templates" className="button">
                Cancel
              </Link>
            )}
            <SubmitButton pending={pending} disabled={validation.payload === null || unchanged} />
          </div>
        )}
      </form>
    </>
  );
}

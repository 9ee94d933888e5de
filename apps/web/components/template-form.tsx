"use client";

import {
  SCALE_POINTS,
  SCALE_TYPES,
  SCORING_MODES,
  TEMPLATE_CONTEXTS,
  TEMPLATE_TYPES,
  type Template,
  type TemplatePromptDraft,
} from "@rubricon/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useMemo, useState } from "react";
import { DraftFromDescription } from "@/features/catalog/draft-from-description";
import { errorMessage, errorParam } from "@/lib/errors";
import {
  CONTEXT_LABELS,
  EMPTY_TEMPLATE_VALUES,
  type FieldErrors,
  fieldOf,
  SCALE_TYPE_LABELS,
  SCORING_MODE_LABELS,
  type ScaleType,
  type ScoringMode,
  scalePoints,
  TEMPLATE_TYPE_LABELS,
  type TemplateContext,
  type TemplateFormValues,
  type TemplateType,
  validateTemplate,
  valuesFromDraft,
  valuesFromTemplate,
} from "@/lib/templates";
import { useTRPC } from "@/lib/trpc";
import { FormError } from "@/ui";

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
  const fieldError = (key: string): ReactNode => {
    const message = errorFor(key);
    return message ? (
      <p className="field-error" id={`${key}-error`} role="alert">
        {message}
      </p>
    ) : null;
  };
  const invalid = (key: string) =>
    errorFor(key) ? { "aria-invalid": true as const, "aria-describedby": `${key}-error` } : {};

  const points = scalePoints(values);
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
        {/* A disabled fieldset makes every control read-only at once and keeps them labelled for assistive tech. */}
        <fieldset className="form-fieldset stack-lg" disabled={readOnly}>
          <div className="field">
            <label htmlFor="tpl-name">Name</label>
            <input
              id="tpl-name"
              type="text"
              value={values.name}
              onChange={(e) => change("name", e.target.value)}
              {...invalid("name")}
            />
            {fieldError("name")}
          </div>

          <div className="field">
            <label htmlFor="tpl-description">
              Description <span className="muted">(optional)</span>
            </label>
            <textarea
              id="tpl-description"
              rows={2}
              value={values.description}
              onChange={(e) => change("description", e.target.value)}
              {...invalid("description")}
            />
            {fieldError("description")}
          </div>

          <div className="field-row">
            <div className="field">
              <label htmlFor="tpl-type">Type</label>
              <select
                id="tpl-type"
                value={values.type}
                onChange={(e) => change("type", e.target.value as TemplateType)}
                {...invalid("type")}
              >
                {TEMPLATE_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {TEMPLATE_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
              {fieldError("type")}
            </div>
            <div className="field">
              <label htmlFor="tpl-icon">Icon</label>
              <input
                id="tpl-icon"
                type="text"
                value={values.icon}
                onChange={(e) => change("icon", e.target.value)}
                {...invalid("icon")}
              />
              {fieldError("icon")}
            </div>
          </div>

          <fieldset className="field">
            <legend>Scale</legend>
            <div className="field-row">
              <div className="field">
                <label htmlFor="tpl-scaleType">Scale type</label>
                <select
                  id="tpl-scaleType"
                  value={values.scaleType}
                  onChange={(e) => changeScaleType(e.target.value as ScaleType)}
                  {...invalid("scaleType")}
                >
                  {SCALE_TYPES.map((s) => (
                    <option key={s} value={s}>
                      {SCALE_TYPE_LABELS[s]} ({SCALE_POINTS[s]} points)
                    </option>
                  ))}
                </select>
                {fieldError("scaleType")}
              </div>
              <div className="field">
                <label htmlFor="tpl-scaleMin">Scale minimum</label>
                <input
                  id="tpl-scaleMin"
                  type="number"
                  step={1}
                  value={values.scaleMin}
                  onChange={(e) => change("scaleMin", e.target.value)}
                  {...invalid("scaleMin")}
                />
                {fieldError("scaleMin")}
              </div>
              <div className="field">
                <label htmlFor="tpl-scaleMax">Scale maximum</label>
                <input
                  id="tpl-scaleMax"
                  type="number"
                  step={1}
                  value={values.scaleMax}
                  onChange={(e) => change("scaleMax", e.target.value)}
                  {...invalid("scaleMax")}
                />
                {fieldError("scaleMax")}
              </div>
            </div>
            {points.length > 0 ? (
              <div className="scale-labels">
                {points.map((point) => {
                  const key = `scaleLabels.${point}`;
                  return (
                    <div className="field scale-label" key={point}>
                      <label htmlFor={`tpl-label-${point}`}>Label for {point}</label>
                      <input
                        id={`tpl-label-${point}`}
                        type="text"
                        value={values.scaleLabels[String(point)] ?? ""}
                        onChange={(e) =>
                          change("scaleLabels", { ...values.scaleLabels, [String(point)]: e.target.value })
                        }
                        {...invalid(key)}
                      />
                      {fieldError(key)}
                    </div>
                  );
                })}
              </div>
            ) : (
              <p className="hint">Point labels appear once the scale range is valid.</p>
            )}
          </fieldset>

          <div className="field">
            <label htmlFor="tpl-scaleQuestion">Scale question</label>
            <input
              id="tpl-scaleQuestion"
              type="text"
              placeholder="How good is this experience overall?"
              value={values.scaleQuestion}
              onChange={(e) => change("scaleQuestion", e.target.value)}
              {...invalid("scaleQuestion")}
            />
            {fieldError("scaleQuestion")}
          </div>

          <div className="field">
            <label htmlFor="tpl-guidelines">Guidelines</label>
            <textarea
              id="tpl-guidelines"
              rows={5}
              value={values.guidelines}
              onChange={(e) => change("guidelines", e.target.value)}
              {...invalid("guidelines")}
            />
            <p className="hint">What raters should weigh when they score.</p>
            {fieldError("guidelines")}
          </div>

          <fieldset className="field">
            <legend>Contexts</legend>
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
            {fieldError("contexts")}
          </fieldset>

          <div className="field">
            <label htmlFor="tpl-scoringMode">Scoring mode</label>
            <select
              id="tpl-scoringMode"
              value={values.scoringMode}
              onChange={(e) => change("scoringMode", e.target.value as ScoringMode)}
              {...invalid("scoringMode")}
            >
              {SCORING_MODES.map((m) => (
                <option key={m} value={m}>
                  {SCORING_MODE_LABELS[m]}
                </option>
              ))}
            </select>
            {fieldError("scoringMode")}
          </div>

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
        </fieldset>

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
            <button
              type="submit"
              className="button button-primary"
              disabled={validation.payload === null || unchanged || pending}
            >
              {pending ? "Saving…" : "Save"}
            </button>
          </div>
        )}
      </form>
    </>
  );
}

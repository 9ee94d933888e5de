import { type ReactElement, type ReactNode, useId } from "react";

export interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

function describedIds(base: string, hint: ReactNode, error: ReactNode) {
  const hintId = hint ? `${base}-hint` : undefined;
  const errorId = error ? `${base}-error` : undefined;
  return { hintId, errorId, describedBy: [hintId, errorId].filter(Boolean).join(" ") || undefined };
}

function Hint({ id, children }: { id?: string; children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="hint" id={id}>
      {children}
    </p>
  );
}

/** A field's own error line, for controls that sit outside a Field (an upload beside a URL input). */
export function FieldError({ id, children }: { id?: string; children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {children}
    </p>
  );
}

/**
 * A labelled form control with its hint and error. The control is given as a render function so it receives the
 * ids that tie the label, hint and error to it. `id` is for the few controls something else points at (an error
 * summary's link, a test hook); otherwise one is generated.
 */
export function Field({
  label,
  hint,
  error,
  id: givenId,
  className,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  id?: string;
  className?: string;
  children: (props: ControlProps) => ReactElement;
}) {
  const generated = useId();
  const id = givenId ?? generated;
  const { hintId, errorId, describedBy } = describedIds(id, hint, error);
  return (
    <div className={className ? `field ${className}` : "field"}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-describedby": describedBy, ...(error ? { "aria-invalid": true as const } : {}) })}
      <Hint id={hintId}>{hint}</Hint>
      <FieldError id={errorId}>{error}</FieldError>
    </div>
  );
}

/**
 * A group of controls under one legend: checkbox and radio sets, or related fields (a scale, a date range). The
 * hint sits under the legend, before the controls it explains; the error after them. Both describe the group.
 */
export function FieldSet({
  legend,
  hint,
  error,
  className,
  children,
}: {
  legend: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const base = useId();
  const { hintId, errorId, describedBy } = describedIds(base, hint, error);
  return (
    <fieldset className={className ? `field ${className}` : "field"} aria-describedby={describedBy}>
      <legend>{legend}</legend>
      <Hint id={hintId}>{hint}</Hint>
      {children}
      <FieldError id={errorId}>{error}</FieldError>
    </fieldset>
  );
}

/**
 * Fields side by side that wrap on narrow screens. As a fieldset when the row needs a (possibly hidden) legend, as
 * a list item when each row is one entry of a list.
 */
export function FieldRow({
  legend,
  as = "div",
  children,
}: {
  legend?: ReactNode;
  as?: "div" | "li";
  children: ReactNode;
}) {
  if (legend !== undefined)
    return (
      <fieldset className="field-row form-fieldset">
        <legend className="visually-hidden">{legend}</legend>
        {children}
      </fieldset>
    );
  if (as === "li") return <li className="field-row">{children}</li>;
  return <div className="field-row">{children}</div>;
}

/**
 * A form's fields, all read-only at once when the user may only view them: a disabled fieldset covers selects and
 * checkboxes too, and keeps every control labelled for assistive tech.
 */
export function FormFields({ readOnly, children }: { readOnly: boolean; children: ReactNode }) {
  return (
    <fieldset className="form-fieldset stack-lg" disabled={readOnly}>
      {children}
    </fieldset>
  );
}

"use client";

import { SHARE_ACCESS, SHARE_PASSWORD_MIN_LENGTH } from "@rubricon/contracts";
import { SHARE_ACCESS_LABELS } from "@/lib/share-access";
import { Field, FieldSet } from "@/ui";
import type { FieldErrors } from "./create-form-errors";

export type ShareAccess = (typeof SHARE_ACCESS)[number];

/**
 * Who may rate through the share link; a password when it asks for one, and what a public link asks raters for.
 * The inputs are read from the form on submit.
 */
export function ShareSettings({
  shareAccess,
  onShareAccessChange,
  errors,
}: {
  shareAccess: ShareAccess;
  onShareAccessChange: (access: ShareAccess) => void;
  errors: FieldErrors;
}) {
  return (
    <>
      <Field id="shareAccess" label="Share access" error={errors.shareAccess}>
        {(props) => (
          <select
            {...props}
            name="shareAccess"
            value={shareAccess}
            onChange={(e) => onShareAccessChange(e.target.value as ShareAccess)}
          >
            {SHARE_ACCESS.map((value) => (
              <option key={value} value={value}>
                {SHARE_ACCESS_LABELS[value]}
              </option>
            ))}
          </select>
        )}
      </Field>

      {shareAccess === "PASSWORD_PROTECTED" && (
        <Field id="sharePassword" label="Share password" error={errors.sharePassword}>
          {(props) => (
            <input
              {...props}
              name="sharePassword"
              type="password"
              autoComplete="new-password"
              minLength={SHARE_PASSWORD_MIN_LENGTH}
            />
          )}
        </Field>
      )}

      {(shareAccess === "ANYONE_WITH_LINK" || shareAccess === "PASSWORD_PROTECTED") && (
        <FieldSet legend="Rater details">
          <div className="checkbox-row">
            <label className="checkbox">
              <input type="checkbox" name="collectRaterName" /> Ask raters for their name
            </label>
            <label className="checkbox">
              <input type="checkbox" name="collectRaterEmail" /> Ask raters for their email
            </label>
          </div>
          <p className="hint">
            People opening the share link give these before they start; you see them under Public raters.
          </p>
        </FieldSet>
      )}
    </>
  );
}

"use client";

import type { ConversationDrafts, DraftIssue } from "@rubricon/contracts";
import { useState } from "react";

interface Props {
  drafts: ConversationDrafts;
  issues: DraftIssue[];
  readOnly: boolean;
  saving: boolean;
  onSave(drafts: ConversationDrafts): void;
}

/** The drafted evaluation as an editable form; templates and autousers are listed with why they were chosen. */
export function DraftsForm({ drafts, issues, readOnly, saving, onSave }: Props) {
  const e = drafts.evaluation;
  const [name, setName] = useState(e.name ?? "");
  const [type, setType] = useState<"" | "SSE" | "SxS">(e.type ?? "");
  const [urls, setUrls] = useState(
    e.type === "SxS"
      ? (e.comparisonPairs ?? []).map((p) => `${p.currentUrl ?? ""} ${p.variantUrl ?? ""}`).join("\n")
      : (e.designUrls ?? []).map((d) => d.url ?? "").join("\n"),
  );

  const edited = (): ConversationDrafts => {
    const lines = urls
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    const evaluation = { ...e, name: name.trim() || undefined, type: type || undefined };
    if (type === "SxS") {
      evaluation.comparisonPairs = lines.map((l) => {
        const [currentUrl, variantUrl] = l.split(/\s+/);
        return { currentUrl, variantUrl };
      });
      delete evaluation.designUrls;
    } else if (type === "SSE") {
      evaluation.designUrls = lines.map((url) => ({ url, stimulusType: "URL" as const }));
      delete evaluation.comparisonPairs;
    }
    return { ...drafts, evaluation };
  };

  return (
    <form
      aria-label="Evaluation draft"
      onSubmit={(ev) => {
        ev.preventDefault();
        onSave(edited());
      }}
    >
      <fieldset disabled={readOnly}>
        <label htmlFor="draft-name">Evaluation name</label>
        <input id="draft-name" value={name} maxLength={200} onChange={(ev) => setName(ev.target.value)} />
        <label htmlFor="draft-type">Type</label>
        <select
          id="draft-type"
          value={type}
          onChange={(ev) => setType(ev.target.value as "" | "SSE" | "SxS")}
        >
          <option value="">Not chosen</option>
          <option value="SSE">Single designs (SSE)</option>
          <option value="SxS">Side by side (SxS)</option>
        </select>
        <label htmlFor="draft-urls">
          {type === "SxS" ? "Pairs (current and variant URL per line)" : "Design URLs (one per line)"}
        </label>
        <textarea
          id="draft-urls"
          rows={3}
          value={urls}
          onChange={(ev) => setUrls(ev.target.value)}
          style={{ width: "100%" }}
        />
        {!readOnly && (
          <button type="submit" className="button" disabled={saving}>
            Save drafts
          </button>
        )}
      </fieldset>
      <h3>Templates</h3>
      <ul aria-label="Drafted templates">
        {drafts.templates.map((t) => (
          <li key={t.ref}>
            {t.template ? `${t.template.name} (new)` : t.templateId}
            {t.reason && <span className="muted small"> — {t.reason}</span>}
          </li>
        ))}
      </ul>
      <h3>Autousers</h3>
      {drafts.autousers.length === 0 && <p className="muted small">None: human raters only.</p>}
      <ul aria-label="Drafted autousers">
        {drafts.autousers.map((a) => (
          <li key={a.ref}>
            {a.autouserId} × {a.agentCount ?? 1}
            {a.reason && <span className="muted small"> — {a.reason}</span>}
          </li>
        ))}
      </ul>
      {issues.length > 0 && (
        <div role="status" aria-label="What is missing">
          <h3>Still needed</h3>
          <ul>
            {issues.map((i) => (
              <li key={`${i.param}:${i.message}`}>
                <code>{i.param}</code>: {i.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}

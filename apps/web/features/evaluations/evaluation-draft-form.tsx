"use client";

import type { Comparison, Evaluation } from "@rubricon/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { Field, FormError } from "@/ui";

/** One row of the form: an existing comparison (kept by id) or a new one. */
interface Row {
  key: string;
  id?: string;
  name: string;
  /** SSE: the URL; SxS: side A. Empty for a file stimulus, which is kept as it is. */
  url: string;
  variantUrl: string;
  file: boolean;
  original?: { name: string; url: string; variantUrl: string };
}

function rowOf(c: Comparison): Row {
  const s = c.stimulus;
  const url = s.kind === "single" ? (s.url ?? "") : (s.sideA.url ?? "");
  const variantUrl = s.kind === "pair" ? (s.sideB.url ?? "") : "";
  const file = s.kind === "single" ? s.fileId !== null : s.sideA.fileId !== null || s.sideB.fileId !== null;
  const name = c.name ?? "";
  return { key: c.id, id: c.id, name, url, variantUrl, file, original: { name, url, variantUrl } };
}

/**
 * Edits a Draft evaluation and its comparisons, saved in one atomic request (PATCH /evaluations/{id}/draft), so a
 * refused comparison leaves the whole draft as it was.
 */
export function EvaluationDraftForm({
  evaluation,
  comparisons,
  onDone,
}: {
  evaluation: Evaluation;
  comparisons: Comparison[];
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(evaluation.name);
  const [description, setDescription] = useState(evaluation.description ?? "");
  const [instructions, setInstructions] = useState(evaluation.instructions ?? "");
  const [rows, setRows] = useState<Row[]>(() =>
    [...comparisons].sort((a, b) => a.position - b.position).map(rowOf),
  );
  const [error, setError] = useState<string | null>(null);
  const pair = evaluation.type === "SxS";

  const save = useMutation(
    trpc.evaluations.editDraft.mutationOptions({
      onSuccess: async (edit) => {
        queryClient.setQueryData(trpc.evaluations.get.queryKey({ id: evaluation.id }), edit.evaluation);
        await queryClient.invalidateQueries(trpc.evaluations.comparisons.list.pathFilter());
        await queryClient.invalidateQueries(trpc.evaluations.list.pathFilter());
        onDone();
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );

  const update = (key: string, patch: Partial<Row>) =>
    setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const move = (index: number, by: number) =>
    setRows((all) => {
      const next = [...all];
      const [row] = next.splice(index, 1);
      next.splice(index + by, 0, row!);
      return next;
    });

  const payloadOf = (r: Row) => {
    const stimulusChanged =
      !r.original || (!r.file && (r.url !== r.original.url || r.variantUrl !== r.original.variantUrl));
    const stimulus = !stimulusChanged
      ? {}
      : pair
        ? { currentUrl: r.url, variantUrl: r.variantUrl }
        : { url: r.url };
    return { ...(r.id ? { id: r.id } : {}), name: r.name, ...stimulus };
  };

  return (
    <form
      className="card stack"
      aria-labelledby="draft-edit-heading"
      onSubmit={(event) => {
        event.preventDefault();
        setError(null);
        save.mutate({
          id: evaluation.id,
          name,
          description: description || null,
          instructions: instructions || null,
          comparisons: rows.map(payloadOf),
        });
      }}
    >
      <h2 id="draft-edit-heading">Edit draft</h2>
      <Field label="Name">
        {(props) => (
          <input {...props} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        )}
      </Field>
      <Field label="Description">
        {(props) => (
          <textarea
            {...props}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={2000}
          />
        )}
      </Field>
      <Field label="Instructions for raters">
        {(props) => (
          <textarea
            {...props}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
            maxLength={8000}
          />
        )}
      </Field>
      <fieldset className="stack">
        <legend>Comparisons, in the order raters see them</legend>
        <ol className="comparison-list">
          {rows.map((r, index) => (
            <li key={r.key} className="comparison" data-testid="draft-comparison">
              <span className="comparison-position">{index + 1}</span>
              <div className="comparison-body stack">
                <input
                  aria-label={`Name of comparison ${index + 1}`}
                  value={r.name}
                  placeholder="Name (optional)"
                  onChange={(e) => update(r.key, { name: e.target.value })}
                />
                {r.file ? (
                  <span className="muted small">Uploaded file, kept as it is</span>
                ) : (
                  <>
                    <input
                      type="url"
                      required
                      aria-label={
                        pair ? `Side A of comparison ${index + 1}` : `URL of comparison ${index + 1}`
                      }
                      value={r.url}
                      onChange={(e) => update(r.key, { url: e.target.value })}
                    />
                    {pair && (
                      <input
                        type="url"
                        required
                        aria-label={`Side B of comparison ${index + 1}`}
                        value={r.variantUrl}
                        onChange={(e) => update(r.key, { variantUrl: e.target.value })}
                      />
                    )}
                  </>
                )}
              </div>
              <div className="button-row">
                <button
                  type="button"
                  className="button"
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                >
                  Up
                </button>
                <button
                  type="button"
                  className="button"
                  disabled={index === rows.length - 1}
                  onClick={() => move(index, 1)}
                >
                  Down
                </button>
                <button
                  type="button"
                  className="button button-danger-ghost"
                  onClick={() => setRows((all) => all.filter((x) => x.key !== r.key))}
                >
                  Remove
                </button>
              </div>
            </li>
          ))}
        </ol>
        <div>
          <button
            type="button"
            className="button"
            onClick={() =>
              setRows((all) => [
                ...all,
                { key: `new-${Date.now()}-${all.length}`, name: "", url: "", variantUrl: "", file: false },
              ])
            }
          >
            Add comparison
          </button>
        </div>
      </fieldset>
      <FormError error={error} />
      <div className="button-row">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save draft
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

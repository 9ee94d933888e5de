"use client";

import { useState } from "react";
import { apiResponse, readEventStream } from "@/lib/api";
import { errorMessage } from "@/lib/errors";
import { Field, FormError } from "@/ui";

/**
 * "Draft from a description": streams a draft from `POST /api/v1/{autousers|templates}/draft-from-prompt` and hands
 * it to the form, which the user reviews and saves; drafting itself saves nothing.
 */
export function DraftFromDescription<D>({
  kind,
  teamId,
  onDraft,
}: {
  kind: "autousers" | "templates";
  teamId?: string;
  onDraft: (draft: D) => void;
}) {
  const [description, setDescription] = useState("");
  const [notes, setNotes] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function draft() {
    setPending(true);
    setError(null);
    setNotes("");
    try {
      const res = await apiResponse(`/api/v1/${kind}/draft-from-prompt`, {
        body: { description, ...(teamId ? { teamId } : {}) },
      });
      await readEventStream(res, (e) => {
        if (e.event === "text_delta") setNotes((n) => n + (e.data as { delta: string }).delta);
        else if (e.event === "draft") onDraft((e.data as { draft: D }).draft);
        else if (e.event === "error")
          setError((e.data as { error?: { message?: string } }).error?.message ?? "The draft failed.");
      });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setPending(false);
    }
  }

  return (
    <section className="card stack draft-from-description" aria-labelledby="draft-heading">
      <h2 id="draft-heading">Draft from a description</h2>
      <Field label="Describe it in a paragraph">
        {(props) => (
          <textarea
            {...props}
            rows={3}
            value={description}
            maxLength={2000}
            onChange={(event) => setDescription(event.target.value)}
          />
        )}
      </Field>
      <div className="button-row">
        <button
          type="button"
          className="button"
          disabled={pending || description.trim().length < 20}
          onClick={() => void draft()}
        >
          {pending ? "Drafting…" : "Draft"}
        </button>
      </div>
      {notes && <p className="muted small prewrap">{notes}</p>}
      <FormError error={error} />
    </section>
  );
}

"use client";

import { useState } from "react";
import { apiRequest } from "@/lib/api";
import { FieldError } from "@/ui";

export interface UploadedStimulus {
  id: string;
  filename: string;
}

/** Uploads a mock-up, screenshot, video, GIF or PDF through the API (the session's cookie authenticates it). */
async function uploadStimulus(file: File): Promise<UploadedStimulus> {
  const form = new FormData();
  form.append("file", file, file.name);
  const body = await apiRequest<UploadedStimulus>("/api/v1/files", { method: "POST", body: form });
  return { id: body.id, filename: body.filename };
}

/** A file picker that uploads at once and reports the stored file, or says why it was refused. */
export function StimulusUpload({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: UploadedStimulus | null;
  onChange(file: UploadedStimulus | null): void;
}) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  return (
    <div className="stimulus-upload">
      <label htmlFor={id} className="small">
        {label}
      </label>
      <input
        id={id}
        type="file"
        accept="image/png,image/jpeg,image/webp,image/gif,video/mp4,video/webm,application/pdf"
        disabled={state.busy}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          if (!file) return;
          setState({ busy: true, error: null });
          try {
            onChange(await uploadStimulus(file));
            setState({ busy: false, error: null });
          } catch (err) {
            onChange(null);
            setState({ busy: false, error: err instanceof Error ? err.message : "The upload failed." });
          }
        }}
      />
      {state.busy ? <span className="muted small">Uploading…</span> : null}
      {value ? (
        <span className="small" role="status">
          Uploaded {value.filename}{" "}
          <button type="button" className="button button-ghost" onClick={() => onChange(null)}>
            Remove file
          </button>
        </span>
      ) : null}
      <FieldError>{state.error}</FieldError>
    </div>
  );
}

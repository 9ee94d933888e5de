"use client";

import { CopyButton } from "@/ui";

/** A signing secret, shown the one time the API returns it. */
export function SecretReveal({
  title,
  secret,
  note,
  onDone,
}: {
  title: string;
  secret: string;
  note?: string;
  onDone: () => void;
}) {
  return (
    <section className="card card-highlight stack" aria-labelledby="secret-heading">
      <h2 id="secret-heading">{title}</h2>
      <p className="alert alert-warning" role="status">
        Copy this signing secret now and store it with your receiver. It will not be shown again.
        {note ? ` ${note}` : ""}
      </p>
      <div className="copy-box">
        <label htmlFor="signing-secret" className="visually-hidden">
          Signing secret
        </label>
        <input
          id="signing-secret"
          className="copy-value mono"
          readOnly
          value={secret}
          onFocus={(e) => e.target.select()}
        />
        <CopyButton value={secret} label="Copy signing secret" />
      </div>
      <div>
        <button type="button" className="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

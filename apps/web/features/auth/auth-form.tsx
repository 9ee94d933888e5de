"use client";

import { sameOriginPath } from "@rubricon/contracts";
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { apiRequest } from "@/lib/api";
import { errorMessage } from "@/lib/errors";
import { Field, FormError } from "@/ui";

type Mode = "sign-in" | "sign-up";

const COPY: Record<
  Mode,
  {
    title: string;
    submit: string;
    busy: string;
    alt: string;
    altHref: string;
    altLink: string;
  }
> = {
  "sign-in": {
    title: "Sign in to Rubricon",
    submit: "Sign in",
    busy: "Signing in…",
    alt: "New to Rubricon?",
    altHref: "/sign-up",
    altLink: "Create an account",
  },
  "sign-up": {
    title: "Create your account",
    submit: "Create account",
    busy: "Creating account…",
    alt: "Already have an account?",
    altHref: "/sign-in",
    altLink: "Sign in",
  },
};

/** Only same-site paths, so a crafted `?next=` cannot bounce a user to another site after signing in. */
function nextPath(): string {
  return sameOriginPath(new URLSearchParams(window.location.search).get("next"), window.location.origin);
}

export function AuthForm({ mode }: { mode: Mode }) {
  const copy = COPY[mode];
  const router = useRouter();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    setPending(true);
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    const body = {
      email: String(form.get("email") ?? "").trim(),
      password: String(form.get("password") ?? ""),
      ...(mode === "sign-up" && name ? { name } : {}),
    };
    try {
      await apiRequest(`/api/auth/${mode}`, { method: "POST", body });
    } catch (failure) {
      setError(errorMessage(failure));
      setPending(false);
      return;
    }
    // Anything cached belonged to the signed-out visitor.
    queryClient.clear();
    router.replace(nextPath());
  }

  return (
    <main className="auth">
      <div className="auth-card">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">
            R
          </span>
          Rubricon
        </div>
        <h1>{copy.title}</h1>
        <form onSubmit={onSubmit} className="stack">
          {mode === "sign-up" && (
            <Field label="Name">
              {(props) => <input {...props} name="name" type="text" autoComplete="name" maxLength={200} />}
            </Field>
          )}
          <Field label="Email">
            {(props) => (
              <input {...props} name="email" type="email" autoComplete="email" required maxLength={320} />
            )}
          </Field>
          <Field label="Password" hint={mode === "sign-up" ? "At least 8 characters." : undefined}>
            {(props) => (
              <input
                {...props}
                name="password"
                type="password"
                autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
                required
                minLength={mode === "sign-up" ? 8 : 1}
                maxLength={200}
              />
            )}
          </Field>
          <FormError error={error} />
          <button type="submit" className="button button-primary button-block" disabled={pending}>
            {pending ? copy.busy : copy.submit}
          </button>
        </form>
        <p className="auth-alt">
          {copy.alt} <Link href={copy.altHref}>{copy.altLink}</Link>
        </p>
      </div>
    </main>
  );
}

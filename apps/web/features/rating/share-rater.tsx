"use client";

import type { Rating, ShareView } from "@rubricon/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, type ReactNode, useState } from "react";
import { ApiError, apiRequest } from "@/lib/api";
import { plural } from "@/lib/format";
import { Field, FormError, Loading, SubmitButton } from "@/ui";
import { RatingFlow } from "./rating-flow";
import { FileHref } from "./stimulus-view";
import type { RatingBody, SubmitResult } from "./types";

/** The share API: a GET reads the link, a body is POSTed. */
function shareFetch<T>(path: string, body?: unknown): Promise<T> {
  return apiRequest<T>(path, body === undefined ? {} : { method: "POST", body });
}

const shareKey = (token: string) => ["share", token] as const;

export function ShareRater({ token }: { token: string }) {
  const base = `/api/share/${encodeURIComponent(token)}`;
  const view = useQuery({
    queryKey: shareKey(token),
    queryFn: () => shareFetch<ShareView>(base),
    // A refetch mid-rating would only repeat what the page already knows; the flow keeps its own progress.
    refetchOnWindowFocus: false,
    retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400),
  });

  if (view.isPending) {
    return (
      <ShareFrame>
        <Loading page />
      </ShareFrame>
    );
  }
  if (view.isError) {
    const missing = view.error instanceof ApiError && view.error.status === 404;
    return (
      <ShareFrame>
        {missing ? (
          <ShareNotFoundCard />
        ) : (
          <div className="card share-gate stack">
            <FormError error={view.error} />
            <div>
              <button type="button" className="button" onClick={() => view.refetch()}>
                Try again
              </button>
            </div>
          </div>
        )}
      </ShareFrame>
    );
  }

  const v = view.data;
  return (
    <ShareFrame teamName={v.evaluation.teamName} rater={v.access.rater}>
      <Intro view={v} />
      <ShareBody view={v} base={base} token={token} />
    </ShareFrame>
  );
}

function ShareFrame({
  children,
  teamName,
  rater,
}: {
  children: ReactNode;
  teamName?: string;
  rater?: ShareView["access"]["rater"];
}) {
  return (
    <div className="share-page">
      <header className="topbar">
        <div className="topbar-inner share-topbar-inner">
          <span className="brand">
            <span className="brand-mark" aria-hidden="true">
              R
            </span>
            Rubricon
          </span>
          {teamName && <span className="muted share-team">{teamName}</span>}
          {rater && (
            <span className="topbar-end muted small" data-testid="rater-identity">
              {rater.kind === "user" ? "Rating as team member" : "Rating as"}{" "}
              <strong className="rater-name">{rater.name ?? "guest"}</strong>
            </span>
          )}
        </div>
      </header>
      <main className="share-container">{children}</main>
    </div>
  );
}

function Intro({ view }: { view: ShareView }) {
  const e = view.evaluation;
  return (
    <section className="share-intro" aria-labelledby="share-title">
      <p className="eyebrow">
        {e.type === "SSE" ? "Rate each design" : "Compare two versions"}
        {e.teamName ? ` · ${e.teamName}` : ""}
      </p>
      <h1 id="share-title">{e.name ?? "A password-protected evaluation"}</h1>
      {e.description && <p className="muted">{e.description}</p>}
      {(e.instructions || e.scenario) && (
        <div className="share-brief">
          {e.scenario && (
            <div>
              <h2 className="brief-title">Scenario</h2>
              <p className="prewrap">{e.scenario}</p>
            </div>
          )}
          {e.instructions && (
            <div>
              <h2 className="brief-title">Instructions</h2>
              <p className="prewrap">{e.instructions}</p>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

function ShareBody({ view, base, token }: { view: ShareView; base: string; token: string }) {
  const signIn = `/sign-in?next=${encodeURIComponent(`/share/${token}`)}`;
  // An ended evaluation takes no ratings, whoever asks; the server only says "ended" to raters it knows.
  if (view.evaluation.status === "Ended" || view.access.state === "ended") {
    return (
      <Gate title="This evaluation has ended">
        <p className="muted">It is no longer taking ratings. Thank you for your interest.</p>
      </Gate>
    );
  }
  switch (view.access.state) {
    case "start":
      return <StartForm view={view} base={base} token={token} />;
    case "sign_in_required":
      return (
        <Gate title="Sign in to rate">
          <p className="muted">
            Only members of {view.evaluation.teamName || "the team"} can rate this evaluation. Sign in with
            your team account to continue.
          </p>
          <div>
            <Link href={signIn} className="button button-primary">
              Sign in to rate
            </Link>
          </div>
        </Gate>
      );
    case "not_a_member":
      return (
        <Gate title="You are not on this team">
          <p className="muted">
            This evaluation is open to members of {view.evaluation.teamName || "its team"} only, and the
            account you are signed in with is not one of them. Ask the team for an invitation, or sign in with
            another account.
          </p>
          <div>
            <Link href={signIn} className="button">
              Use another account
            </Link>
          </div>
        </Gate>
      );
    case "excluded":
      return (
        <Gate title="You can no longer rate this evaluation">
          <p className="muted">
            The team running this evaluation has closed it to your ratings. Thank you for taking part.
          </p>
        </Gate>
      );
    case "autousers_only":
      return (
        <Gate title="This link is for autousers">
          <p className="muted">
            The team shares this evaluation with automated raters only. If you were asked to rate it, ask for
            the link meant for people.
          </p>
        </Gate>
      );
    default:
      return <ReadyFlow view={view} base={base} />;
  }
}

function Gate({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="card share-gate stack" aria-labelledby="gate-title">
      <h2 id="gate-title" className="gate-title">
        {title}
      </h2>
      {children}
    </section>
  );
}

export function ShareNotFoundCard() {
  return (
    <section className="card share-gate stack" aria-labelledby="gate-title">
      <p className="eyebrow">404</p>
      <h1 id="gate-title">This link does not lead to an evaluation</h1>
      <p className="muted">
        The evaluation may not have started yet, or it was archived, or the link is mistyped. Check the link
        with whoever sent it to you.
      </p>
    </section>
  );
}

type StartField = "password" | "name" | "email";

function StartForm({ view, base, token }: { view: ShareView; base: string; token: string }) {
  const queryClient = useQueryClient();
  const ask = view.access.start;
  const [errors, setErrors] = useState<Partial<Record<StartField | "form", string>>>({});
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: StartField) => String(form.get(name) ?? "").trim();
    const body = {
      ...(ask.password ? { password: String(form.get("password") ?? "") } : {}),
      ...(ask.name ? { name: value("name") } : {}),
      ...(ask.email ? { email: value("email") } : {}),
    };
    const missing: typeof errors = {};
    if (ask.password && !body.password) missing.password = "Enter the password you were given.";
    if (ask.name && !body.name) missing.name = "Enter your name.";
    if (ask.email && !body.email) missing.email = "Enter your email address.";
    else if (ask.email && body.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(body.email)) {
      missing.email = "Enter a valid email address, like name@example.com.";
    }
    if (Object.keys(missing).length > 0) {
      setErrors(missing);
      return;
    }
    setErrors({});
    setPending(true);
    try {
      await shareFetch(`${base}/start`, body);
      await queryClient.invalidateQueries({ queryKey: shareKey(token) });
    } catch (error) {
      const e = error as ApiError;
      const field = e.param === "password" || e.param === "name" || e.param === "email" ? e.param : "form";
      setErrors({ [field]: e.message });
      setPending(false);
    }
  }

  const asksAnything = ask.password || ask.name || ask.email;

  return (
    <form className="card share-gate stack" onSubmit={onSubmit} noValidate aria-labelledby="start-title">
      <h2 id="start-title" className="gate-title">
        {asksAnything ? "Before you start" : "Ready when you are"}
      </h2>
      <p className="muted">
        {ask.password
          ? "This evaluation is password protected."
          : "You will see each design in turn and answer a few questions about it."}{" "}
        {ask.name || ask.email ? "The team asks who is rating; only they see your details." : ""}
      </p>
      {ask.password && (
        <Field id="password" label="Password" error={errors.password}>
          {(props) => <input {...props} name="password" type="password" autoComplete="off" />}
        </Field>
      )}
      {ask.name && (
        <Field id="name" label="Your name" error={errors.name}>
          {(props) => <input {...props} name="name" type="text" autoComplete="name" maxLength={200} />}
        </Field>
      )}
      {ask.email && (
        <Field id="email" label="Your email" error={errors.email}>
          {(props) => <input {...props} name="email" type="email" autoComplete="email" maxLength={320} />}
        </Field>
      )}
      <FormError error={errors.form} />
      <div>
        <SubmitButton pending={pending} pendingLabel="Starting…">
          Start rating
        </SubmitButton>
      </div>
    </form>
  );
}

function ReadyFlow({ view, base }: { view: ShareView; base: string }) {
  async function submit(body: RatingBody): Promise<SubmitResult> {
    try {
      await shareFetch<Rating>(`${base}/ratings`, body);
      return { ok: true };
    } catch (error) {
      const e = error as ApiError;
      return { ok: false, code: e.code, message: e.message };
    }
  }

  return (
    <FileHref.Provider value={(fileId) => `${base}/files/${encodeURIComponent(fileId)}`}>
      <RatingFlow
        kind={view.evaluation.type}
        comparisons={view.comparisons}
        templates={view.templates}
        ratedIds={view.ratedComparisonIds}
        submit={submit}
        finished={({ total, rated, skipped }) => (
          <section className="card share-gate share-done stack" aria-labelledby="done-title">
            <span className="done-mark" aria-hidden="true">
              ✓
            </span>
            <h2 id="done-title" className="gate-title">
              All done — thank you!
            </h2>
            <p className="muted">
              {rated + skipped === 0
                ? `You have already rated all ${plural(total, "comparison")} in this evaluation.`
                : `You rated ${plural(rated, "comparison")}${skipped ? ` and skipped ${skipped}` : ""}. Your answers have been saved; you can close this page.`}
            </p>
          </section>
        )}
      />
    </FileHref.Provider>
  );
}

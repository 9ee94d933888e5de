"use client";

import type { Conversation, ConversationDrafts } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Badge, FormError, PageHeader } from "@/ui";
import { DraftsForm } from "./drafts-form";
import { sendMessage } from "./reply-stream";

export function BuilderChat({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const conversation = useQuery(trpc.conversations.get.queryOptions({ id }));
  const messages = useQuery(trpc.conversations.messages.queryOptions({ id, limit: 100 }));
  const [text, setText] = useState("");
  const [streaming, setStreaming] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.conversations.get.queryKey({ id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.conversations.messages.queryKey({ id, limit: 100 }) }),
    ]);
  };
  const save = useMutation(
    trpc.conversations.update.mutationOptions({
      onSuccess: (c) => queryClient.setQueryData(trpc.conversations.get.queryKey({ id }), c),
    }),
  );
  const materialize = useMutation(
    trpc.conversations.materialize.mutationOptions({
      onSuccess: (r) => queryClient.setQueryData(trpc.conversations.get.queryKey({ id }), r.conversation),
    }),
  );

  const send = async () => {
    const message = text.trim();
    if (!message || streaming !== null) return;
    setError(null);
    setSent(message);
    setStreaming("");
    setText("");
    try {
      await sendMessage(id, message, (e) => {
        if (e.event === "text_delta") setStreaming((s) => (s ?? "") + (e.data as { delta: string }).delta);
        if (e.event === "drafts")
          queryClient.setQueryData(trpc.conversations.get.queryKey({ id }), e.data as Conversation);
        if (e.event === "error") setError((e.data as { error: { message: string } }).error.message);
      });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      await refresh();
      setStreaming(null);
      setSent(null);
    }
  };

  const c = conversation.data;
  const history = [...(messages.data?.data ?? [])].reverse();
  const closed = c?.status === "materialized" || c?.status === "archived";
  return (
    <>
      <PageHeader
        title={c?.title ?? c?.drafts.evaluation.name ?? "New evaluation"}
        description={
          <>
            Status: <Badge>{c?.status.replace("_", " ") ?? "…"}</Badge>
          </>
        }
        actions={
          <Link href="/builder" className="button button-ghost">
            All conversations
          </Link>
        }
      />
      <FormError error={conversation.error} />
      <div
        className="builder-layout"
        style={{ display: "grid", gridTemplateColumns: "minmax(0,1fr) minmax(0,1fr)", gap: "1.5rem" }}
      >
        <section aria-label="Chat" className="card">
          <ol className="chat-log" aria-live="polite" style={{ listStyle: "none", padding: 0 }}>
            {history.map((m) => (
              <li
                key={m.id}
                aria-label={m.role === "user" ? "You" : "Assistant"}
                style={{ marginBottom: "1rem" }}
              >
                <strong>{m.role === "user" ? "You" : "Assistant"}</strong>
                {m.status === "failed" && (
                  <>
                    {" "}
                    <Badge tone="danger">failed</Badge>
                  </>
                )}
                <p style={{ whiteSpace: "pre-wrap" }}>{m.parts.map((p) => p.text).join("\n")}</p>
                {m.error && <p className="muted small">{m.error.message}</p>}
              </li>
            ))}
            {sent !== null && (
              <li aria-label="You" style={{ marginBottom: "1rem" }}>
                <strong>You</strong>
                <p style={{ whiteSpace: "pre-wrap" }}>{sent}</p>
              </li>
            )}
            {streaming !== null && (
              <li aria-label="Assistant (writing)" aria-busy="true" style={{ marginBottom: "1rem" }}>
                <strong>Assistant</strong>
                <p style={{ whiteSpace: "pre-wrap" }}>{streaming || "…"}</p>
              </li>
            )}
          </ol>
          <FormError error={error} />
          {!closed && (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void send();
              }}
            >
              <label htmlFor="builder-message">Message</label>
              <textarea
                id="builder-message"
                rows={4}
                maxLength={8000}
                value={text}
                placeholder="Compare the new checkout with the old one for first-time mobile shoppers: https://… and https://…"
                onChange={(e) => setText(e.target.value)}
                style={{ width: "100%" }}
              />
              <button
                type="submit"
                className="button button-primary"
                disabled={streaming !== null || !text.trim()}
              >
                {streaming !== null ? "Assistant is writing…" : "Send"}
              </button>
            </form>
          )}
        </section>
        <section aria-label="Drafts" className="card">
          <h2>Drafts</h2>
          {c && (
            <DraftsForm
              key={c.updatedAt}
              drafts={c.drafts}
              issues={c.issues}
              readOnly={closed}
              saving={save.isPending}
              onSave={(drafts: ConversationDrafts) => save.mutate({ id, drafts })}
            />
          )}
          <FormError error={save.error} />
          {c?.status === "ready" && (
            <button
              type="button"
              className="button button-primary"
              disabled={materialize.isPending}
              onClick={() => materialize.mutate({ id })}
            >
              Create evaluation
            </button>
          )}
          <FormError error={materialize.error} />
          {c?.evaluationId && (
            <p className="alert alert-success" role="status">
              Evaluation created as a Draft.{" "}
              <Link href={`/evaluations/${c.evaluationId}`}>Open the evaluation</Link>
            </p>
          )}
        </section>
      </div>
    </>
  );
}

"use client";

import { EVENT_TYPES, type EventType } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Field, FormError, Loading, PageHeader } from "@/ui";
import { useConfirm } from "@/ui/confirm-dialog";
import { DeliveryLog } from "./delivery-log";
import { SecretReveal } from "./secret-reveal";
import { WebhookStatus } from "./status";
import styles from "./webhooks.module.css";

export function WebhookDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const endpoint = useQuery(trpc.webhooks.get.queryOptions({ id }));
  const [rotated, setRotated] = useState<{ secret: string; validUntil: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [testType, setTestType] = useState<EventType>("evaluation.created");

  const refresh = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter());
  const onError = (err: unknown) => {
    setNotice(null);
    setError(errorMessage(err));
  };
  const update = useMutation(trpc.webhooks.update.mutationOptions({ onSuccess: refresh, onError }));
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: async (result) => {
        setRotated({ secret: result.secret, validUntil: result.previousSecretValidUntil });
        await refresh();
      },
      onError,
    }),
  );
  const test = useMutation(
    trpc.webhooks.test.mutationOptions({
      onSuccess: async (result) => {
        setError(null);
        setNotice(`Test event ${result.eventId} queued; its delivery appears below.`);
        await refresh();
      },
      onError,
    }),
  );

  if (endpoint.isPending) return <Loading>Loading endpoint…</Loading>;
  if (endpoint.isError) return <FormError error={endpoint.error} />;
  const e = endpoint.data;

  return (
    <>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link href="/webhooks">Webhooks</Link>
      </nav>
      <PageHeader
        title={<span className="mono">{e.url}</span>}
        description={
          <>
            {e.description ?? "No description"} · <span className="mono small">{e.id}</span>
          </>
        }
        actions={<WebhookStatus status={e.status} />}
      />

      {e.disabled_reason && (
        <FormError
          error={`Disabled automatically on ${formatDateTime(e.disabledAt)}: ${e.disabled_reason} Fix the receiver, then enable the endpoint again.`}
        />
      )}
      {rotated && (
        <SecretReveal
          title="New signing secret"
          secret={rotated.secret}
          note={`Until ${formatDateTime(rotated.validUntil)} deliveries are still signed with the previous secret too, so deploy the new one before then.`}
          onDone={() => setRotated(null)}
        />
      )}
      {notice && (
        <p className="alert alert-info" role="status">
          {notice}
        </p>
      )}
      <FormError error={error} />

      <section className="card stack" aria-labelledby="endpoint-settings-heading">
        <h2 id="endpoint-settings-heading">Endpoint</h2>
        <dl className="facts">
          <dt>Events</dt>
          <dd>
            <div className="chips">
              {e.enabled_events.map((type) => (
                <span className="chip" key={type}>
                  {type === "*" ? "All events" : type}
                </span>
              ))}
            </div>
          </dd>
          <dt>Secret rotated</dt>
          <dd>{e.secretRotatedAt ? formatDateTime(e.secretRotatedAt) : "Never"}</dd>
        </dl>
        <div className={styles.toolbar}>
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => update.mutate({ id, status: e.status === "enabled" ? "disabled" : "enabled" })}
          >
            {e.status === "enabled" ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            className="button"
            disabled={rotate.isPending}
            onClick={async () => {
              const ok = await confirm({
                message: "Rotate the signing secret? The current one keeps working for 24 hours.",
                confirmLabel: "Rotate",
              });
              if (ok) rotate.mutate({ id });
            }}
          >
            Rotate secret
          </button>
          <Field id="test-type" label="Test event type">
            {(props) => (
              <select
                {...props}
                value={testType}
                onChange={(ev) => setTestType(ev.target.value as EventType)}
              >
                {EVENT_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button
            type="button"
            className="button button-primary"
            disabled={test.isPending || e.status !== "enabled"}
            onClick={() => test.mutate({ id, type: testType })}
          >
            Send test event
          </button>
        </div>
      </section>

      <DeliveryLog endpointId={id} />
    </>
  );
}

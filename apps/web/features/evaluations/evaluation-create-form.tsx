"use client";

import { EvaluationCreateInput } from "@rubricon/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { errorMessage, errorParam } from "@/lib/errors";
import { useTRPC } from "@/lib/trpc";
import { Field, FieldRow, FieldSet, FormError, PageHeader, SubmitButton } from "@/ui";
import { type AgentCounts, AutouserPicker } from "./autouser-picker";
import { refusedDesignUrls } from "./check-design-urls";
import { describeIssue, type FieldErrors, fieldOf, issuesToErrors } from "./create-form-errors";
import { DesignPairs, newPair, type Pair } from "./design-pairs";
import { type ShareAccess, ShareSettings } from "./share-settings";

type EvaluationType = "SSE" | "SxS";

export function EvaluationCreateForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [type, setType] = useState<EvaluationType>("SSE");
  const [shareAccess, setShareAccess] = useState<ShareAccess>("TEAM_ONLY");
  const [pairs, setPairs] = useState<Pair[]>(() => [newPair()]);
  // Design URLs an autouser run would refuse here (loopback, private): warned about, not blocked.
  const [refused, setRefused] = useState<string[]>([]);

  async function checkUrls(form: HTMLFormElement) {
    const text = (form.elements.namedItem("designUrls") as HTMLTextAreaElement | null)?.value ?? "";
    const urls = type === "SSE" ? text.split("\n") : pairs.flatMap((p) => [p.a, p.b]);
    setRefused(await refusedDesignUrls(urls).catch(() => []));
  }
  const [errors, setErrors] = useState<FieldErrors>({});
  const [agents, setAgents] = useState<AgentCounts>({});
  const selectedAutousers = Object.entries(agents).map(([autouserId, agentCount]) => ({
    autouserId,
    agentCount,
  }));

  const create = useMutation(
    trpc.evaluations.create.mutationOptions({
      onSuccess: async (result) => {
        await queryClient.invalidateQueries(trpc.evaluations.pathFilter());
        if ("id" in result) router.push(`/evaluations/${result.id}`);
      },
      onError: (error) => {
        const param = errorParam(error);
        setErrors({
          [fieldOf(param)]: describeIssue(param, errorMessage(error)),
        });
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const description = text("description");
    const urls = text("designUrls")
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
    const deadline = text("ratingDeadline");
    const target = text("targetRatingsPerComparison");
    // datetime-local is the rater's wall clock without a zone; Date reads it as local time, as the user meant.
    const deadlineDate = deadline ? new Date(deadline) : null;
    const publicLink = shareAccess === "ANYONE_WITH_LINK" || shareAccess === "PASSWORD_PROTECTED";
    const raw = {
      name: text("name"),
      type,
      shareAccess,
      ...(form.get("startNow") ? { status: "Running" as const } : {}),
      ...(deadlineDate
        ? { ratingDeadline: Number.isNaN(deadlineDate.getTime()) ? deadline : deadlineDate.toISOString() }
        : {}),
      ...(target ? { targetRatingsPerComparison: Number(target) } : {}),
      ...(publicLink
        ? {
            collectRaterName: form.get("collectRaterName") === "on",
            collectRaterEmail: form.get("collectRaterEmail") === "on",
          }
        : {}),
      ...(description ? { description } : {}),
      ...(selectedAutousers.length > 0 ? { selectedAutousers, evaluationMethod: "both" as const } : {}),
      ...(shareAccess === "PASSWORD_PROTECTED"
        ? { sharePassword: String(form.get("sharePassword") ?? "") }
        : {}),
      ...(type === "SSE"
        ? { designUrls: urls.map((url) => ({ url })) }
        : {
            // Blank sides are left out so the contract reports them as missing rather than malformed.
            comparisonPairs: pairs.map((p) => ({
              ...(p.aFile ? { sideAFileId: p.aFile.id } : { currentUrl: p.a.trim() || undefined }),
              ...(p.bFile ? { sideBFileId: p.bFile.id } : { variantUrl: p.b.trim() || undefined }),
            })),
          }),
    };
    // The contract schema checks the form before the round trip, with the same messages the API would give.
    const parsed = EvaluationCreateInput.safeParse(raw);
    if (!parsed.success) {
      setErrors(issuesToErrors(parsed.error.issues));
      return;
    }
    if (deadlineDate && deadlineDate.getTime() <= Date.now()) {
      setErrors({ ratingDeadline: "Pick a deadline in the future." });
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  }

  return (
    <>
      <PageHeader
        breadcrumb={
          <>
            <Link href="/evaluations">Evaluations</Link>
            <span aria-hidden="true">/</span>
          </>
        }
        title="New evaluation"
      />

      <form
        className="card form-card stack-lg"
        onSubmit={onSubmit}
        noValidate
        onBlur={(event) => {
          const target = event.target as HTMLElement;
          if (
            target.id === "designUrls" ||
            (target.id.startsWith("pair-") && target.matches("input[type=url]"))
          )
            void checkUrls(event.currentTarget);
        }}
      >
        <Field id="name" label="Name" error={errors.name}>
          {(props) => <input {...props} name="name" type="text" maxLength={200} />}
        </Field>

        <FieldSet legend="Type" error={errors.type}>
          <div className="choice-grid">
            <label className={`choice ${type === "SSE" ? "choice-selected" : ""}`}>
              <input
                type="radio"
                name="type"
                value="SSE"
                checked={type === "SSE"}
                onChange={() => setType("SSE")}
              />
              <span>
                <strong>SSE — single design</strong>
                <span className="muted small">Raters score one design at a time.</span>
              </span>
            </label>
            <label className={`choice ${type === "SxS" ? "choice-selected" : ""}`}>
              <input
                type="radio"
                name="type"
                value="SxS"
                checked={type === "SxS"}
                onChange={() => setType("SxS")}
              />
              <span>
                <strong>SxS — side by side</strong>
                <span className="muted small">Raters compare version A with version B.</span>
              </span>
            </label>
          </div>
        </FieldSet>

        <Field
          id="description"
          label={
            <>
              Description <span className="muted">(optional)</span>
            </>
          }
          error={errors.description}
        >
          {(props) => <textarea {...props} name="description" rows={3} maxLength={2000} />}
        </Field>

        {type === "SSE" ? (
          <Field
            id="designUrls"
            label="Design URLs"
            hint="One URL per line; each becomes a comparison for raters."
            error={errors.designUrls}
          >
            {(props) => (
              <textarea
                {...props}
                name="designUrls"
                rows={4}
                className="mono"
                placeholder={"https://example.com/checkout\nhttps://example.com/pricing"}
              />
            )}
          </Field>
        ) : (
          <DesignPairs pairs={pairs} setPairs={setPairs} errors={errors} />
        )}
        {refused.length > 0 && (
          <div className="alert alert-warning" role="status" data-testid="url-policy-warning">
            <p>
              Autousers cannot open {refused.length === 1 ? "this address" : "these addresses"} on this
              deployment, because {refused.length === 1 ? "it is" : "they are"} not on the public internet
              (loopback, private or link-local): {refused.join(", ")}. People can still rate{" "}
              {refused.length === 1 ? "it" : "them"}; autouser runs will be refused.
            </p>
          </div>
        )}

        <ShareSettings shareAccess={shareAccess} onShareAccessChange={setShareAccess} errors={errors} />

        <FieldSet
          legend={
            <>
              Rating window <span className="muted">(optional)</span>
            </>
          }
        >
          <FieldRow>
            <Field id="ratingDeadline" label="Deadline" error={errors.ratingDeadline}>
              {(props) => <input {...props} name="ratingDeadline" type="datetime-local" />}
            </Field>
            <Field
              id="targetRatingsPerComparison"
              label="Target ratings per comparison"
              error={errors.targetRatingsPerComparison}
            >
              {(props) => (
                <input
                  {...props}
                  name="targetRatingsPerComparison"
                  type="number"
                  min={1}
                  max={10000}
                  step={1}
                  inputMode="numeric"
                />
              )}
            </Field>
          </FieldRow>
          <p className="hint">
            Human rating closes at the deadline or once every comparison has the target number of human
            ratings, whichever comes first; the evaluation then ends.
          </p>
        </FieldSet>

        <AutouserPicker agents={agents} setAgents={setAgents} error={errors.selectedAutousers} />

        <label className="checkbox">
          <input type="checkbox" name="startNow" /> Start collecting ratings now
          <span className="muted small">(otherwise it stays a draft until you start it)</span>
        </label>

        <FormError error={errors.form} />

        <div className="form-actions">
          <Link href="/evaluations" className="button">
            Cancel
          </Link>
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">
            Create evaluation
          </SubmitButton>
        </div>
      </form>
    </>
  );
}

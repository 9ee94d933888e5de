"use client";

import { EvaluationCreateInput, paramOf, SHARE_ACCESS, SHARE_PASSWORD_MIN_LENGTH } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import type { z } from "zod";
import { errorMessage, errorParam } from "@/lib/errors";
import { SHARE_ACCESS_LABELS } from "@/lib/share-access";
import { useTRPC } from "@/lib/trpc";
import { Badge, Field, FieldRow, FieldSet, FormError, Loading, PageHeader } from "@/ui";
import { refusedDesignUrls } from "./check-design-urls";
import { StimulusUpload, type UploadedStimulus } from "./stimulus-upload";

type EvaluationType = "SSE" | "SxS";
type ShareAccess = (typeof SHARE_ACCESS)[number];
interface Pair {
  key: number;
  a: string;
  b: string;
  aFile: UploadedStimulus | null;
  bFile: UploadedStimulus | null;
}
type FieldErrors = Record<string, string>;

let nextPairKey = 1;
const newPair = (): Pair => ({ key: nextPairKey++, a: "", b: "", aFile: null, bFile: null });

/**
 * Errors are keyed by the field they belong to: `designUrls[2].url` shows under the URL list as "Line 3",
 * `comparisonPairs[0].variantUrl` under the first pair's B input.
 */
function fieldOf(param: string | undefined): string {
  if (!param) return "form";
  if (param.startsWith("designUrls")) return "designUrls";
  const pair = /^comparisonPairs\[(\d+)\]\.(currentUrl|variantUrl|sideAFileId|sideBFileId)/.exec(param);
  if (pair) return `pair-${pair[1]}-${pair[2] === "currentUrl" || pair[2] === "sideAFileId" ? "a" : "b"}`;
  if (param.startsWith("comparisonPairs")) return "comparisonPairs";
  if (param.startsWith("selectedAutousers")) return "selectedAutousers";
  return [
    "name",
    "description",
    "type",
    "shareAccess",
    "sharePassword",
    "ratingDeadline",
    "targetRatingsPerComparison",
  ].includes(param)
    ? param
    : "form";
}

function describeIssue(param: string | undefined, message: string): string {
  const line = param && /^designUrls\[(\d+)\]/.exec(param);
  if (line) return `Line ${Number(line[1]) + 1}: enter a full URL, starting with https://.`;
  if (param?.startsWith("comparisonPairs[")) return "Enter a full URL, starting with https://.";
  return message;
}

function issuesToErrors(issues: z.core.$ZodIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const param = paramOf(issue.path);
    const key = fieldOf(param);
    errors[key] ??= describeIssue(param, issue.message);
  }
  return errors;
}

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
  /** Chosen autousers and how many agents of each rate every comparison. */
  const [agents, setAgents] = useState<Record<string, number>>({});
  const autousers = useQuery(trpc.autousers.list.queryOptions({ limit: 100 }));
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
          <FieldSet
            legend="Design pairs"
            hint="Each pair becomes a comparison: raters see version A beside version B."
            error={errors.comparisonPairs}
          >
            <div className="stack">
              {pairs.map((pair, index) => (
                <div className="pair-row" key={pair.key}>
                  <Field
                    id={`pair-${pair.key}-a`}
                    label={`Pair ${index + 1} version A URL`}
                    error={errors[`pair-${index}-a`]}
                  >
                    {(props) => (
                      <>
                        <input
                          {...props}
                          type="url"
                          className="mono"
                          value={pair.a}
                          onChange={(e) =>
                            setPairs(pairs.map((p) => (p.key === pair.key ? { ...p, a: e.target.value } : p)))
                          }
                        />
                        <StimulusUpload
                          id={`pair-${pair.key}-a-file`}
                          label={`Or upload version A of pair ${index + 1}`}
                          value={pair.aFile}
                          onChange={(file) =>
                            setPairs((all) =>
                              all.map((p) => (p.key === pair.key ? { ...p, aFile: file } : p)),
                            )
                          }
                        />
                      </>
                    )}
                  </Field>
                  <Field
                    id={`pair-${pair.key}-b`}
                    label={`Pair ${index + 1} version B URL`}
                    error={errors[`pair-${index}-b`]}
                  >
                    {(props) => (
                      <>
                        <input
                          {...props}
                          type="url"
                          className="mono"
                          value={pair.b}
                          onChange={(e) =>
                            setPairs(pairs.map((p) => (p.key === pair.key ? { ...p, b: e.target.value } : p)))
                          }
                        />
                        <StimulusUpload
                          id={`pair-${pair.key}-b-file`}
                          label={`Or upload version B of pair ${index + 1}`}
                          value={pair.bFile}
                          onChange={(file) =>
                            setPairs((all) =>
                              all.map((p) => (p.key === pair.key ? { ...p, bFile: file } : p)),
                            )
                          }
                        />
                      </>
                    )}
                  </Field>
                  <button
                    type="button"
                    className="button button-ghost"
                    onClick={() => setPairs(pairs.filter((p) => p.key !== pair.key))}
                    disabled={pairs.length === 1}
                    aria-label={`Remove pair ${index + 1}`}
                  >
                    Remove
                  </button>
                </div>
              ))}
            </div>
            <div>
              <button type="button" className="button" onClick={() => setPairs([...pairs, newPair()])}>
                Add pair
              </button>
            </div>
          </FieldSet>
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

        <Field id="shareAccess" label="Share access" error={errors.shareAccess}>
          {(props) => (
            <select
              {...props}
              name="shareAccess"
              value={shareAccess}
              onChange={(e) => setShareAccess(e.target.value as ShareAccess)}
            >
              {SHARE_ACCESS.map((value) => (
                <option key={value} value={value}>
                  {SHARE_ACCESS_LABELS[value]}
                </option>
              ))}
            </select>
          )}
        </Field>

        {shareAccess === "PASSWORD_PROTECTED" && (
          <Field id="sharePassword" label="Share password" error={errors.sharePassword}>
            {(props) => (
              <input
                {...props}
                name="sharePassword"
                type="password"
                autoComplete="new-password"
                minLength={SHARE_PASSWORD_MIN_LENGTH}
              />
            )}
          </Field>
        )}

        {(shareAccess === "ANYONE_WITH_LINK" || shareAccess === "PASSWORD_PROTECTED") && (
          <FieldSet legend="Rater details">
            <div className="checkbox-row">
              <label className="checkbox">
                <input type="checkbox" name="collectRaterName" /> Ask raters for their name
              </label>
              <label className="checkbox">
                <input type="checkbox" name="collectRaterEmail" /> Ask raters for their email
              </label>
            </div>
            <p className="hint">
              People opening the share link give these before they start; you see them under Public raters.
            </p>
          </FieldSet>
        )}

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

        <FieldSet
          legend={
            <>
              Autousers <span className="muted">(optional)</span>
            </>
          }
          hint="Persona raters that score every comparison beside your human raters."
          error={errors.selectedAutousers}
        >
          {autousers.isPending && <Loading small>Loading autousers…</Loading>}
          <FormError error={autousers.error} />
          <ul className="stack autouser-picker">
            {autousers.data?.data.map((a) => {
              const chosen = agents[a.id] !== undefined;
              return (
                <FieldRow as="li" key={a.id}>
                  <label className="checkbox">
                    <input
                      type="checkbox"
                      checked={chosen}
                      onChange={(e) =>
                        setAgents(({ [a.id]: _drop, ...rest }) =>
                          e.target.checked ? { ...rest, [a.id]: 1 } : rest,
                        )
                      }
                    />{" "}
                    {a.name}
                    {a.isSystem && <Badge tone="system">System</Badge>}
                  </label>
                  {chosen && (
                    <label className="inline-field">
                      Agents for {a.name}{" "}
                      <input
                        type="number"
                        min={1}
                        max={50}
                        step={1}
                        inputMode="numeric"
                        value={agents[a.id]}
                        onChange={(e) => setAgents((g) => ({ ...g, [a.id]: Number(e.target.value) }))}
                      />
                    </label>
                  )}
                </FieldRow>
              );
            })}
          </ul>
        </FieldSet>

        <label className="checkbox">
          <input type="checkbox" name="startNow" /> Start collecting ratings now
          <span className="muted small">(otherwise it stays a draft until you start it)</span>
        </label>

        <FormError error={errors.form} />

        <div className="form-actions">
          <Link href="/evaluations" className="button">
            Cancel
          </Link>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create evaluation"}
          </button>
        </div>
      </form>
    </>
  );
}

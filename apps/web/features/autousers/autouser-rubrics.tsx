"use client";

import type { Autouser, AutouserRubric } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { formatDateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Badge, Field, FormError, Loading } from "@/ui";

/** The newest version of each template's rubric; older versions are history, listed under it. */
function byTemplate(rubrics: AutouserRubric[]) {
  const groups = new Map<string, AutouserRubric[]>();
  for (const r of [...rubrics].sort((a, b) => b.version - a.version)) {
    groups.set(r.dimensionId, [...(groups.get(r.dimensionId) ?? []), r]);
  }
  return [...groups.values()].map(([latest, ...older]) => ({ latest: latest!, older }));
}

function useInvalidate(autouserId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries(trpc.autousers.rubrics.queryFilter({ id: autouserId, limit: 100 }));
}

function RubricEditor({
  autouser,
  rubric,
  older,
}: {
  autouser: Autouser;
  rubric: AutouserRubric;
  older: AutouserRubric[];
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidate(autouser.id);
  const [guidance, setGuidance] = useState(rubric.guidance);
  const save = useMutation(trpc.autousers.updateRubric.mutationOptions({ onSuccess: invalidate }));
  const readOnly = autouser.isSystem;
  const id = `rubric-${rubric.id}`;

  return (
    <li className="version" aria-label={rubric.name}>
      <div className="version-head">
        <strong>{rubric.name}</strong>
        <span className="muted small">Version {rubric.version}</span>
        {rubric.isFrozen && <Badge tone="success">Frozen</Badge>}
      </div>
      <Field
        id={id}
        label={`Guidance for ${rubric.name}`}
        hint={
          rubric.isFrozen && !readOnly
            ? `This version is frozen; saving writes version ${rubric.version + 1}.`
            : undefined
        }
      >
        {(props) => (
          <textarea
            {...props}
            rows={3}
            value={guidance}
            readOnly={readOnly}
            maxLength={8000}
            onChange={(e) => setGuidance(e.target.value)}
          />
        )}
      </Field>
      <FormError error={save.error} />
      {!readOnly && (
        <div>
          <button
            type="button"
            className="button"
            disabled={save.isPending || guidance === rubric.guidance}
            onClick={() => save.mutate({ id: autouser.id, rubricId: rubric.id, guidance })}
          >
            Save {rubric.name} rubric
          </button>
        </div>
      )}
      {older.length > 0 && (
        <p className="muted small">
          Earlier:{" "}
          {older
            .map(
              (o) =>
                `version ${o.version}${o.isFrozen ? ` (frozen ${formatDateTime(o.frozenAt)}${o.krippendorffAlpha !== null ? `, α ${o.krippendorffAlpha.toFixed(2)}` : ""})` : ""}`,
            )
            .join("; ")}
        </p>
      )}
    </li>
  );
}

function AddRubric({ autouser, taken }: { autouser: Autouser; taken: Set<string> }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate(autouser.id);
  const templates = useQuery(trpc.templates.list.queryOptions({ limit: 100 }));
  const [dimensionId, setDimensionId] = useState("");
  const [guidance, setGuidance] = useState("");
  const add = useMutation(
    trpc.autousers.createRubric.mutationOptions({
      onSuccess: async () => {
        setDimensionId("");
        setGuidance("");
        await invalidate();
      },
    }),
  );
  const choices = (templates.data?.data ?? []).filter((t) => !taken.has(t.id));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (dimensionId) add.mutate({ id: autouser.id, dimensionId, guidance });
  }

  return (
    <form className="stack" onSubmit={onSubmit} aria-label="Add a rubric">
      <h3>Add a rubric</h3>
      <Field id="rubric-template" label="Template">
        {(props) => (
          <select {...props} value={dimensionId} onChange={(e) => setDimensionId(e.target.value)}>
            <option value="">Choose a template…</option>
            {choices.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        id="rubric-guidance"
        label="Guidance"
        hint="What the judge weighs when this persona rates the template."
      >
        {(props) => (
          <textarea
            {...props}
            rows={3}
            maxLength={8000}
            value={guidance}
            onChange={(e) => setGuidance(e.target.value)}
          />
        )}
      </Field>
      <FormError error={add.error} />
      <div>
        <button type="submit" className="button" disabled={!dimensionId || add.isPending}>
          Add rubric
        </button>
      </div>
    </form>
  );
}

/** How the persona rates each template: guidance per template, versioned; frozen versions never change. */
export function AutouserRubrics({ autouser }: { autouser: Autouser }) {
  const trpc = useTRPC();
  const rubrics = useQuery(trpc.autousers.rubrics.queryOptions({ id: autouser.id, limit: 100 }));
  const groups = rubrics.data ? byTemplate(rubrics.data.data) : [];

  return (
    <section className="card stack" aria-labelledby="rubrics-heading">
      <h2 id="rubrics-heading">Rubrics</h2>
      {rubrics.isPending && <Loading>Loading rubrics…</Loading>}
      <FormError error={rubrics.error} />
      {rubrics.data && groups.length === 0 && (
        <p className="muted">No rubrics yet: the judge rates every template with its own guidelines.</p>
      )}
      <ol className="version-list">
        {groups.map(({ latest, older }) => (
          <RubricEditor key={latest.id} autouser={autouser} rubric={latest} older={older} />
        ))}
      </ol>
      {!autouser.isSystem && rubrics.data && (
        <AddRubric autouser={autouser} taken={new Set(groups.map((g) => g.latest.dimensionId))} />
      )}
    </section>
  );
}

"use client";

import { PLAN_LIMITS, type Plan, SELF_SERVICE_PLANS, type Team } from "@rubricon/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useActingTeam } from "@/features/teams/use-acting-team";
import { errorMessage } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import { useTRPC } from "@/lib/trpc";
import { Badge, FormError, Loading } from "@/ui";
import { PageHeader } from "@/ui/page-header";
import { UsageMeters } from "./usage-meters";

const PLAN_NAMES: Record<Plan, string> = {
  free: "Free",
  team: "Team",
  pro: "Pro",
  enterprise: "Enterprise",
  self_hosted: "Self-hosted",
};
const PLANS: Plan[] = ["free", "team", "pro", "enterprise"];

function quota(n: number | null): string {
  return n === null ? "Unlimited" : n.toLocaleString("en");
}

export function PlanPanel() {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.auth.whoami.queryOptions({}));
  const teams = useQuery(trpc.teams.list.queryOptions({ limit: 100 }));
  // The same two queries as the hook's, so they are fetched once.
  const { teamId, picker } = useActingTeam();
  const team = teams.data?.data.find((t) => t.id === teamId);

  return (
    <>
      <PageHeader
        title="Plan and usage"
        description="Limits for requests per minute and monthly quotas, and this month's usage."
        actions={picker}
      />
      <FormError error={whoami.error ?? teams.error} />
      {teamId === null && teams.data && <p className="muted">You belong to no team yet.</p>}
      {teamId && <TeamPlan teamId={teamId} team={team} />}
    </>
  );
}

function TeamPlan({ teamId, team }: { teamId: string; team: Team | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const usage = useQuery(trpc.usage.get.queryOptions({ teamId }));
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const change = useMutation(
    trpc.usage.changePlan.mutationOptions({
      onSuccess: async (next) => {
        queryClient.setQueryData(trpc.usage.get.queryKey({ teamId }), next);
        setNotice(`Switched to the ${PLAN_NAMES[next.plan]} plan.`);
        await queryClient.invalidateQueries(trpc.teams.pathFilter());
      },
      onError: (err) => setError(errorMessage(err)),
    }),
  );

  if (usage.isPending) return <Loading>Loading usage…</Loading>;
  if (usage.isError) return <FormError error={usage.error} />;

  const current = usage.data.plan;
  const isOwner = team?.role === "owner";
  const selfService = (SELF_SERVICE_PLANS as readonly Plan[]).includes(current);

  function switchTo(plan: Plan) {
    setNotice(null);
    setError(null);
    change.mutate({ id: teamId, plan });
  }

  return (
    <div className="stack-lg">
      <section className="card" aria-labelledby="usage-heading">
        <div className="section-head">
          <h2 id="usage-heading">This billing period</h2>
          <span className="muted small">
            {formatDate(usage.data.period.start)} –{" "}
            {formatDate(new Date(Date.parse(usage.data.period.end) - 1).toISOString())}
          </span>
        </div>
        <UsageMeters usage={usage.data} />
      </section>

      <section aria-labelledby="plans-heading" className="stack">
        <h2 id="plans-heading">Plans</h2>
        {notice && (
          <p className="alert alert-info" role="status">
            {notice}
          </p>
        )}
        <FormError error={error} />
        {!isOwner && <p className="muted">Only an owner of this team can change its plan.</p>}
        {isOwner && current === "enterprise" && (
          <p className="muted">This team's Enterprise plan is managed with us; contact us to change it.</p>
        )}
        {current === "self_hosted" && (
          <p className="muted">
            This deployment does not bill (its operator has not set <code>BILLING_ENABLED</code>): teams have
            no monthly quotas.
          </p>
        )}
        <div className="plan-grid">
          {(current === "self_hosted" ? (["self_hosted"] as Plan[]) : PLANS).map((plan) => {
            const limits = PLAN_LIMITS[plan];
            const isCurrent = plan === current;
            const canSwitch =
              isOwner && selfService && !isCurrent && (SELF_SERVICE_PLANS as readonly Plan[]).includes(plan);
            return (
              <article
                key={plan}
                className={`plan-card${isCurrent ? " plan-card-current" : ""}`}
                aria-label={`${PLAN_NAMES[plan]} plan`}
              >
                <div className="plan-card-head">
                  <h3>{PLAN_NAMES[plan]}</h3>
                  {isCurrent && <Badge tone="success">Current plan</Badge>}
                </div>
                <dl className="plan-limits">
                  <dt>Requests per minute</dt>
                  <dd>{plan === "enterprise" ? "Custom" : limits.rpm}</dd>
                  <dt>Evaluations a month</dt>
                  <dd>{quota(limits.evals_mo)}</dd>
                  <dt>Human ratings a month</dt>
                  <dd>{plan === "enterprise" ? "Custom" : quota(limits.human_ratings_mo)}</dd>
                  <dt>Autouser ratings a month</dt>
                  <dd>{plan === "enterprise" ? "Custom" : quota(limits.autouser_ratings_mo)}</dd>
                </dl>
                {canSwitch && (
                  <button
                    type="button"
                    className="button button-primary"
                    onClick={() => switchTo(plan)}
                    disabled={change.isPending}
                  >
                    Switch to {PLAN_NAMES[plan]}
                  </button>
                )}
                {plan === "enterprise" && !isCurrent && (
                  <p className="muted small">Custom limits; contact us.</p>
                )}
              </article>
            );
          })}
        </div>
      </section>
    </div>
  );
}

import {
  AgreementQuery,
  AutouserListQuery,
  DraftFromPromptInput,
  EvaluationCreateInput,
  EvaluationDraftInput,
  EvaluationListQuery,
  IdParam,
  RunAutousersInput,
  StopAutousersInput,
  TemplateListQuery,
} from "@rubricon/contracts";
import { z } from "zod";
import type { appRouter } from "../routers/index";

type Caller = ReturnType<typeof appRouter.createCaller>;

/**
 * One MCP tool: a REST route's procedure, called through the router, so the token's scopes, the route's plan and
 * limits and the domain rules apply exactly as on `/api/v1`. A new tool is one entry here.
 */
export interface McpTool<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  readOnly: boolean;
  call(caller: Caller, input: z.infer<I>): Promise<unknown>;
}

const tool = <I extends z.ZodType>(t: McpTool<I>): McpTool => t as unknown as McpTool;

/**
 * A drafting stream read to its end, for a tool: the last event is the draft, or an error envelope, whose
 * message is thrown so the tool answers an error.
 */
async function lastOf(events: AsyncIterable<{ event?: string; data?: unknown }>): Promise<unknown> {
  let last: { event?: string; data?: unknown } | undefined;
  for await (const e of events) last = e;
  if (last?.event === "error") {
    const error = (last.data as { error?: { message?: string } }).error;
    throw new Error(error?.message ?? "The draft failed.");
  }
  return last?.data;
}

const ById = z.object({ id: IdParam.meta({ description: "The evaluation's id, `eval_...`." }) });

export const MCP_TOOLS: McpTool[] = [
  tool({
    name: "list_evaluations",
    title: "List evaluations",
    description: "Evaluations of the team, newest first (GET /evaluations). Scope evaluations:read.",
    input: EvaluationListQuery,
    readOnly: true,
    call: (c, input) => c.evaluations.list(input),
  }),
  tool({
    name: "get_evaluation",
    title: "Get an evaluation",
    description:
      "One evaluation with its templates and counts (GET /evaluations/{id}). Scope evaluations:read.",
    input: ById,
    readOnly: true,
    call: (c, input) => c.evaluations.get(input),
  }),
  tool({
    name: "create_evaluation",
    title: "Create an evaluation",
    description:
      "Creates an SSE evaluation from `designUrls` or an SxS one from `comparisonPairs` (POST /evaluations); " +
      "`dryRun: true` validates and prices without creating. Scope evaluations:write.",
    input: EvaluationCreateInput,
    readOnly: false,
    call: (c, input) => c.evaluations.create(input),
  }),
  tool({
    name: "get_results",
    title: "Get results",
    description:
      "Aggregated results per template dimension, per comparison and per rater (GET /evaluations/{id}/results). " +
      "Scope evaluations:read.",
    input: ById,
    readOnly: true,
    call: (c, input) => c.results.results(input),
  }),
  tool({
    name: "get_agreement",
    title: "Get rater agreement",
    description:
      "Krippendorff's alpha overall and per dimension, humans and autousers apart, with bootstrap intervals " +
      "(GET /evaluations/{id}/agreement). Scope evaluations:read.",
    input: AgreementQuery,
    readOnly: true,
    call: (c, input) => c.results.agreement(input),
  }),
  tool({
    name: "list_templates",
    title: "List templates",
    description: "Rating templates: the system ones and the team's (GET /templates). Scope templates:read.",
    input: TemplateListQuery,
    readOnly: true,
    call: (c, input) => c.templates.list(input),
  }),
  tool({
    name: "list_autousers",
    title: "List autousers",
    description:
      "Persona raters the team may use: the system personas and the team's own (GET /autousers). Scope autousers:read.",
    input: AutouserListQuery,
    readOnly: true,
    call: (c, input) => c.autousers.list(input),
  }),
  tool({
    name: "start_autousers",
    title: "Start autousers",
    description:
      "Queues runs of the chosen autousers over the evaluation's comparisons; a Draft evaluation moves to Running " +
      "(POST /evaluations/{id}/run-autousers). Scope autousers:write.",
    input: RunAutousersInput,
    readOnly: false,
    call: (c, input) => c.autouserRuns.run(input),
  }),
  tool({
    name: "autouser_status",
    title: "Autouser run status",
    description:
      "Runs per status, ratings made and time left (GET /evaluations/{id}/autouser-status). Scope autousers:read.",
    input: ById,
    readOnly: true,
    call: (c, input) => c.autouserRuns.status(input),
  }),
  tool({
    name: "stop_autousers",
    title: "Stop autousers",
    description:
      "Cancels queued and running runs, all of them or those named (POST /evaluations/{id}/stop-autousers). " +
      "Scope autousers:write.",
    input: StopAutousersInput,
    readOnly: false,
    call: (c, input) => c.autouserRuns.stop(input),
  }),
  tool({
    name: "edit_draft_evaluation",
    title: "Edit a draft evaluation",
    description:
      "Changes a Draft evaluation's fields and sets its comparisons to the list given, in rater order, all at once " +
      "(PATCH /evaluations/{id}/draft): items with an `id` are kept, items without are added, the rest removed. " +
      "Scope evaluations:write.",
    input: EvaluationDraftInput.extend({ id: IdParam }),
    readOnly: false,
    call: (c, input) => c.evaluations.editDraft(input),
  }),
  tool({
    name: "draft_autouser_from_prompt",
    title: "Draft an autouser from a description",
    description:
      "Drafts a persona from a one-paragraph description with the team's model, or the rule-based drafter " +
      "(POST /autousers/draft-from-prompt). Answers the draft, a valid POST /autousers body; nothing is saved. " +
      "Scope autousers:write.",
    input: DraftFromPromptInput,
    readOnly: true,
    call: async (c, input) => lastOf(await c.autousers.draftFromPrompt(input)),
  }),
  tool({
    name: "draft_template_from_prompt",
    title: "Draft a template from a description",
    description:
      "Drafts a rating template from a one-paragraph description with the team's model, or the rule-based " +
      "drafter (POST /templates/draft-from-prompt). Answers the draft, a valid POST /templates body; nothing is " +
      "saved. Scope templates:write.",
    input: DraftFromPromptInput,
    readOnly: true,
    call: async (c, input) => lastOf(await c.templateDrafts.draftFromPrompt(input)),
  }),
  tool({
    name: "optimize_autouser_weights",
    title: "Optimise an autouser's rubric weights",
    description:
      "Fits the template weights of the autouser's calibrated rubric to the humans of its latest completed " +
      "calibration on 70% of the comparisons and answers alpha before and after on the other 30%; the proposal " +
      "is saved as the next unfrozen rubric version, never frozen (POST /autousers/{id}/calibration/optimize). " +
      "Scope autousers:write.",
    input: z.object({ id: IdParam.meta({ description: "The autouser's id, `auto_...`." }) }),
    readOnly: false,
    call: (c, input) => c.autouserRuns.optimize(input),
  }),
];

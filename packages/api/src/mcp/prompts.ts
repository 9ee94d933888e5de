import { z } from "zod";

/**
 * One MCP prompt: a common flow written out as the first user message, naming the tools to call in order, so a
 * client's model does the flow the way the dashboard does it. Arguments are strings, as MCP prompts take them.
 */
export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  args: Record<string, z.ZodType<string> | z.ZodOptional<z.ZodType<string>>>;
  text(args: Record<string, string | undefined>): string;
}

const evaluationId = z.string().min(1).max(100).describe("The evaluation's id, `eval_...`.");

export const MCP_PROMPTS: McpPrompt[] = [
  {
    name: "set_up_evaluation",
    title: "Set up an evaluation",
    description:
      "Creates an SSE evaluation of one or more designs, picks templates and raters, and opens rating.",
    args: {
      goal: z.string().min(1).max(2000).describe("What the evaluation should find out."),
      urls: z.string().max(4000).optional().describe("Design URLs, one per line."),
    },
    text: ({ goal, urls }) =>
      [
        `Set up a Rubricon evaluation. Goal: ${goal}`,
        urls ? `Designs:\n${urls}` : "Ask me for the design URLs if you need them.",
        "1. Call list_templates and pick the templates whose dimensions fit the goal (`overall` if none does).",
        "2. Call create_evaluation with `dryRun: true` to check the input and the price, then without it.",
        "3. Call list_autousers and suggest personas that match the goal; start them with start_autousers if I agree.",
        '4. Call update_evaluation with `status: "Running"` to open rating, and give me the share link from `links.share`.',
      ].join("\n"),
  },
  {
    name: "compare_designs",
    title: "Compare two designs",
    description: "Creates a side-by-side (SxS) evaluation of a current design against a variant.",
    args: {
      currentUrl: z.string().min(1).max(2048).describe("The current design's URL."),
      variantUrl: z.string().min(1).max(2048).describe("The variant's URL."),
    },
    text: ({ currentUrl, variantUrl }) =>
      [
        `Compare ${currentUrl} (current) with ${variantUrl} (variant) in Rubricon.`,
        'Call create_evaluation with `type: "SxS"` and `comparisonPairs: [{ currentUrl, variantUrl }]`, then ' +
          "list_comparisons to confirm the pair, and start autousers with start_autousers so results come in " +
          "without waiting for people.",
      ].join("\n"),
  },
  {
    name: "run_autousers",
    title: "Run autousers",
    description: "Starts persona raters on an evaluation and follows them to the end.",
    args: { evaluationId },
    text: ({ evaluationId }) =>
      [
        `Run autousers on evaluation ${evaluationId}.`,
        "Call list_autousers, choose personas that suit the evaluation (get_evaluation shows its scenario), and " +
          "call start_autousers. Then call autouser_status until no run is queued or running, and report how many " +
          "ratings were made; get_autouser_run explains any failed run.",
      ].join("\n"),
  },
  {
    name: "read_results",
    title: "Read results",
    description: "Summarises an evaluation's results, how far raters agree, and what to change.",
    args: { evaluationId },
    text: ({ evaluationId }) =>
      [
        `Summarise the results of evaluation ${evaluationId}.`,
        "Call get_evaluation, get_results and get_agreement (humans and autousers apart), and get_ai_insights if " +
          "there are enough ratings. Report the overall and per-dimension scores, say how far the raters agree " +
          "(Krippendorff's alpha with its interval; below 0.667 is weak), and quote the comments from list_ratings " +
          "that explain the lowest scores.",
      ].join("\n"),
  },
  {
    name: "watch_events",
    title: "Follow events with a webhook",
    description: "Subscribes a URL to the team's events and checks a test delivery arrives.",
    args: { url: z.string().min(1).max(2048).describe("The https URL to receive events.") },
    text: ({ url }) =>
      [
        `Send this team's Rubricon events to ${url}.`,
        'Call create_webhook with `enabled_events: ["*"]` and give me the secret at once (it is not shown again). ' +
          'Then call send_test_webhook with `type: "evaluation.created"` and list_webhook_deliveries to see ' +
          "whether it was delivered; list_events shows what the team has emitted so far.",
      ].join("\n"),
  },
];

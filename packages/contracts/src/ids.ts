/** Every id the API hands out starts with a typed prefix; the body is opaque. */
export const ID_PREFIXES = {
  user: "usr",
  session: "ses",
  team: "team",
  apiKey: "key",
  evaluation: "eval",
  comparison: "cmp",
  rating: "rat",
  autouserRun: "arun",
  autouser: "auto",
  rubric: "rub",
  share: "shr",
  template: "tpl",
  templateVersion: "tplv",
  webhookEndpoint: "whe",
  webhookDelivery: "whd",
  event: "event",
  publicRater: "prt",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

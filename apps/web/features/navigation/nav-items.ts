/** The product: what a team makes and runs. These sit in the top bar. */
export const PRODUCT_NAV = [
  { href: "/evaluations", label: "Evaluations" },
  { href: "/autousers", label: "Autousers" },
  { href: "/templates", label: "Templates" },
  { href: "/builder", label: "Builder" },
] as const;

export interface SettingsItem {
  href: string;
  label: string;
  description: string;
  /** Set for sections behind a deployment flag: the item says which setting turns it on while it is off. */
  feature?: "webhooks";
}

/** Everything about the account, the team and integrations: one Settings area with its own side menu. */
export const SETTINGS_NAV: readonly SettingsItem[] = [
  { href: "/members", label: "Members", description: "Who is on your teams, invitations and roles." },
  {
    href: "/access-requests",
    label: "Access requests",
    description: "People asking to rate or see your evaluations.",
  },
  { href: "/api-keys", label: "API keys", description: "Keys for the REST API and the SDK." },
  {
    href: "/settings/model-keys",
    label: "Model keys",
    description: "Your own model provider keys for autousers and the builder.",
  },
  {
    href: "/connected-apps",
    label: "Connected apps",
    description: "Apps you allowed to act for you through OAuth.",
  },
  { href: "/plan", label: "Plan & usage", description: "Your team's plan and this month's usage." },
  {
    href: "/webhooks",
    label: "Webhooks",
    description: "Endpoints Rubricon POSTs events to.",
    feature: "webhooks",
  },
  {
    href: "/events",
    label: "Events",
    description: "The log of everything that happened.",
    feature: "webhooks",
  },
];

/** The deployment setting that turns webhooks and the event log on (read by the API's config). */
export const WEBHOOKS_SETTING = "WEBHOOKS_ENABLED=true";

function matches(pathname: string, href: string): boolean {
  return pathname === href || pathname.startsWith(`${href}/`);
}

export function isSettingsPath(pathname: string): boolean {
  return pathname === "/settings" || SETTINGS_NAV.some((item) => matches(pathname, item.href));
}

export function isCurrent(pathname: string, href: string): boolean {
  if (href === "/settings") return isSettingsPath(pathname);
  return matches(pathname, href);
}

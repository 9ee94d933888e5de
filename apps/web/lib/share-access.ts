import type { SHARE_ACCESS } from "@rubricon/contracts";

export const SHARE_ACCESS_LABELS: Record<(typeof SHARE_ACCESS)[number], string> = {
  TEAM_ONLY: "Team only",
  AUTOUSERS_LINK: "Autousers with the link",
  ANYONE_WITH_LINK: "Anyone with the link",
  PASSWORD_PROTECTED: "Anyone with the link and password",
};

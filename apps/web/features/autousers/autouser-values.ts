import {
  type ACCESSIBILITY_NEED_VALUES,
  type Autouser,
  type AutouserPromptDraft,
  DEFAULT_VIEWPORTS,
  type DEVICE_KINDS,
  type EXPERTISE_LEVELS,
  type NETWORK_PROFILES,
} from "@rubricon/contracts";

export type AccessibilityNeed = (typeof ACCESSIBILITY_NEED_VALUES)[number];
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/** The persona as the form holds it: lists as one item per line, the viewport as typed. */
export interface Values {
  name: string;
  role: string;
  description: string;
  goals: string;
  traits: string;
  expertise: (typeof EXPERTISE_LEVELS)[number];
  accessibilityNeeds: AccessibilityNeed[];
  kind: DeviceKind;
  width: string;
  height: string;
  network: (typeof NETWORK_PROFILES)[number];
  systemPrompt: string;
  status: Autouser["status"];
  visibility: Autouser["visibility"];
}

export const EMPTY: Values = {
  name: "",
  role: "",
  description: "",
  goals: "",
  traits: "",
  expertise: "intermediate",
  accessibilityNeeds: [],
  kind: "desktop",
  width: String(DEFAULT_VIEWPORTS.desktop.width),
  height: String(DEFAULT_VIEWPORTS.desktop.height),
  network: "fast",
  systemPrompt: "",
  status: "draft",
  visibility: "private",
};

export function valuesOf(a: Autouser): Values {
  return {
    name: a.name,
    role: a.role,
    description: a.description,
    goals: a.goals.join("\n"),
    traits: a.traits.join("\n"),
    expertise: a.expertise,
    accessibilityNeeds: a.accessibilityNeeds,
    kind: a.device.kind,
    width: String(a.device.viewport.width),
    height: String(a.device.viewport.height),
    network: a.device.network,
    systemPrompt: a.systemPrompt ?? "",
    status: a.status,
    visibility: a.visibility,
  };
}

/** A drafted create body (from "Draft from a description") as form values, the rest left at their defaults. */
export function valuesOfDraft(d: AutouserPromptDraft["draft"]): Values {
  const kind = d.device?.kind ?? "desktop";
  const viewport = d.device?.viewport ?? DEFAULT_VIEWPORTS[kind];
  return {
    ...EMPTY,
    name: d.name,
    role: d.role,
    description: d.description ?? "",
    goals: (d.goals ?? []).join("\n"),
    traits: (d.traits ?? []).join("\n"),
    expertise: d.expertise ?? "intermediate",
    accessibilityNeeds: d.accessibilityNeeds ?? [],
    kind,
    width: String(viewport.width),
    height: String(viewport.height),
    network: d.device?.network ?? "fast",
  };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

export function bodyOf(v: Values) {
  return {
    name: v.name.trim(),
    role: v.role.trim(),
    description: v.description,
    goals: lines(v.goals),
    traits: lines(v.traits),
    expertise: v.expertise,
    accessibilityNeeds: v.accessibilityNeeds,
    device: {
      kind: v.kind,
      viewport: { width: Number(v.width), height: Number(v.height) },
      network: v.network,
    },
    systemPrompt: v.systemPrompt.trim() === "" ? null : v.systemPrompt,
    status: v.status,
    visibility: v.visibility,
  };
}

/** Which input shows a server or schema error: `device.viewport.width` under Width, `goals[3]` under Goals. */
export function fieldOf(param: string | undefined): string {
  if (!param) return "form";
  if (param.startsWith("device.viewport.width")) return "width";
  if (param.startsWith("device.viewport.height")) return "height";
  const top = param.split(/[.[]/)[0]!;
  return top in EMPTY ? top : "form";
}

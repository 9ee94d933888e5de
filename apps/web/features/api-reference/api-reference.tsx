"use client";

import "@scalar/api-reference-react/style.css";
import type { AnyApiReferenceConfiguration } from "@scalar/api-reference-react";
import dynamic from "next/dynamic";
import { useEffect, useState } from "react";
import { FormError, Loading } from "@/ui";

// The renderer touches `window` as it loads, so it runs in the browser only.
const ApiReferenceReact = dynamic(
  () => import("@scalar/api-reference-react").then((m) => m.ApiReferenceReact),
  { ssr: false, loading: () => <Loading page>Loading the API reference…</Loading> },
);

/** Every built-in client but curl: the SDK sample stands for JavaScript and TypeScript. */
const HIDDEN_CLIENTS = {
  c: true,
  clojure: true,
  csharp: true,
  dart: true,
  fsharp: true,
  go: true,
  http: true,
  java: true,
  js: true,
  julia: true,
  kotlin: true,
  node: true,
  objc: true,
  ocaml: true,
  php: true,
  powershell: true,
  python: true,
  r: true,
  ruby: true,
  rust: true,
  swift: true,
  shell: ["httpie", "wget"],
} as const;

/**
 * The renderer's default light theme draws secondary text, links and method badges at 2.9 to 4.2:1 on its
 * backgrounds; WCAG AA asks 4.5:1. These are the dashboard's own colours, which meet it; icon buttons, the
 * sidebar's group toggles and the auth-type picker get the 24 px target WCAG 2.2 asks for. The selectors follow
 * the renderer's markup at the pinned version; the accessibility test in e2e/first-use.spec.ts checks them.
 */
const ACCESSIBLE_CSS = `
.light-mode {
  --scalar-color-2: #4f5866;
  --scalar-color-3: #5f6876;
  --scalar-color-accent: #2f4ad6;
  --scalar-color-green: #1e7a46;
  --scalar-color-blue: #2f4ad6;
  --scalar-color-orange: #8a5a00;
  --scalar-color-yellow: #8a5a00;
  --scalar-color-red: #c0352b;
  --scalar-color-purple: #6b3fb8;
  --scalar-link-color: #2f4ad6;
  --scalar-link-color-hover: #263db5;
}
.scalar-app button:has(> svg:only-child),
.scalar-app [data-sidebar-id] > div > button[aria-expanded],
.scalar-app [id^="headlessui-popover-button"] {
  min-width: 24px;
  min-height: 24px;
}
/* "Authentication Required" keeps its width; the auth-type picker wraps below it instead of covering it. */
.scalar-app div:has(> [id^="headlessui-disclosure-button"]):has([id^="headlessui-popover-button"]) {
  flex-wrap: wrap;
}
.scalar-app div:has(> [id^="headlessui-disclosure-button"]) > div:has([id^="headlessui-popover-button"]) {
  padding-left: 8px;
}
.scalar-app [id^="headlessui-disclosure-button"]:has([data-testid="auth-indicator"]) {
  flex: 1 0 auto;
}
`;

/** The renderer's copy buttons are icons without a name; screen readers announce them as "button" alone. */
function useNamedCopyButtons(enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const name = () => {
      for (const button of document.querySelectorAll("button.scalar-code-copy:not([aria-label])"))
        button.setAttribute("aria-label", "Copy code");
    };
    name();
    const observer = new MutationObserver(name);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [enabled]);
}

/**
 * The reference, rendered in the browser from the live `/api/v1/openapi.json`, whose operations carry SDK and CLI
 * samples. Everything it loads comes from this server: no fonts, telemetry, proxy or assistant from elsewhere.
 */
export function ApiReference() {
  const [content, setContent] = useState<Record<string, unknown>>();
  const [failed, setFailed] = useState<string>();

  useEffect(() => {
    let live = true;
    fetch("/api/v1/openapi.json", { headers: { Accept: "application/json" } })
      .then(async (res) => {
        if (!res.ok) throw new Error(`The API document answered HTTP ${res.status}.`);
        // The document carries the SDK and CLI samples (`x-codeSamples`); the renderer adds curl.
        if (live) setContent((await res.json()) as Record<string, unknown>);
      })
      .catch((err: Error) => live && setFailed(err.message));
    return () => {
      live = false;
    };
  }, []);
  useNamedCopyButtons(content !== undefined);

  if (failed) return <FormError error={failed} />;
  if (!content) return <Loading page>Loading the API reference…</Loading>;
  const configuration = {
    content,
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    showDeveloperTools: "never",
    agent: { disabled: true },
    mcp: { disabled: true },
    documentDownloadType: "json",
    hiddenClients: HIDDEN_CLIENTS,
    defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
    metaData: { title: "API reference · Rubricon" },
    // The dashboard is light only; so is its reference, in colours that meet WCAG AA.
    forceDarkModeState: "light",
    hideDarkModeToggle: true,
    customCss: ACCESSIBLE_CSS,
  } as unknown as AnyApiReferenceConfiguration;
  return <ApiReferenceReact configuration={configuration} />;
}

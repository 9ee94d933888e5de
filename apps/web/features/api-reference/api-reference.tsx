"use client";

import "@scalar/api-reference-react/style.css";
import type { AnyApiReferenceConfiguration } from "@scalar/api-reference-react";
import dynamic from "next/dynamic";
import { useEffect, useState } from "react";
import { FormError, Loading } from "@/ui";
import { type OpenApiDocument, withSdkSamples } from "./code-samples";

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
 * The reference, rendered in the browser from the live `/api/v1/openapi.json` with an SDK sample added to each
 * operation. Everything it loads comes from this server: no fonts, telemetry, proxy or assistant from elsewhere.
 */
export function ApiReference() {
  const [content, setContent] = useState<OpenApiDocument>();
  const [failed, setFailed] = useState<string>();

  useEffect(() => {
    let live = true;
    fetch("/api/v1/openapi.json", { headers: { Accept: "application/json" } })
      .then(async (res) => {
        if (!res.ok) throw new Error(`The API document answered HTTP ${res.status}.`);
        const doc = (await res.json()) as OpenApiDocument;
        if (live) setContent(withSdkSamples(doc, `${window.location.origin}/api/v1`));
      })
      .catch((err: Error) => live && setFailed(err.message));
    return () => {
      live = false;
    };
  }, []);

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
  } as unknown as AnyApiReferenceConfiguration;
  return <ApiReferenceReact configuration={configuration} />;
}

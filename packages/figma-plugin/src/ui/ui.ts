import { progressWords, scoreWords } from "@rubricon/client-kit/words";
import type { PluginEvent, UiRequest } from "../messages";

type Kind = "SSE" | "SxS";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const send = (request: UiRequest) => parent.postMessage({ pluginMessage: request }, "*");

let kind: Kind = "SSE";
let frameCount = 0;
let verificationUrl = "";
let resultsUrl = "";

function show(section: "signed-out" | "pairing" | "signed-in") {
  for (const id of ["signed-out", "pairing", "signed-in"]) $(id).hidden = id !== section;
}

function setError(message: string | null) {
  $("error").hidden = !message;
  $("error").textContent = message ?? "";
}

function canEvaluate() {
  const ok =
    $<HTMLSelectElement>("template").value !== "" && (kind === "SSE" ? frameCount > 0 : frameCount === 2);
  $<HTMLButtonElement>("evaluate").disabled = !ok || !$("busy").hidden;
}

function setKind(next: Kind) {
  kind = next;
  $("kind-sse").setAttribute("aria-pressed", String(kind === "SSE"));
  $("kind-sxs").setAttribute("aria-pressed", String(kind === "SxS"));
  send({ type: "load-options", kind });
  canEvaluate();
}

function option(id: string, name: string) {
  const o = document.createElement("option");
  o.value = id;
  o.textContent = name;
  return o;
}

function onEvent(event: PluginEvent) {
  switch (event.type) {
    case "signed-out":
      for (const el of document.querySelectorAll("[data-server]")) el.textContent = event.server;
      $("signed-out-reason").hidden = !event.reason;
      $("signed-out-reason").textContent = event.reason ?? "";
      show("signed-out");
      return;
    case "pairing":
      setError(null);
      $("code").textContent = event.code;
      verificationUrl = event.verificationUrl;
      show("pairing");
      return;
    case "signed-in":
      setError(null);
      $("who").textContent = event.user.email;
      $("team").textContent = `Team ${event.user.teamName} · ${event.server}`;
      show("signed-in");
      send({ type: "load-options", kind });
      return;
    case "selection": {
      frameCount = event.frames.length;
      const names = event.frames.map((f) => f.name).join(", ");
      $("selection").textContent =
        frameCount === 0
          ? "Select one or more frames."
          : `${frameCount} frame${frameCount === 1 ? "" : "s"} selected: ${names}`;
      $<HTMLInputElement>("name").placeholder = names || "Named after the frames";
      canEvaluate();
      return;
    }
    case "options": {
      if (event.kind !== kind) return;
      const select = $<HTMLSelectElement>("template");
      const keep = select.value;
      select.replaceChildren(...event.templates.map((t) => option(t.id, t.name)));
      if (event.templates.some((t) => t.id === keep)) select.value = keep;
      const box = $("autousers");
      const checked = new Set(
        [...box.querySelectorAll("input:checked")].map((i) => (i as HTMLInputElement).value),
      );
      box.replaceChildren(
        ...event.autousers.map((a) => {
          const label = document.createElement("label");
          const input = document.createElement("input");
          input.type = "checkbox";
          input.value = a.id;
          input.checked = checked.has(a.id);
          label.append(input, a.name);
          return label;
        }),
      );
      canEvaluate();
      return;
    }
    case "busy":
      setError(null);
      $("busy").hidden = false;
      $("busy").textContent = event.message;
      canEvaluate();
      return;
    case "created":
      $("busy").hidden = true;
      resultsUrl = event.evaluation.resultsUrl;
      $("result").hidden = false;
      $("result-name").textContent = event.evaluation.name;
      $("result-status").textContent =
        `${event.evaluation.status} · ${event.evaluation.comparisonIds.length} comparison(s)` +
        (event.evaluation.runIds.length ? ` · ${event.evaluation.runIds.length} autouser run(s) queued` : "");
      $("progress").hidden = event.evaluation.runIds.length === 0;
      canEvaluate();
      return;
    case "progress": {
      const p = event.progress;
      $("progress").hidden = false;
      $("bar").style.width = `${Math.round(p.progress * 100)}%`;
      $("progress-text").textContent = progressWords(p);
      $("scores").replaceChildren(
        ...p.scores.map((s) => {
          const tr = document.createElement("tr");
          const name = document.createElement("td");
          name.textContent = s.name;
          const value = document.createElement("td");
          value.className = "num";
          value.textContent = scoreWords(s);
          tr.append(name, value);
          return tr;
        }),
      );
      return;
    }
    case "error":
      $("busy").hidden = true;
      setError(event.message);
      canEvaluate();
      return;
  }
}

window.onmessage = (e: MessageEvent) => {
  const message = (e.data as { pluginMessage?: PluginEvent } | undefined)?.pluginMessage;
  if (message) onEvent(message);
};

$("pair").onclick = () => send({ type: "pair" });
$("cancel-pair").onclick = () => send({ type: "cancel-pair" });
$("open-approval").onclick = () => send({ type: "open", url: verificationUrl });
$("sign-out").onclick = () => send({ type: "sign-out" });
$("kind-sse").onclick = () => setKind("SSE");
$("kind-sxs").onclick = () => setKind("SxS");
$("template").onchange = canEvaluate;
$("open-results").onclick = () => send({ type: "open", url: resultsUrl });
$("evaluate").onclick = () => {
  setError(null);
  send({
    type: "evaluate",
    kind,
    name: $<HTMLInputElement>("name").value,
    templateId: $<HTMLSelectElement>("template").value,
    autouserIds: [...$("autousers").querySelectorAll("input:checked")].map(
      (i) => (i as HTMLInputElement).value,
    ),
    status: $<HTMLSelectElement>("status").value as "Draft" | "Running",
  });
};
send({ type: "ready" });

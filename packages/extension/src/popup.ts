import {
  addComparison,
  type Connection,
  connect,
  createEvaluation,
  explain,
  listAutousers,
  listDrafts,
  listTemplates,
  type Pairing,
  pollPairing,
  progressOf,
  progressWords,
  type Stimulus,
  scoreWords,
  startAutousers,
  startPairing,
  uploadImage,
  whoAmI,
} from "@rubricon/client-kit";
import { forget, load, type Stored, save, serverOf } from "./settings";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

let stored: Stored = {};
let server = "";
let teamId = "";
let polling: ReturnType<typeof setTimeout> | undefined;

const conn = (): Connection => ({ baseUrl: server, token: stored.token });

function show(view: "signed-out" | "pairing" | "signed-in") {
  for (const id of ["signed-out", "pairing", "signed-in"]) $(id).hidden = id !== view;
}

function setError(message: string | null) {
  $("error").hidden = !message;
  $("error").textContent = message ?? "";
}

function setBusy(message: string | null) {
  $("busy").hidden = !message;
  $("busy").textContent = message ?? "";
  for (const id of ["add-page", "add-screenshot", "start-autousers"])
    $<HTMLButtonElement>(id).disabled = !!message;
}

async function fail(err: unknown) {
  setBusy(null);
  const { message, pairAgain } = explain(err);
  setError(message);
  if (pairAgain) {
    await forget(["token", "tokenExpiresAt", "pairing"]);
    stored = await load();
    show("signed-out");
  }
}

function option(value: string, label: string) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

/** The tab the user is looking at: the active tab of the last focused browser window, never our own pages. */
async function targetTab(): Promise<chrome.tabs.Tab> {
  const own = chrome.runtime.getURL("");
  const tabs = [
    ...(await chrome.tabs.query({ active: true, lastFocusedWindow: true, windowType: "normal" })),
    ...(await chrome.tabs.query({ active: true, windowType: "normal" })),
  ];
  const tab = tabs.find((t) => t.url && !t.url.startsWith(own));
  if (!tab?.url || !/^https?:/.test(tab.url))
    throw new Error("Open a web page (http or https) in a tab first.");
  return tab;
}

async function start() {
  stored = await load();
  server = await serverOf(stored);
  for (const el of document.querySelectorAll("[data-server]")) el.textContent = server;
  if (stored.pairing) return resumePairing(stored.pairing);
  if (stored.token && (!stored.tokenExpiresAt || new Date(stored.tokenExpiresAt) > new Date())) {
    return signedIn();
  }
  if (stored.token) {
    await forget(["token", "tokenExpiresAt"]);
    setError("Your sign-in expired after 7 days. Sign in again.");
  }
  show("signed-out");
}

async function beginPairing() {
  setError(null);
  const pairing = await startPairing(conn());
  await save({ pairing });
  await resumePairing(pairing);
}

async function resumePairing(pairing: Pairing) {
  $("code").textContent = pairing.code;
  show("pairing");
  const poll = async () => {
    try {
      const approved = await pollPairing(conn(), pairing);
      if (!approved) {
        polling = setTimeout(poll, pairing.interval * 1000);
        return;
      }
      await save({ token: approved.token, tokenExpiresAt: approved.expiresAt });
      await forget(["pairing"]);
      stored = await load();
      await signedIn();
    } catch (err) {
      await forget(["pairing"]);
      await fail(err);
      show("signed-out");
    }
  };
  polling = setTimeout(poll, pairing.interval * 1000);
  $("open-approval").onclick = () => void chrome.tabs.create({ url: pairing.verificationUrl });
}

async function signedIn() {
  const user = await whoAmI(conn());
  teamId = user.teamId;
  $("who").textContent = user.email;
  $("team").textContent = `Team ${user.teamName}`;
  const [templates, autousers] = await Promise.all([
    listTemplates(conn(), "SSE", teamId),
    listAutousers(conn()),
  ]);
  $<HTMLSelectElement>("template").replaceChildren(...templates.map((t) => option(t.id, t.name)));
  $("autousers").replaceChildren(
    ...autousers.map((a) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.value = a.id;
      label.append(input, a.name);
      return label;
    }),
  );
  await refreshDrafts();
  // Shown once its form is filled: a click before the lists arrive would add to no evaluation.
  show("signed-in");
  if (stored.evaluationId) await showEvaluation(stored.evaluationId);
}

async function refreshDrafts() {
  const drafts = (await listDrafts(conn())).filter((d) => d.type === "SSE");
  const select = $<HTMLSelectElement>("target");
  select.replaceChildren(option("new", "A new Draft evaluation"), ...drafts.map((d) => option(d.id, d.name)));
  if (stored.evaluationId && drafts.some((d) => d.id === stored.evaluationId))
    select.value = stored.evaluationId;
  onTargetChange();
}

function onTargetChange() {
  $("new-fields").hidden = $<HTMLSelectElement>("target").value !== "new";
}

async function add(stimulus: Stimulus, tabTitle: string) {
  const target = $<HTMLSelectElement>("target").value;
  let evaluationId: string;
  if (target === "new") {
    setBusy("Creating the evaluation…");
    const created = await createEvaluation(conn(), {
      teamId,
      name: $<HTMLInputElement>("name").value.trim() || tabTitle || "Evaluation from the browser",
      kind: "SSE",
      stimuli: [stimulus],
      templateId: $<HTMLSelectElement>("template").value,
      status: "Draft",
    });
    evaluationId = created.id;
  } else {
    setBusy("Adding to the evaluation…");
    await addComparison(conn(), target, stimulus);
    evaluationId = target;
  }
  await save({ evaluationId });
  stored = await load();
  await refreshDrafts();
  await showEvaluation(evaluationId);
  setBusy(null);
  $("added").textContent = "fileId" in stimulus ? "Screenshot added." : "Page added.";
}

async function addPage() {
  setError(null);
  const tab = await targetTab();
  await add({ url: tab.url!, label: tab.title?.slice(0, 200) || tab.url! }, tab.title ?? "");
}

async function addScreenshot() {
  setError(null);
  const tab = await targetTab();
  setBusy("Capturing the visible part of the tab…");
  const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, { format: "png" });
  const bytes = Uint8Array.from(atob(dataUrl.slice(dataUrl.indexOf(",") + 1)), (c) => c.charCodeAt(0));
  setBusy("Uploading the screenshot…");
  const host = new URL(tab.url!).hostname;
  const fileId = await uploadImage(conn(), {
    bytes,
    filename: `${host || "screenshot"}.png`,
    contentType: "image/png",
    teamId,
  });
  await add({ fileId, label: `Screenshot: ${tab.title || host}`.slice(0, 200) }, tab.title ?? "");
}

async function showEvaluation(id: string) {
  const api = connect(conn());
  const [evaluation, comparisons] = await Promise.all([
    api.evaluations.retrieve(id),
    api.evaluations.comparisons.list(id, { limit: 100 }),
  ]);
  $("evaluation").hidden = false;
  $("evaluation-name").textContent = evaluation.name;
  $("evaluation-status").textContent = `${evaluation.status} · ${comparisons.data.length} comparison(s)`;
  $("open-evaluation").onclick = () => void chrome.tabs.create({ url: evaluation.links.edit });
  $("run").hidden = evaluation.status !== "Draft" && evaluation.status !== "Running";
  const status = await api.evaluations.autouserStatus(id);
  if (status.summary.total > 0) await followProgress(id);
}

async function runAutousers() {
  setError(null);
  const id = stored.evaluationId;
  const ids = [...$("autousers").querySelectorAll("input:checked")].map((i) => (i as HTMLInputElement).value);
  if (!id) throw new Error("Add a page or a screenshot first.");
  if (ids.length === 0) throw new Error("Choose at least one autouser.");
  setBusy("Starting the autousers…");
  await startAutousers(conn(), id, ids);
  setBusy(null);
  // Started, it is no longer a Draft to add to: the next addition makes a new one.
  await refreshDrafts();
  await showEvaluation(id);
}

async function followProgress(id: string) {
  clearTimeout(polling);
  const p = await progressOf(conn(), id);
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
  if (!p.done) polling = setTimeout(() => void followProgress(id).catch(fail), 2000);
}

const guarded = (fn: () => Promise<void>) => () => void fn().catch(fail);
$("sign-in").onclick = guarded(beginPairing);
$("cancel-pair").onclick = guarded(async () => {
  clearTimeout(polling);
  await forget(["pairing"]);
  show("signed-out");
});
$("sign-out").onclick = guarded(async () => {
  clearTimeout(polling);
  await forget(["token", "tokenExpiresAt", "pairing", "evaluationId"]);
  stored = await load();
  $("evaluation").hidden = true;
  show("signed-out");
});
$("options").onclick = () => void chrome.runtime.openOptionsPage();
$("target").onchange = onTargetChange;
$("add-page").onclick = guarded(addPage);
$("add-screenshot").onclick = guarded(addScreenshot);
$("start-autousers").onclick = guarded(runAutousers);
void start().catch(fail);

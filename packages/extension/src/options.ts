import { normalizeServer } from "@rubricon/client-kit";
import { forget, originPattern, save, serverOf } from "./settings";

const input = document.getElementById("server") as HTMLInputElement;
const status = document.getElementById("status") as HTMLElement;

void serverOf().then((server) => {
  input.value = server;
});

document.getElementById("form")!.addEventListener("submit", async (event) => {
  event.preventDefault();
  let server: string;
  try {
    server = normalizeServer(input.value);
  } catch {
    status.textContent = "Enter the server's full address, as your browser's address bar shows it.";
    return;
  }
  // The extension talks to no server the user has not allowed: Chromium asks once per server.
  const granted = await chrome.permissions.request({ origins: [originPattern(server)] });
  if (!granted) {
    status.textContent = `Not saved: Rubricon needs permission to reach ${server}.`;
    return;
  }
  const previous = await serverOf();
  await save({ server });
  // A token belongs to the server that issued it.
  if (previous !== server) await forget(["token", "tokenExpiresAt", "pairing", "evaluationId"]);
  input.value = server;
  status.textContent = `Saved. Rubricon sends pages and screenshots only to ${server}.`;
});

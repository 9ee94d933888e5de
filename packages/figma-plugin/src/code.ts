/// <reference types="@figma/plugin-typings" />
import { PluginController } from "./controller";
import type { FigmaHost } from "./host";
import type { UiRequest } from "./messages";
import { adaptFetch, installSandboxGlobals, type SandboxFetch } from "./sandbox";

declare const __RUBRICON_SERVER__: string;

installSandboxGlobals();
figma.showUI(__html__, { width: 360, height: 560, themeColors: true });

const controller = new PluginController(figma as unknown as FigmaHost, {
  server: __RUBRICON_SERVER__,
  fetch: adaptFetch(fetch as unknown as SandboxFetch),
});
figma.ui.onmessage = (message: UiRequest) => void controller.handle(message);
figma.on("selectionchange", () => controller.selectionChanged());

export { startBrowserServer, type TestBrowserServer } from "./browser-server";
export { type FixtureSite, startFixtureSite } from "./fixture-site";
export { judgeTemplate } from "./judge-template";
export * from "./provider-servers";

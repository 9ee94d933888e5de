export { startBrowserServer, type TestBrowserServer } from "./browser-server";
export { type FixtureSite, startFixtureSite } from "./fixture-site";
export * from "./provider-servers";

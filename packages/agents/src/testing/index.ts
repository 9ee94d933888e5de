export { type FixtureSite, startFixtureSite } from "./fixture-site";
export * from "./provider-servers";

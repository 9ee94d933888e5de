export * from "./client";
export { newId } from "./ids";
export * as schema from "./schema/index";
export * from "./schema/index";

export * from "./client";
export { compiledStatement, placeholders } from "./compiled";
export { newId } from "./ids";
export * as schema from "./schema/index";
export * from "./schema/index";

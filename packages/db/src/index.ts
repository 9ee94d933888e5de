export { DatabaseUnavailableError, databaseUnavailableReason } from "./availability";
export * from "./client";
export { newId } from "./ids";
export * as schema from "./schema/index";
export * from "./schema/index";
export { type HotStatement, hotStatement, type Params, type Preparable, rowParams } from "./statement";
export { commitWithLast, type EndingWith, violatedUniqueIndex } from "./transaction";

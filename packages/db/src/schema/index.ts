export * from "./api-keys";
export * from "./evaluations";
export * from "./events";
export * from "./idempotency";
export * from "./teams";
export * from "./templates";
export * from "./tombstones";
export * from "./users";

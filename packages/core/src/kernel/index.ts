export * from "./bounded-map";
export * from "./clock";
export * from "./context";
export * from "./crypto";
export * from "./errors";
export * from "./limit-policy";
export * from "./paginate";
export * from "./url-guard";

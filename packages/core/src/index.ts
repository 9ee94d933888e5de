export * from "./automation";
export * from "./catalog";
export * from "./evaluation";
export * from "./identity";
export * from "./kernel";
export * from "./platform";

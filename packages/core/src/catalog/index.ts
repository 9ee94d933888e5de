export * from "./autousers/access";
export * from "./autousers/autousers";
export * from "./autousers/rubrics";
export * from "./autousers/serialize";
export * from "./autousers/usable";
export * from "./link-preview/link-preview";
export * from "./templates/serialize";
export * from "./templates/templates";

export * from "./descriptive";
export * from "./krippendorff";

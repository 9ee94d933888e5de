export { EvaluationRate } from "./evaluation-rate";
export { ShareNotFoundCard, ShareRater } from "./share-rater";

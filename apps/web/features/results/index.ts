export { EvaluationResultsView } from "./evaluation-results";

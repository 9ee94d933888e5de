export { EvaluationCreateForm } from "./evaluation-create-form";
export { EvaluationDetail } from "./evaluation-detail";
export { EvaluationList } from "./evaluation-list";

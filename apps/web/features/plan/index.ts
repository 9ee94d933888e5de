export { PlanPanel } from "./plan-panel";

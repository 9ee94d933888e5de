export { AXE_IMPACT_POINTS, COMPONENTS, type Component, componentScores, evidenceFor } from "./components";
export {
  createHeuristicJudge,
  HEURISTIC_MODEL,
  quality,
  SXS_DEAD_ZONE,
  sseScore,
  sxsScore,
} from "./heuristic-judge";
export { PERSONA_MULTIPLIERS, TEMPLATE_WEIGHTS } from "./weights";

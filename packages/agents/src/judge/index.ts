export { AXE_IMPACT_POINTS, COMPONENTS, type Component, componentScores, evidenceFor } from "./components";
export {
  createHeuristicJudge,
  HEURISTIC_MODEL,
  HEURISTIC_MODEL_V1,
  type HeuristicModel,
  QUALITY_FLOOR,
  quality,
  SXS_DEAD_ZONE,
  sseScore,
  sseScoreV2,
  sxsScore,
} from "./heuristic-judge";
export {
  APPEAL_WEIGHTS,
  appealPosition,
  collapsedSeverity,
  componentScoresV2,
  type Gate,
  gatesFor,
  isPicture,
  LOW_VISION_FIGURE_GROUND,
  namesSeverity,
  obscuredSeverity,
  overflowSeverity,
  PICTURE_SPAN,
  qualityV2,
  type Reader,
  readerOf,
  renderingEvidence,
  styledIndex,
  visualAppeal,
} from "./v2";
export { PERSONA_MULTIPLIERS, TEMPLATE_WEIGHTS } from "./weights";

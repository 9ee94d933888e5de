export { type Connection, connect, normalizeServer } from "./client";
export { type Explained, explain } from "./errors";
export {
  addComparison,
  type Choice,
  type CreatedEvaluation,
  createEvaluation,
  type DraftSummary,
  type EvaluationKind,
  listAutousers,
  listDrafts,
  listTemplates,
  type NewEvaluation,
  type Progress,
  progressOf,
  type Stimulus,
  startAutousers,
} from "./evaluate";
export {
  type PairedToken,
  type Pairing,
  pollPairing,
  type SignedIn,
  startPairing,
  type WaitOptions,
  waitForApproval,
  whoAmI,
} from "./pairing";
export { UploadError, type UploadInput, uploadImage } from "./upload";
export { progressWords, scoreWords } from "./words";

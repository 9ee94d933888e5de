export { CalibrationView } from "./calibration-view";
export { RunDetail } from "./run-detail";

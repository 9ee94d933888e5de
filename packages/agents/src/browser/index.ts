export { DEFAULT_PAGE_TIMEOUT_MS } from "./agent-page";
export { ACCESSIBILITY_TREE_LIMIT, VISIBLE_TEXT_LIMIT } from "./capture";
export { DEFAULT_CHROMIUM_PATH, launchAgentBrowser } from "./launch";
export { fleschReadingEase } from "./readability";
export {
  colourfulness,
  decodePng,
  dominantColours,
  downsampleGrey,
  edgeMeasures,
  glyphHeight,
  type PixelContrast,
  quadtreeDensity,
  type RgbaImage,
  type ScreenshotMeasures,
  screenshotMeasures,
  surfaceMeasures,
  textContrastOnScreenshot,
  visualSignals,
} from "./visual";
export {
  closeScreenshotThreads,
  measureScreenshot,
  screenshotThreadCount,
  useScreenshotThreadSource,
} from "./visual-pool";

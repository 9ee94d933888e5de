import type { PageSignals } from "../types";

/**
 * A page that is one picture: a single image that loaded, next to no text and nothing to operate (heuristic-v7's
 * rule, shared by the capture and the judge from v15). That is how a design reaches the judge as an image: an image
 * file, which the browser shows in its own image document, or a page that is only a screenshot, as designs rated
 * by people from screenshots are served. The picture is then the design, whatever size the viewport shows it at.
 */
export function isOnePicture(
  s: Pick<PageSignals, "rendering" | "wordCount" | "interactiveElements">,
): boolean {
  const r = s.rendering;
  if (!r) return false;
  return (
    r.images.total === 1 &&
    r.images.loaded === 1 &&
    r.images.failed === 0 &&
    s.wordCount <= 3 &&
    s.interactiveElements === 0 &&
    r.controls.total === 0 &&
    (r.controls.fields ?? 0) === 0
  );
}

/**
 * The largest part of a picture that is measured, in its own pixels: a picture wider than this is scaled down to
 * it, and below this height only its top is read (its first screens), so a huge photograph costs no more than a
 * large desktop screenshot.
 */
export const PICTURE_LIMIT = { width: 1920, height: 1920 } as const;

/** The page's one picture as read at its natural size. */
export interface NaturalPicture {
  /** PNG bytes, base64, of the part measured (`width` × `height`), drawn over white. */
  png: string;
  naturalWidth: number;
  naturalHeight: number;
  width: number;
  height: number;
}

/**
 * Runs inside the page (serialised by `page.evaluate`): the page's one loaded `img` drawn into a canvas at its
 * natural size (within `limit`) over white, the ground a browser shows an image on, and encoded as PNG. Null when
 * the page holds no such image or its pixels cannot be read (a cross-origin image without CORS taints the canvas):
 * the picture is then measured as the screenshot shows it.
 */
export async function readPicture(limit: { width: number; height: number }): Promise<NaturalPicture | null> {
  const loaded = [...document.images].filter((img) => img.complete && img.naturalWidth > 0);
  const img = loaded.length === 1 ? loaded[0]! : null;
  if (!img || img.naturalHeight === 0) return null;
  try {
    await img.decode();
  } catch {
    return null;
  }
  const scale = Math.min(1, limit.width / img.naturalWidth);
  const width = Math.max(1, Math.round(img.naturalWidth * scale));
  const drawnHeight = Math.max(1, Math.round(img.naturalHeight * scale));
  const height = Math.min(drawnHeight, limit.height);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(img, 0, 0, width, drawnHeight);
  let url: string;
  try {
    url = canvas.toDataURL("image/png");
  } catch {
    return null;
  }
  const comma = url.indexOf(",");
  if (!url.startsWith("data:image/png") || comma < 0) return null;
  return {
    png: url.slice(comma + 1),
    naturalWidth: img.naturalWidth,
    naturalHeight: img.naturalHeight,
    width,
    height,
  };
}

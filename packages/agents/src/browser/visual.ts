import { inflateSync } from "node:zlib";
import type { TextSample, VisualSignals } from "../types";

/** Raw pixels, 4 bytes (RGBA) per pixel, rows top to bottom. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

/**
 * Decodes the PNGs a browser writes: 8-bit greyscale, RGB or RGBA (with or without alpha), not interlaced.
 * Small on purpose: a screenshot is all it reads, and zlib does the heavy part natively.
 */
export function decodePng(png: Uint8Array): RgbaImage {
  const buf = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (buf.length < 33 || PNG_SIGNATURE.some((b, i) => buf[i] !== b)) throw new Error("not a PNG");
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString("latin1", at + 4, at + 8);
    const body = buf.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8];
      colorType = body[9]!;
      if (depth !== 8 || body[12] !== 0 || ![0, 2, 4, 6].includes(colorType))
        throw new Error("unsupported PNG format");
    } else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
    at += 12 + length;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : colorType === 4 ? 2 : 1;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  // Unfiltered in place, a row at a time with one loop per filter type: the per-byte branch was the cost.
  const px = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const bpp = channels;
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1) + 1;
    const filter = px[row - 1];
    if (filter === 1) {
      for (let i = row + bpp; i < row + stride; i++) px[i] = (px[i]! + px[i - bpp]!) & 255;
    } else if (filter === 2 && y > 0) {
      for (let i = row; i < row + stride; i++) px[i] = (px[i]! + px[i - stride - 1]!) & 255;
    } else if (filter === 3) {
      for (let i = row; i < row + stride; i++) {
        const a = i - row >= bpp ? px[i - bpp]! : 0;
        const b = y > 0 ? px[i - stride - 1]! : 0;
        px[i] = (px[i]! + ((a + b) >> 1)) & 255;
      }
    } else if (filter === 4) {
      for (let i = row; i < row + stride; i++) {
        const first = i - row < bpp;
        const a = first ? 0 : px[i - bpp]!;
        const b = y > 0 ? px[i - stride - 1]! : 0;
        const c = first || y === 0 ? 0 : px[i - stride - 1 - bpp]!;
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - c - c);
        px[i] = (px[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
    }
    const o = y * width * 4;
    if (channels === 4) out.set(px.subarray(row, row + stride), o);
    else
      for (let x = 0; x < width; x++) {
        const s = row + x * channels;
        const d = o + x * 4;
        if (channels === 3) {
          out[d] = px[s]!;
          out[d + 1] = px[s + 1]!;
          out[d + 2] = px[s + 2]!;
          out[d + 3] = 255;
        } else {
          out[d] = out[d + 1] = out[d + 2] = px[s]!;
          out[d + 3] = channels === 2 ? px[s + 1]! : 255;
        }
      }
  }
  return { width, height, data: out };
}

/**
 * Colourfulness M of Hasler & Süsstrunk (2003), over every pixel: rg = R − G, yb = ½(R + G) − B,
 * M = √(σ²rg + σ²yb) + 0.3·√(μ²rg + μ²yb). Their anchors: 0 not colourful, 15 slightly, 33 moderately,
 * 45 averagely, 59 quite, 82 highly, 109 extremely colourful.
 */
export function colourfulness(img: RgbaImage): number {
  const n = img.width * img.height;
  if (n === 0) return 0;
  let srg = 0;
  let syb = 0;
  let srg2 = 0;
  let syb2 = 0;
  const d = img.data;
  for (let i = 0; i < n * 4; i += 4) {
    const rg = d[i]! - d[i + 1]!;
    const yb = 0.5 * (d[i]! + d[i + 1]!) - d[i + 2]!;
    srg += rg;
    syb += yb;
    srg2 += rg * rg;
    syb2 += yb * yb;
  }
  const mrg = srg / n;
  const myb = syb / n;
  const vrg = Math.max(0, srg2 / n - mrg * mrg);
  const vyb = Math.max(0, syb2 / n - myb * myb);
  return Math.sqrt(vrg + vyb) + 0.3 * Math.sqrt(mrg * mrg + myb * myb);
}

/** Luminance (0..255) averaged over `factor`×`factor` blocks: the page at roughly CSS-pixel scale or coarser. */
export function downsampleGrey(
  img: RgbaImage,
  factor: number,
): { width: number; height: number; grey: Float32Array } {
  const width = Math.floor(img.width / factor);
  const height = Math.floor(img.height / factor);
  const grey = new Float32Array(width * height);
  const d = img.data;
  const area = factor * factor;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy++) {
        let i = ((y * factor + dy) * img.width + x * factor) * 4;
        for (let dx = 0; dx < factor; dx++, i += 4)
          sum += 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
      }
      grey[y * width + x] = sum / area;
    }
  }
  return { width, height, grey };
}

/** A luminance step this large between neighbours (of 255) counts as an edge: text strokes, borders, photos. */
export const EDGE_STEP = 24;
/** Blocks of this many downsampled pixels are checked for whitespace (≈ 16 CSS px at the usual scale). */
const BLOCK = 8;

/**
 * Edge map measures over a downsampled greyscale image: edge density (the share of pixels at an edge, a
 * standard proxy for visual complexity), whitespace (the share of blocks with no edge in the background's
 * brightness), balance of the
 * edge mass between left and right and top and bottom halves, left-right mirror symmetry of the edges, figure-ground
 * contrast and grid alignment
 * (after Miniukovich & De Angeli 2015, who compute balance and symmetry from the same kind of map).
 */
export function edgeMeasures(g: { width: number; height: number; grey: Float32Array }): {
  edgeDensity: number;
  whitespace: number;
  balance: number;
  symmetry: number;
  figureGround: number;
  alignment: number;
} {
  const { width: w, height: h, grey } = g;
  if (w < 2 || h < 2)
    return { edgeDensity: 0, whitespace: 1, balance: 1, symmetry: 1, figureGround: 0, alignment: 1 };
  const edge = new Uint8Array(w * h);
  let edges = 0;
  let steps = 0;
  let left = 0;
  let right = 0;
  let top = 0;
  let bottom = 0;
  for (let y = 0; y < h - 1; y++) {
    for (let x = 0; x < w - 1; x++) {
      const i = y * w + x;
      const v = grey[i]!;
      const step = Math.max(Math.abs(grey[i + 1]! - v), Math.abs(grey[i + w]! - v));
      if (step >= EDGE_STEP) {
        edge[i] = 1;
        edges++;
        steps += step;
        if (x < w / 2) left++;
        else right++;
        if (y < h / 2) top++;
        else bottom++;
      }
    }
  }
  // Whitespace: blocks with no edge whose brightness is the page's background (the commonest block
  // brightness), so a smooth photo or gradient does not count as empty space.
  const bw = Math.ceil(w / BLOCK);
  const bh = Math.ceil(h / BLOCK);
  const busy = new Uint8Array(bw * bh);
  const sum = new Float64Array(bw * bh);
  const count = new Uint32Array(bw * bh);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const b = Math.floor(y / BLOCK) * bw + Math.floor(x / BLOCK);
      if (edge[y * w + x]) busy[b] = 1;
      sum[b] = sum[b]! + grey[y * w + x]!;
      count[b] = count[b]! + 1;
    }
  const levels = new Uint32Array(64);
  for (let b = 0; b < bw * bh; b++)
    if (!busy[b]) levels[Math.min(63, Math.floor(sum[b]! / count[b]! / 4))]!++;
  let background = 0;
  for (let l = 1; l < 64; l++) if (levels[l]! > levels[background]!) background = l;
  let emptyBlocks = 0;
  for (let b = 0; b < bw * bh; b++)
    if (!busy[b] && Math.abs(sum[b]! / count[b]! - (background * 4 + 2)) <= 8) emptyBlocks++;
  let mirrored = 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < Math.floor(w / 2); x++)
      if (edge[y * w + x] && edge[y * w + (w - 1 - x)]) mirrored += 2;
  // Grid alignment (after Miniukovich & De Angeli's grid quality: content aligned to few columns looks ordered):
  // each run of busy blocks in a row starts at a left edge; the share of those starts on the five commonest
  // columns. A page laid out on a grid scores high, blocks scattered across the screen low.
  const starts = new Uint32Array(bw);
  let runs = 0;
  for (let by = 0; by < bh; by++)
    for (let bx = 0; bx < bw; bx++)
      if (busy[by * bw + bx] && (bx === 0 || !busy[by * bw + bx - 1])) {
        starts[bx]!++;
        runs++;
      }
  const aligned = [...starts]
    .sort((a, b) => b - a)
    .slice(0, 5)
    .reduce((a, b) => a + b, 0);
  const even = (a: number, b: number) => (a + b === 0 ? 1 : 1 - Math.abs(a - b) / (a + b));
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    edgeDensity: r3(edges / (w * h)),
    whitespace: r3(emptyBlocks / (bw * bh)),
    balance: r3((even(left, right) + even(top, bottom)) / 2),
    symmetry: r3(edges === 0 ? 1 : mirrored / edges),
    // Figure-ground contrast (Miniukovich & De Angeli 2014, 2015: appeal rises when figures stand out from their
    // ground): the mean luminance step across edge pixels, over 255. Black text on white is near 1; light grey
    // text on white, or a washed-out page, near the edge threshold (0.09).
    figureGround: r3(edges === 0 ? 0 : steps / edges / 255),
    alignment: r3(runs === 0 ? 1 : aligned / runs),
  };
}

/** A block is split while its luminance varies more than this (standard deviation, of 255). */
export const QUADTREE_SPLIT_SD = 12;
/** Blocks are not split below this size (samples a side): about a line of body text. */
const QUADTREE_MIN = 8;

/**
 * Quadtree decomposition (Zheng et al. 2009, the complexity measure of Reinecke et al. 2013): the image is split
 * into quarters while a block's luminance varies, down to `QUADTREE_MIN`; a busy page ends in many small leaves, a
 * calm one in few large ones. Leaves per 10,000 samples, so the figure does not depend on the viewport's size.
 * Block statistics come from summed-area tables: one pass over the image, then a constant cost per block.
 */
export function quadtreeDensity(g: { width: number; height: number; grey: Float32Array }): number {
  const { width: w, height: h, grey } = g;
  if (w < 2 || h < 2) return 0;
  const W = w + 1;
  const sum = new Float64Array(W * (h + 1));
  const sq = new Float64Array(W * (h + 1));
  for (let y = 0; y < h; y++) {
    let rs = 0;
    let rq = 0;
    for (let x = 0; x < w; x++) {
      const v = grey[y * w + x]!;
      rs += v;
      rq += v * v;
      sum[(y + 1) * W + x + 1] = sum[y * W + x + 1]! + rs;
      sq[(y + 1) * W + x + 1] = sq[y * W + x + 1]! + rq;
    }
  }
  const box = (t: Float64Array, x0: number, y0: number, x1: number, y1: number) =>
    t[y1 * W + x1]! - t[y0 * W + x1]! - t[y1 * W + x0]! + t[y0 * W + x0]!;
  let leaves = 0;
  const stack: [number, number, number, number][] = [[0, 0, w, h]];
  while (stack.length > 0) {
    const [x0, y0, x1, y1] = stack.pop()!;
    const n = (x1 - x0) * (y1 - y0);
    if (n === 0) continue;
    const mean = box(sum, x0, y0, x1, y1) / n;
    const variance = box(sq, x0, y0, x1, y1) / n - mean * mean;
    if (
      variance <= QUADTREE_SPLIT_SD * QUADTREE_SPLIT_SD ||
      x1 - x0 < 2 * QUADTREE_MIN ||
      y1 - y0 < 2 * QUADTREE_MIN
    ) {
      leaves++;
      continue;
    }
    const mx = (x0 + x1) >> 1;
    const my = (y0 + y1) >> 1;
    stack.push([x0, y0, mx, my], [mx, y0, x1, my], [x0, my, mx, y1], [mx, my, x1, y1]);
  }
  return Math.round((leaves / (w * h)) * 10_000 * 10) / 10;
}

/**
 * Dominant colours (colour variability, Miniukovich & De Angeli 2015): colours quantised to 4 bits a channel that
 * each cover at least 0.5% of the screen, counted on every other sample of every other row (a quarter of the
 * samples is plenty for shares of half a percent).
 */
export function dominantColours(img: RgbaImage, factor: number): number {
  const bins = new Uint32Array(4096);
  const step = Math.max(1, factor) * 2;
  let n = 0;
  const d = img.data;
  for (let y = 0; y < img.height; y += step)
    for (let x = 0; x < img.width; x += step) {
      const i = (y * img.width + x) * 4;
      bins[((d[i]! >> 4) << 8) | ((d[i + 1]! >> 4) << 4) | (d[i + 2]! >> 4)]!++;
      n++;
    }
  let count = 0;
  for (const b of bins) if (b > 0 && b >= 0.005 * n) count++;
  return count;
}

/** Blocks of this many CSS pixels a side are classed as ground, surface or picture. */
const SURFACE_BLOCK = 16;
/** A block whose luminance varies less than this (standard deviation, of 255) is one flat colour. */
const FLAT_SD = 2;
/**
 * A block that is not flat, in which fewer than this share of neighbouring samples have the same colour, is a
 * picture: a photograph or rendered illustration varies from sample to sample, where text, icons, borders and fills
 * are drawn in runs of one colour (their anti-aliased edges aside).
 */
const PICTURE_SAME = 0.35;

/**
 * What the screen is drawn on (v13), over blocks of 16 CSS px:
 * - `pictureShare`: blocks that are pictures (see `PICTURE_SAME`);
 * - `surfaceShare`: blocks drawn on something other than the page's ground, the colour most blocks are mostly
 *   of: a picture, or a block mostly of another colour (a bar, panel, card, button or band);
 * - `defaultLinkInk`: the share of samples in the browser's default link colours (#0000EE, visited #551A8B), which
 *   author styles almost always replace, counted outside pictures and outside blocks mostly of them (a blue band).
 * A page whose style sheets did not apply is drawn in black and default blue on one bare ground: no surface, no
 * picture unless an image shows, and default link ink.
 */
export function surfaceMeasures(
  img: RgbaImage,
  factor: number,
): { pictureShare: number; surfaceShare: number; defaultLinkInk: number } {
  const size = SURFACE_BLOCK * factor;
  const bw = Math.floor(img.width / size);
  const bh = Math.floor(img.height / size);
  const total = bw * bh;
  if (total === 0) return { pictureShare: 0, surfaceShare: 0, defaultLinkInk: 0 };
  const counts = new Uint16Array(4096);
  const touched = new Uint16Array(SURFACE_BLOCK * SURFACE_BLOCK);
  const dominant = new Int16Array(total);
  const picture = new Uint8Array(total);
  const grounds = new Uint32Array(4096);
  const d = img.data;
  let samples = 0;
  let linkInk = 0;
  for (let by = 0; by < bh; by++)
    for (let bx = 0; bx < bw; bx++) {
      let distinct = 0;
      let n = 0;
      let sum = 0;
      let sq = 0;
      let same = 0;
      let pairs = 0;
      let blockInk = 0;
      const x1 = (bx + 1) * size;
      for (let y = by * size; y < (by + 1) * size; y += factor)
        for (let x = bx * size; x < x1; x += factor) {
          const i = (y * img.width + x) * 4;
          const r = d[i]!;
          const g = d[i + 1]!;
          const b = d[i + 2]!;
          const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
          if (counts[key] === 0) touched[distinct++] = key;
          counts[key]!++;
          const l = 0.299 * r + 0.587 * g + 0.114 * b;
          sum += l;
          sq += l * l;
          n++;
          if (x + factor < x1) {
            const j = i + 4 * factor;
            pairs++;
            if (Math.abs(d[j]! - r) + Math.abs(d[j + 1]! - g) + Math.abs(d[j + 2]! - b) <= 3) same++;
          }
          if (
            (r < 40 && g < 40 && b > 200) ||
            (Math.abs(r - 85) < 12 && Math.abs(g - 26) < 12 && Math.abs(b - 139) < 12)
          )
            blockInk++;
        }
      samples += n;
      let top = 0;
      let topKey = -1;
      for (let t = 0; t < distinct; t++) {
        const key = touched[t]!;
        if (counts[key]! > top) {
          top = counts[key]!;
          topKey = key;
        }
        counts[key] = 0;
      }
      const b = by * bw + bx;
      const sd = Math.sqrt(Math.max(0, sq / n - (sum / n) ** 2));
      picture[b] = sd >= FLAT_SD && same < PICTURE_SAME * pairs ? 1 : 0;
      // A block mostly in those colours is a fill (a blue band or button), and a picture's few such samples are
      // part of the picture: neither is link text.
      if (!picture[b] && blockInk < 0.5 * n) linkInk += blockInk;
      dominant[b] = top >= 0.5 * n ? topKey : -1;
      if (dominant[b]! >= 0) grounds[topKey]!++;
    }
  let ground = 0;
  for (let k = 1; k < 4096; k++) if (grounds[k]! > grounds[ground]!) ground = k;
  let pictures = 0;
  let surface = 0;
  for (let b = 0; b < total; b++) {
    pictures += picture[b]!;
    if (picture[b] || (dominant[b]! >= 0 && dominant[b] !== ground)) surface++;
  }
  return {
    pictureShare: Math.round((pictures / total) * 1000) / 1000,
    surfaceShare: Math.round((surface / total) * 1000) / 1000,
    defaultLinkInk: Math.round((linkInk / samples) * 10_000) / 10_000,
  };
}

/** The tallest tenth of the text's vertical strokes is averaged: capitals and ascenders, not x-height or serifs. */
const GLYPH_TOP_SHARE = 0.1;
/** Fewer strokes than this and there is too little text on the screen to tell its size. */
const GLYPH_MIN_STROKES = 200;

/**
 * How tall the text on a screenshot is drawn (v13), in CSS px: the mean height of the tallest tenth of its vertical
 * ink strokes, which are its capitals' and ascenders' stems, about 0.7 of the font size in the usual faces (12 px
 * text has strokes about 8.5 px tall, 8 px text about 5.5). Text is found on blocks of 16 CSS px that are mostly
 * one luminance (the ground the text sits on), not pictures (most neighbouring samples alike) and hold a step of
 * at least 40 of 255 from it; ink is a sample at least half the block's largest step (and 40) from that ground, so
 * faint anti-aliased fringes do not lengthen strokes. Strokes of 2 to 40 samples count. Null under 200 strokes.
 */
export function glyphHeight(g: { width: number; height: number; grey: Float32Array }): number | null {
  const { width: w, grey } = g;
  const bw = Math.floor(w / SURFACE_BLOCK);
  const bh = Math.floor(g.height / SURFACE_BLOCK);
  if (bw === 0 || bh === 0) return null;
  const ground = new Float32Array(bw * bh);
  const threshold = new Float32Array(bw * bh);
  const text = new Uint8Array(bw * bh);
  const levels = new Uint16Array(64);
  const area = SURFACE_BLOCK * SURFACE_BLOCK;
  for (let by = 0; by < bh; by++)
    for (let bx = 0; bx < bw; bx++) {
      levels.fill(0);
      let same = 0;
      let lo = 255;
      let hi = 0;
      const x0 = bx * SURFACE_BLOCK;
      const y0 = by * SURFACE_BLOCK;
      for (let y = y0; y < y0 + SURFACE_BLOCK; y++)
        for (let x = x0; x < x0 + SURFACE_BLOCK; x++) {
          const v = grey[y * w + x]!;
          levels[(v / 4) | 0]!++;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
          if (x < x0 + SURFACE_BLOCK - 1 && Math.abs(grey[y * w + x + 1]! - v) < 1) same++;
        }
      let mode = 0;
      for (let l = 1; l < 64; l++) if (levels[l]! > levels[mode]!) mode = l;
      const base = mode * 4 + 2;
      // The largest step from the ground is to the darkest or the lightest sample.
      const step = Math.max(hi - base, base - lo);
      const b = by * bw + bx;
      ground[b] = base;
      threshold[b] = Math.max(40, 0.5 * step);
      text[b] =
        levels[mode]! >= area / 2 && same >= PICTURE_SAME * SURFACE_BLOCK * (SURFACE_BLOCK - 1) && step >= 40
          ? 1
          : 0;
    }
  const strokes: number[] = [];
  const rows = bh * SURFACE_BLOCK;
  for (let x = 0; x < bw * SURFACE_BLOCK; x++) {
    const bx = (x / SURFACE_BLOCK) | 0;
    let run = 0;
    for (let y = 0; y <= rows; y++) {
      const b = y < rows ? ((y / SURFACE_BLOCK) | 0) * bw + bx : -1;
      if (b >= 0 && text[b] && Math.abs(grey[y * w + x]! - ground[b]!) >= threshold[b]!) run++;
      else {
        if (run >= 2 && run <= 40) strokes.push(run);
        run = 0;
      }
    }
  }
  if (strokes.length < GLYPH_MIN_STROKES) return null;
  strokes.sort((a, b) => a - b);
  const top = strokes.slice(Math.floor((1 - GLYPH_TOP_SHARE) * strokes.length));
  return Math.round((top.reduce((a, b) => a + b, 0) / top.length) * 10) / 10;
}

/**
 * The visual measures of a screenshot. The image is read at about one sample per CSS pixel (a phone's 2×
 * screenshot is halved), so the figures mean the same on every device. Deterministic for the same pixels.
 */
export function visualSignals(png: Uint8Array, deviceScaleFactor = 1): VisualSignals {
  return visualOfImage(decodePng(png), png.byteLength, deviceScaleFactor);
}

function visualOfImage(img: RgbaImage, pngBytes: number, deviceScaleFactor: number): VisualSignals {
  const factor = Math.max(1, Math.round(deviceScaleFactor));
  const grey = downsampleGrey(img, factor);
  const edges = edgeMeasures(grey);
  return {
    colourfulness: Math.round(colourfulness(img) * 10) / 10,
    ...edges,
    // Compressed size per pixel: the second complexity measure (Reinecke et al. 2013 used file size likewise).
    bytesPerPixel: Math.round((pngBytes / Math.max(1, img.width * img.height)) * 1000) / 1000,
    quadtreeDensity: quadtreeDensity(grey),
    dominantColours: dominantColours(img, factor),
    ...surfaceMeasures(img, factor),
    glyphHeight: glyphHeight(grey),
  };
}

/** Contrast of text lines read on the screenshot: characters measured, and those under 4.5:1, 3:1 and 2:1. */
export interface PixelContrast {
  chars: number;
  below45: number;
  below3: number;
  below2: number;
}

/** sRGB channel value (0..255) to linear light, as WCAG's relative luminance takes it. */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});
const relativeLuminance = (r: number, g: number, b: number) =>
  0.2126 * LINEAR[Math.round(r)]! + 0.7152 * LINEAR[Math.round(g)]! + 0.0722 * LINEAR[Math.round(b)]!;

/**
 * WCAG contrast of text lines whose background the DOM cannot tell, read where they are drawn (v12). In a line's
 * box the glyphs take well under half the pixels, so the background is the half of the pixels farthest in
 * luminance from the text's colour, and its colour the median of that half: over a photo or a film that is the
 * typical colour behind the letters, not the best or worst one. The text's colour, composited on it when
 * translucent, comes from the page. About 900 pixels are read a line.
 */
export function textContrastOnScreenshot(
  img: RgbaImage,
  samples: readonly TextSample[],
  scale: number,
): PixelContrast {
  const out: PixelContrast = { chars: 0, below45: 0, below3: 0, below2: 0 };
  const d = img.data;
  const lum = new Float64Array(1024);
  const at = new Int32Array(1024);
  const dist = new Float64Array(1024);
  const far = new Float64Array(1024);
  for (const t of samples) {
    const x0 = Math.max(0, Math.floor(t.x * scale));
    const y0 = Math.max(0, Math.floor(t.y * scale));
    const x1 = Math.min(img.width, Math.ceil((t.x + t.w) * scale));
    const y1 = Math.min(img.height, Math.ceil((t.y + t.h) * scale));
    if (x1 - x0 < 2 || y1 - y0 < 2) continue;
    const step = Math.max(1, Math.ceil(Math.sqrt(((x1 - x0) * (y1 - y0)) / 900)));
    const [fr, fg, fb, fa] = t.fg;
    const textLum = relativeLuminance(fr, fg, fb);
    let n = 0;
    for (let y = y0; y < y1 && n < 1024; y += step)
      for (let x = x0; x < x1 && n < 1024; x += step) {
        const i = (y * img.width + x) * 4;
        lum[n] = 0.2126 * LINEAR[d[i]!]! + 0.7152 * LINEAR[d[i + 1]!]! + 0.0722 * LINEAR[d[i + 2]!]!;
        at[n] = i;
        dist[n] = Math.abs(lum[n]! - textLum);
        n++;
      }
    // The farther half: pixels at least as far from the text's luminance as the median distance.
    const cut = dist.subarray(0, n).slice().sort()[Math.floor(n / 2)]!;
    let m = 0;
    for (let k = 0; k < n; k++) if (dist[k]! >= cut) far[m++] = lum[k]!;
    const median = far.subarray(0, m).slice().sort()[Math.floor(m / 2)]!;
    let bgAt = at[0]!;
    for (let k = 0; k < n; k++)
      if (lum[k] === median) {
        bgAt = at[k]!;
        break;
      }
    const bg = [d[bgAt]!, d[bgAt + 1]!, d[bgAt + 2]!] as const;
    const shown = [0, 1, 2].map((k) => t.fg[k]! * fa + bg[k]! * (1 - fa));
    const a = relativeLuminance(shown[0]!, shown[1]!, shown[2]!);
    const b = median;
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.chars += t.chars;
    if (ratio < 4.5) out.below45 += t.chars;
    if (ratio < 3) out.below3 += t.chars;
    if (ratio < 2) out.below2 += t.chars;
  }
  return out;
}

/** A screenshot's measures, and the contrast of the text lines asked for (when any were). */
export type ScreenshotMeasures = VisualSignals & { textContrast?: PixelContrast };

/**
 * The visual measures of a screenshot taken at a viewport `viewportWidth` CSS pixels wide: the device scale is the
 * PNG's width over it (read from the header). With `text`, also those lines' contrast on the pixels. Null when the
 * PNG cannot be read.
 */
export function screenshotMeasures(
  png: Uint8Array,
  viewportWidth: number,
  text?: readonly TextSample[],
): ScreenshotMeasures | null {
  try {
    const width = png.byteLength > 24 ? Buffer.from(png.buffer, png.byteOffset, 24).readUInt32BE(16) : 0;
    const scale = viewportWidth > 0 ? width / viewportWidth : 1;
    const img = decodePng(png);
    const visual: ScreenshotMeasures = visualOfImage(img, png.byteLength, scale);
    if (text && text.length > 0) visual.textContrast = textContrastOnScreenshot(img, text, scale);
    return visual;
  } catch {
    return null;
  }
}

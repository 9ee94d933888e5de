import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closeScreenshotThreads,
  colourfulness,
  decodePng,
  dominantColours,
  downsampleGrey,
  edgeMeasures,
  glyphHeight,
  measureScreenshot,
  quadtreeDensity,
  type RgbaImage,
  screenshotMeasures,
  screenshotThreadCount,
  surfaceMeasures,
  type TextSample,
  textContrastOnScreenshot,
  useScreenshotThreadSource,
  visualAppeal,
  visualSignals,
} from "../src";

/** A synthetic image from a pixel function. */
function image(
  width: number,
  height: number,
  px: (x: number, y: number) => [number, number, number],
): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = px(x, y);
      data.set([r, g, b, 255], (y * width + x) * 4);
    }
  return { width, height, data };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf: Buffer) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, body: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
};

/**
 * An RGB PNG whose rows cycle through all five filter types, each applied as the PNG spec defines, so the
 * decoder is checked on every one.
 */
function encodePng(img: RgbaImage): Uint8Array {
  const bpp = 3;
  const stride = img.width * bpp;
  const rows: Buffer[] = [];
  let prev = new Uint8Array(stride);
  for (let y = 0; y < img.height; y++) {
    const line = new Uint8Array(stride);
    for (let x = 0; x < img.width; x++)
      line.set(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3), x * 3);
    const filter = y % 5;
    const out = Buffer.alloc(stride + 1);
    out[0] = filter;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter]!;
      out[i + 1] = (line[i]! - predictor) & 255;
    }
    rows.push(out);
    prev = line;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0);
  ihdr.writeUInt32BE(img.height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(Buffer.concat(rows))),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

const white = image(64, 40, () => [255, 255, 255]);
const stripes = image(64, 40, (x) => (x % 8 < 4 ? [255, 0, 0] : [0, 0, 255]));

describe("PNG decoding", () => {
  it("decodes every filter type back to the original pixels", () => {
    const noisy = image(37, 23, (x, y) => [
      (x * 37 + y * 11) % 256,
      (x * x + y * 7) % 256,
      (x * y * 13) % 256,
    ]);
    expect(decodePng(encodePng(noisy))).toEqual(noisy);
  });

  it("refuses what is not a PNG", () => {
    expect(() => decodePng(new Uint8Array([1, 2, 3]))).toThrow("not a PNG");
  });
});

describe("colourfulness (Hasler & Süsstrunk 2003)", () => {
  it("is 0 for any grey image", () => {
    expect(colourfulness(white)).toBe(0);
    expect(colourfulness(image(10, 10, (x) => [x * 25, x * 25, x * 25]))).toBe(0);
  });

  it("matches the formula on a flat colour: 0.3 × the mean opponent vector's length", () => {
    // Pure red: rg = 255, yb = 127.5, no spread.
    expect(colourfulness(image(8, 8, () => [255, 0, 0]))).toBeCloseTo(0.3 * Math.hypot(255, 127.5), 6);
  });

  it("matches the formula on half red, half blue", () => {
    // rg: 255 or 0 → mean 127.5, σ 127.5; yb: 127.5 or −255 → mean −63.75, σ 191.25.
    const expected = Math.hypot(127.5, 191.25) + 0.3 * Math.hypot(127.5, -63.75);
    expect(colourfulness(stripes)).toBeCloseTo(expected, 6);
  });

  it("grows with saturation", () => {
    const tint = (s: number) =>
      image(16, 16, (x) => (x < 8 ? [128 + s, 128 - s, 128] : [128, 128 - s, 128 + s]));
    expect(colourfulness(tint(20))).toBeLessThan(colourfulness(tint(60)));
    expect(colourfulness(tint(60))).toBeLessThan(colourfulness(tint(120)));
  });
});

describe("edge measures", () => {
  it("finds no edges, all whitespace and perfect balance on a blank image", () => {
    expect(edgeMeasures(downsampleGrey(white, 1))).toEqual({
      edgeDensity: 0,
      whitespace: 1,
      balance: 1,
      symmetry: 1,
      figureGround: 0,
      alignment: 1,
    });
  });

  it("counts the edges of a known pattern", () => {
    // Black bars 1 px wide every 4 px on white: each bar and the pixel before it are edge pixels, 31 columns
    // in all (the last column and the last row have no neighbour to compare with).
    const bars = image(64, 40, (x) => (x % 4 === 3 ? [0, 0, 0] : [255, 255, 255]));
    const m = edgeMeasures(downsampleGrey(bars, 1));
    expect(m.edgeDensity).toBeCloseTo((31 * 39) / (64 * 40), 3);
    expect(m.whitespace).toBe(0);
    expect(m.balance).toBeCloseTo(1, 1);
  });

  it("sees whitespace, imbalance and asymmetry when everything sits in one corner", () => {
    const corner = image(64, 64, (x, y) =>
      x < 16 && y < 16 && (x + y) % 2 === 0 ? [0, 0, 0] : [255, 255, 255],
    );
    const m = edgeMeasures(downsampleGrey(corner, 1));
    expect(m.whitespace).toBeGreaterThan(0.85);
    expect(m.balance).toBeLessThan(0.1);
    expect(m.symmetry).toBe(0);
    const mirrored = image(64, 64, (x, y) =>
      (x < 16 || x >= 48) && y < 16 && (x + y) % 2 === 0 ? [0, 0, 0] : [255, 255, 255],
    );
    expect(edgeMeasures(downsampleGrey(mirrored, 1)).symmetry).toBeGreaterThan(0.9);
  });

  it("reads a 2× screenshot at CSS-pixel scale, so a phone and a desktop measure alike", () => {
    const small = image(32, 20, (x) => (x % 8 < 4 ? [255, 0, 0] : [0, 0, 255]));
    const double = image(64, 40, (x) => (Math.floor(x / 2) % 8 < 4 ? [255, 0, 0] : [0, 0, 255]));
    const a = visualSignals(encodePng(small), 1);
    const b = visualSignals(encodePng(double), 2);
    expect(b.edgeDensity).toBe(a.edgeDensity);
    expect(b.colourfulness).toBe(a.colourfulness);
  });
});

describe("v6 screenshot measures", () => {
  it("splits a busy image into more quadtree leaves than a calm one, per area", () => {
    const calm = image(128, 128, (x) => (x < 64 ? [255, 255, 255] : [40, 40, 40]));
    const noise = image(128, 128, (x, y) => ((x * 7 + y * 13) % 5 < 2 ? [0, 0, 0] : [255, 255, 255]));
    // The calm one splits once (its halves differ), into four flat quarters.
    expect(quadtreeDensity(downsampleGrey(calm, 1))).toBeCloseTo((4 / (128 * 128)) * 10_000, 1);
    // Noise splits down to the finest 8 × 8 blocks: 256 leaves.
    expect(quadtreeDensity(downsampleGrey(noise, 1))).toBeCloseTo((256 / (128 * 128)) * 10_000, 0);
    expect(quadtreeDensity(downsampleGrey(white, 1))).toBeCloseTo((1 / (64 * 40)) * 10_000, 1);
  });

  it("measures figure-ground contrast as the mean step across edges: black on white high, light grey low", () => {
    const text = (ink: number) =>
      image(64, 64, (x, y) => (x % 8 < 2 && y % 16 < 10 ? [ink, ink, ink] : [255, 255, 255]));
    const black = edgeMeasures(downsampleGrey(text(0), 1)).figureGround;
    const grey = edgeMeasures(downsampleGrey(text(200), 1)).figureGround;
    expect(black).toBe(1);
    expect(grey).toBeCloseTo(55 / 255, 3);
  });

  it("finds content aligned to a few columns better aligned than blocks scattered across the screen", () => {
    // Rows of text-like marks all starting at x = 16 vs each row starting somewhere else.
    const aligned = image(256, 128, (x, y) =>
      x >= 16 && x < 120 && y % 16 < 4 && x % 3 === 0 ? [0, 0, 0] : [255, 255, 255],
    );
    const scattered = image(256, 128, (x, y) => {
      const start = ((Math.floor(y / 16) * 37) % 9) * 24;
      return x >= start && x < start + 40 && y % 16 < 4 && x % 3 === 0 ? [0, 0, 0] : [255, 255, 255];
    });
    expect(edgeMeasures(downsampleGrey(aligned, 1)).alignment).toBe(1);
    expect(edgeMeasures(downsampleGrey(scattered, 1)).alignment).toBeLessThan(0.7);
  });

  it("counts the colours that each cover at least 0.5% of the screen", () => {
    const stripes = image(100, 100, (x) => (x < 50 ? [255, 0, 0] : x < 99 ? [0, 0, 255] : [0, 255, 0]));
    // Red and blue; the green column is 1% of the pixels but sampled on every other column, so it is missed or
    // counted, never more than three.
    expect(dominantColours(stripes, 1)).toBeGreaterThanOrEqual(2);
    expect(dominantColours(stripes, 1)).toBeLessThanOrEqual(3);
    expect(dominantColours(white, 1)).toBe(1);
  });
});

describe("visual appeal", () => {
  const signals = (over: Partial<Parameters<typeof visualAppeal>[0]>) => ({
    colourfulness: 40,
    edgeDensity: 0.05,
    whitespace: 0.5,
    balance: 1,
    symmetry: 1,
    bytesPerPixel: 0.1,
    ...over,
  });

  // The fitted model's own properties are tested in honest-scale.test.ts; these are what the judge relies on.
  it("is the fitted prediction placed on 0..1, the same for the same screen", () => {
    for (const over of [{}, { edgeDensity: 0.3 }, { colourfulness: 0 }, { whitespace: 0.95 }]) {
      const first = visualAppeal(signals(over));
      expect(first.appeal).toBeGreaterThanOrEqual(0);
      expect(first.appeal).toBeLessThanOrEqual(1);
      expect(visualAppeal(signals(over))).toEqual(first);
    }
  });

  it("rates a blank screen near the bottom", () => {
    expect(
      visualAppeal(signals({ colourfulness: 0, edgeDensity: 0, whitespace: 1, balance: 1 })).appeal,
    ).toBeLessThan(0.3);
  });
});

describe("what the screen is drawn on (v13)", () => {
  // A deterministic pseudo-random colour per pixel: a photograph's sample-to-sample variation.
  const noise = (x: number, y: number): [number, number, number] => {
    const h = Math.imul(x * 73_856_093 + y * 19_349_663, 2_654_435_761) >>> 0;
    return [h & 255, (h >>> 8) & 255, (h >>> 16) & 255];
  };
  // Black words and default-blue links on one bare white ground, as a page without its style sheets draws them.
  const unstyled = image(320, 160, (x, y) =>
    y % 16 < 10 && x % 6 < 3 ? (y < 80 ? [0, 0, 0] : [0, 0, 238]) : [255, 255, 255],
  );

  it("finds the browser's default link colours and no surface on an unstyled screen", () => {
    const m = surfaceMeasures(unstyled, 1);
    expect(m.surfaceShare).toBe(0);
    expect(m.pictureShare).toBe(0);
    // Half the rows hold link text, 10 of 16 rows of each line, 161 of the 320 columns.
    expect(m.defaultLinkInk).toBeCloseTo(0.5 * (10 / 16) * (161 / 320), 4);
  });

  it("counts bars, panels and pictures as surface, and only pictures as pictures", () => {
    // A navy bar over the top 32 rows, a photograph in the right half below it, white ground elsewhere.
    const designed = image(320, 160, (x, y) =>
      y < 32 ? [20, 30, 90] : x >= 160 ? noise(x, y) : [255, 255, 255],
    );
    const m = surfaceMeasures(designed, 1);
    // 20 × 10 blocks: 20 × 2 for the bar, 10 × 8 for the photograph.
    expect(m.surfaceShare).toBeCloseTo((40 + 80) / 200, 3);
    expect(m.pictureShare).toBeCloseTo(80 / 200, 3);
    expect(m.defaultLinkInk).toBe(0);
  });

  it("takes the ground to be the colour most blocks are mostly of, so a dark page's ground is not surface", () => {
    const dark = image(320, 160, (x) => (x < 64 ? [250, 250, 250] : [17, 17, 17]));
    expect(surfaceMeasures(dark, 1).surfaceShare).toBeCloseTo(40 / 200, 3);
  });

  it("leaves out a band filled with the link blue: a fill, not link text", () => {
    const band = image(320, 160, (_x, y) => (y < 48 ? [0, 0, 238] : [255, 255, 255]));
    const m = surfaceMeasures(band, 1);
    expect(m.defaultLinkInk).toBe(0);
    expect(m.surfaceShare).toBeCloseTo(60 / 200, 3);
  });

  it("reads a 2× screenshot at CSS-pixel scale", () => {
    const twice = image(640, 320, (x, y) => {
      const i = ((y >> 1) * 320 + (x >> 1)) * 4;
      return [unstyled.data[i]!, unstyled.data[i + 1]!, unstyled.data[i + 2]!];
    });
    expect(surfaceMeasures(twice, 2)).toEqual(surfaceMeasures(unstyled, 1));
  });

  it("is part of the screenshot's measures", () => {
    const v = visualSignals(encodePng(unstyled));
    expect(v).toMatchObject(surfaceMeasures(unstyled, 1));
  });
});

describe("how tall text is drawn (v13)", () => {
  // Lines of "glyphs": one-pixel stems every 3 px, one in five a capital `tall` px high, the rest `tall` × 0.7,
  // on white, lines 2 × `tall` apart, like text whose capitals are `tall` px.
  const text = (tall: number) =>
    image(320, 160, (x, y) => {
      const line = y % (2 * tall);
      const height = x % 15 === 0 ? tall : Math.round(0.7 * tall);
      return x % 3 === 0 && line >= tall - height && line < tall ? [30, 30, 30] : [255, 255, 255];
    });
  const grey = (img: RgbaImage, factor = 1) => downsampleGrey(img, factor);

  it("reads the tallest tenth of the strokes: capitals, not x-height", () => {
    expect(glyphHeight(grey(text(12)))).toBeCloseTo(12, 1);
    expect(glyphHeight(grey(text(5)))).toBeCloseTo(5, 1);
  });

  it("reads a 2× screenshot at CSS-pixel scale", () => {
    const once = text(10);
    const twice = image(640, 320, (x, y) => {
      const i = ((y >> 1) * 320 + (x >> 1)) * 4;
      return [once.data[i]!, once.data[i + 1]!, once.data[i + 2]!];
    });
    expect(glyphHeight(grey(twice, 2))).toBe(glyphHeight(grey(once)));
  });

  it("says nothing when there is too little text to tell, and does not read a photograph as text", () => {
    expect(glyphHeight(grey(white))).toBeNull();
    const photo = image(320, 160, (x, y) => {
      const h = Math.imul(x * 73_856_093 + y * 19_349_663, 2_654_435_761) >>> 0;
      return [h & 255, (h >>> 8) & 255, (h >>> 16) & 255];
    });
    expect(glyphHeight(grey(photo))).toBeNull();
  });

  it("is part of the screenshot's measures", () => {
    const img = text(9);
    expect(visualSignals(encodePng(img)).glyphHeight).toBe(glyphHeight(grey(img)));
  });
});

describe("text contrast read on the screenshot (v12)", () => {
  /** Lines of text 200 × 20 px: glyph strokes (every fourth column, rows 5..14) in `ink` over `paper(x, y)`. */
  const lines = (ink: [number, number, number], paper: (x: number, y: number) => [number, number, number]) =>
    image(200, 60, (x, y) => (x % 4 === 0 && y % 20 >= 5 && y % 20 < 15 ? ink : paper(x, y)));
  const sample = (y: number, fg: [number, number, number, number], chars = 30): TextSample => ({
    x: 0,
    y,
    w: 200,
    h: 20,
    fg,
    chars,
  });

  it("finds the background behind the glyphs: white on a dark photo passes, dark grey on it fails", () => {
    // A "photo": dark, noisy blue-green.
    const photo = (x: number, y: number): [number, number, number] => [
      20 + ((x * 31 + y * 17) % 25),
      40 + ((x * 13 + y * 7) % 30),
      60 + ((x * 5 + y * 11) % 20),
    ];
    const white = textContrastOnScreenshot(lines([255, 255, 255], photo), [sample(0, [255, 255, 255, 1])], 1);
    expect(white).toEqual({ chars: 30, below45: 0, below3: 0, below2: 0 });
    const grey = textContrastOnScreenshot(lines([58, 58, 58], photo), [sample(0, [58, 58, 58, 1])], 1);
    expect(grey).toEqual({ chars: 30, below45: 30, below3: 30, below2: 30 });
  });

  it("weighs each line by its characters and composites translucent text on the background", () => {
    const paper = (): [number, number, number] => [255, 255, 255];
    // #ccc on white is 1.6:1; black at 40% on white is #999 (2.8:1): under 3:1 and 4.5:1, not under 2:1.
    const img = lines([120, 120, 120], paper);
    const got = textContrastOnScreenshot(
      img,
      [sample(0, [204, 204, 204, 1], 10), sample(20, [0, 0, 0, 0.4], 20), sample(40, [0, 0, 0, 1], 40)],
      1,
    );
    expect(got).toEqual({ chars: 70, below45: 30, below3: 30, below2: 10 });
  });

  it("reads a 2× screenshot at the lines' CSS-pixel positions", () => {
    const paper = (_x: number, y: number): [number, number, number] =>
      y < 40 ? [255, 255, 255] : [10, 10, 10];
    const img = image(400, 80, (x, y) => paper(x, y));
    // The line at CSS y 20..40 lies on the white top half at 2× (rows 40..80 are dark).
    const got = textContrastOnScreenshot(img, [sample(20, [255, 255, 255, 1])], 2);
    expect(got.below2).toBe(0);
    const atOne = textContrastOnScreenshot(img, [sample(20, [255, 255, 255, 1])], 1);
    expect(atOne.below2).toBe(30);
  });
});

describe("screenshot measures on the pool's threads", () => {
  // From the sources a thread loads tsx's loader first (loader hooks are not inherited by threads); the deployable
  // folder starts the bundled `visual-thread.mjs` instead.
  beforeAll(() => {
    const tsx = dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
    const api = pathToFileURL(join(tsx, "dist/esm/api/index.mjs")).href;
    const entry = pathToFileURL(
      fileURLToPath(new URL("../src/browser/visual-thread.ts", import.meta.url)),
    ).href;
    useScreenshotThreadSource(
      `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    );
  });
  afterAll(closeScreenshotThreads);

  it("gives exactly the numbers measured in this thread, for the same PNG, at 1× and 2×", async () => {
    const page = image(320, 200, (x, y) =>
      y < 40 ? [30, 60, 160] : (x * 7 + y * 13) % 11 < 3 ? [20, 20, 20] : [250, 248, 240],
    );
    const png = encodePng(page);
    for (const viewportWidth of [320, 160]) {
      const here = screenshotMeasures(png, viewportWidth);
      expect(here).not.toBeNull();
      // Several at once, so more than one thread (where the machine has the cores) answers.
      const there = await Promise.all([1, 2, 3].map(() => measureScreenshot(png, viewportWidth)));
      for (const answer of there) expect(answer).toEqual(here);
    }
    expect(screenshotThreadCount()).toBeGreaterThan(0);
  });

  it("reads the text lines it is given on the thread as in this thread", async () => {
    const png = encodePng(image(200, 40, (_x, y) => (y < 20 ? [250, 250, 250] : [15, 30, 45])));
    const text: TextSample[] = [
      { x: 0, y: 0, w: 200, h: 20, fg: [200, 200, 200, 1], chars: 12 },
      { x: 0, y: 20, w: 200, h: 20, fg: [255, 255, 255, 1], chars: 8 },
    ];
    const here = screenshotMeasures(png, 200, text);
    expect(here?.textContrast).toEqual({ chars: 20, below45: 12, below3: 12, below2: 12 });
    expect(await measureScreenshot(png, 200, text)).toEqual(here);
  });

  it("answers null for bytes that are not a PNG, as in this thread", async () => {
    const bytes = new Uint8Array(64).fill(7);
    expect(screenshotMeasures(bytes, 100)).toBeNull();
    expect(await measureScreenshot(bytes, 100)).toBeNull();
    expect(screenshotThreadCount()).toBeGreaterThan(0);
  });
});

/** Fewer words than this give no meaningful reading-ease figure. */
export const MIN_WORDS_FOR_READING_EASE = 20;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
const HAS_WORD = /[\p{L}\p{N}]/u;

export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/** English syllable estimate: vowel groups, less a silent final "e", at least one per word. */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, "");
  if (w.length === 0) return 1;
  if (w.length <= 3) return 1;
  const groups = w
    .replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, "")
    .replace(/^y/, "")
    .match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups?.length ?? 1);
}

/**
 * Flesch reading ease, 206.835 − 1.015 × words/sentence − 84.6 × syllables/word, rounded to one decimal;
 * null under MIN_WORDS_FOR_READING_EASE words. A line without end punctuation (a heading, a button) counts as
 * a sentence of its own, so menus do not read as one endless sentence.
 */
export function fleschReadingEase(text: string): number | null {
  const words = text.match(WORD) ?? [];
  if (words.length < MIN_WORDS_FOR_READING_EASE) return null;
  const sentences = text.split(/[.!?]+(?:\s|$)|\n+/).filter((s) => HAS_WORD.test(s)).length;
  const syllableCount = words.reduce((sum, w) => sum + syllables(w), 0);
  const score =
    206.835 - 1.015 * (words.length / Math.max(1, sentences)) - 84.6 * (syllableCount / words.length);
  return Math.round(score * 10) / 10;
}

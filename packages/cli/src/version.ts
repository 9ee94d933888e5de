/** Kept equal to package.json's version; a test holds them together. */
export const VERSION = "0.1.0";

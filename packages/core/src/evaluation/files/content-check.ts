import { FILE_CONTENT_TYPES, FILE_EXTENSIONS, type FileContentType } from "@rubricon/contracts";
import { fileTypeFromBuffer } from "file-type";
import { ApiError } from "../../kernel";

/** How many leading bytes the type check reads: enough for every allowed format's signature. */
export const SNIFF_BYTES = 4100;

const ALLOWED = new Set<string>(FILE_CONTENT_TYPES);
const ALLOWED_LIST = "PNG, JPEG, WebP, GIF, MP4, WebM or PDF";

function typeOfExtension(filename: string): FileContentType | null {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(filename)?.[1]?.toLowerCase();
  if (!ext) return null;
  for (const type of FILE_CONTENT_TYPES) if (FILE_EXTENSIONS[type].includes(ext)) return type;
  return null;
}

/**
 * The file's name with the extension of its real type: an extension that is not one of the type's is replaced
 * (`x.html` holding a PNG becomes `x.png`), a name without one gets it. Served names then never carry an extension
 * a browser or a desktop would open as something else.
 */
export function nameForType(filename: string, type: string): string {
  const extensions = FILE_EXTENSIONS[type as FileContentType];
  if (!extensions) return filename;
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(filename);
  if (match && extensions.includes(match[1]!.toLowerCase())) return filename;
  const stem = (match ? filename.slice(0, match.index) : filename) || "file";
  return `${stem.slice(0, 250)}.${extensions[0]}`;
}

function isAllowed(type: string): type is FileContentType {
  return ALLOWED.has(type);
}

/**
 * The file's real type, read from its first bytes. It must be one of the allowed types and agree with what the
 * uploader claimed: the declared content type, when it names an allowed type, and the name's extension, when it
 * is one we know. A PNG named `.mp4` or an HTML page named `.png` is refused.
 */
export async function checkFileContent(
  head: Uint8Array,
  claimed: { contentType: string | null; filename: string },
  param = "file",
): Promise<FileContentType> {
  const found = await fileTypeFromBuffer(head);
  const real = found?.mime === "video/x-m4v" ? "video/mp4" : found?.mime;
  if (!real || !isAllowed(real)) {
    throw new ApiError(
      "file_type_not_allowed",
      `The file's content is ${real ? `\`${real}\`` : "not a recognised media type"}; upload a ${ALLOWED_LIST} file.`,
      { param, details: { detectedContentType: real ?? null } },
    );
  }
  const declared = claimed.contentType?.split(";", 1)[0]?.trim().toLowerCase() ?? null;
  const byName = typeOfExtension(claimed.filename);
  const conflicting = [declared && isAllowed(declared) ? declared : null, byName].find(
    (t) => t !== null && t !== real,
  );
  if (conflicting) {
    throw new ApiError(
      "file_type_mismatch",
      `The file's content is \`${real}\`, but it was sent as \`${conflicting}\`; send it under its real type.`,
      { param, details: { detectedContentType: real, claimedContentType: conflicting } },
    );
  }
  return real;
}

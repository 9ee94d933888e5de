import { type Connection, connect } from "./client";

export interface UploadInput {
  bytes: Uint8Array;
  filename: string;
  contentType: "image/png" | "image/jpeg";
  teamId: string;
}

/**
 * Uploads one image through the direct-upload routes (init, PUT, finalize): JSON calls plus one PUT of the
 * bytes, which every runtime can do without multipart support. Answers the file's id.
 */
export async function uploadImage(conn: Connection, input: UploadInput): Promise<string> {
  const api = connect(conn);
  const ticket = await api.files.init({
    teamId: input.teamId,
    filename: input.filename,
    contentType: input.contentType,
    size: input.bytes.byteLength,
  });
  const put = await (conn.fetch ?? fetch)(ticket.uploadUrl, {
    method: "PUT",
    headers: ticket.headers,
    body: input.bytes as unknown as BodyInit,
  });
  if (!put.ok) throw new UploadError(put.status, await put.text().catch(() => ""));
  await api.files.finalize(ticket.fileId);
  return ticket.fileId;
}

export class UploadError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`The upload was refused (${status}).${body ? ` ${body.slice(0, 200)}` : ""}`);
    this.name = "UploadError";
  }
}

import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface StoredArtifact {
  name: string;
  contentType: string;
  size: number;
}

/** Where a run's screenshots are kept; the path it answers is recorded as the run's `artifactsPath`. */
export interface ArtifactStore {
  put(runId: string, name: string, bytes: Uint8Array, contentType: string): Promise<void>;
  pathOf(runId: string): string;
  list(runId: string): Promise<StoredArtifact[]>;
  read(runId: string, name: string): Promise<Uint8Array | null>;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$/;
const SAFE_RUN = /^[A-Za-z0-9_-]{1,100}$/;

function contentTypeOf(name: string): string {
  if (name.endsWith(".png")) return "image/png";
  if (name.endsWith(".json")) return "application/json";
  return "application/octet-stream";
}

/** Artifacts as files under `DATA_DIR/artifacts/<runId>/`. */
export class FileArtifactStore implements ArtifactStore {
  constructor(private readonly root: string) {}

  private dir(runId: string): string {
    if (!SAFE_RUN.test(runId)) throw new Error(`unsafe run id: ${runId}`);
    return join(this.root, runId);
  }

  pathOf(runId: string): string {
    return `artifacts/${runId}`;
  }

  async put(runId: string, name: string, bytes: Uint8Array): Promise<void> {
    if (!SAFE_NAME.test(name)) throw new Error(`unsafe artifact name: ${name}`);
    const dir = this.dir(runId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, name), bytes);
  }

  async list(runId: string): Promise<StoredArtifact[]> {
    let names: string[];
    try {
      names = await readdir(this.dir(runId));
    } catch {
      return [];
    }
    const found = await Promise.all(
      names
        .filter((n) => SAFE_NAME.test(n))
        .map(async (name) => ({
          name,
          contentType: contentTypeOf(name),
          size: (await stat(join(this.dir(runId), name))).size,
        })),
    );
    return found.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
  }

  async read(runId: string, name: string): Promise<Uint8Array | null> {
    if (!SAFE_NAME.test(name)) return null;
    try {
      return await readFile(join(this.dir(runId), name));
    } catch {
      return null;
    }
  }
}

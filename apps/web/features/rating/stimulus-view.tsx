import { createContext, useContext } from "react";
import type { Comparison } from "./types";

type MediaKind = "URL" | "IMAGE" | "VIDEO" | "GIF" | "PDF";

/**
 * Where an uploaded stimulus is loaded from: the API's file route for team members (a 302 to a signed URL),
 * the share link's own file route for its raters.
 */
export const FileHref = createContext((fileId: string) => `/api/v1/files/${encodeURIComponent(fileId)}`);

/** A file's kind from its real type, read from its bytes when it was uploaded. */
function kindFromType(contentType: string | null | undefined): MediaKind {
  if (contentType === "image/gif") return "GIF";
  if (contentType?.startsWith("image/")) return "IMAGE";
  if (contentType?.startsWith("video/")) return "VIDEO";
  if (contentType === "application/pdf") return "PDF";
  return "URL";
}

/** Pairs carry no stimulus type, so their kind is read from the file extension; anything else is a web page. */
function kindFromUrl(url: string): MediaKind {
  const path = url.split(/[?#]/)[0]!.toLowerCase();
  if (/\.(png|jpe?g|webp|avif|svg)$/.test(path)) return "IMAGE";
  if (path.endsWith(".gif")) return "GIF";
  if (/\.(mp4|webm|mov|ogv)$/.test(path)) return "VIDEO";
  return "URL";
}

function Preview({ url, kind, title }: { url: string; kind: MediaKind; title: string }) {
  if (kind === "IMAGE" || kind === "GIF") {
    // biome-ignore lint/performance/noImgElement: external design files of unknown size; nothing to optimise
    return <img src={url} alt={title} className="stimulus-media" loading="lazy" />;
  }
  if (kind === "PDF") {
    // The browser's own viewer opens at the first page; the file is served as a PDF, never as a page of ours.
    return <iframe src={url} title={title} className="stimulus-frame" />;
  }
  if (kind === "VIDEO") {
    // biome-ignore lint/a11y/useMediaCaption: the designs under review come without captions
    return <video src={url} controls className="stimulus-media" aria-label={title} preload="metadata" />;
  }
  return (
    <iframe
      src={url}
      title={title}
      className="stimulus-frame"
      loading="lazy"
      // The design runs in its own origin; it may script itself but not navigate or reach this page.
      sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
      referrerPolicy="no-referrer"
    />
  );
}

function Source({
  url,
  fileId,
  contentType,
  kind,
  title,
}: {
  url: string | null;
  fileId: string | null;
  contentType?: string | null;
  kind: MediaKind;
  title: string;
}) {
  const fileHref = useContext(FileHref);
  if (!url && fileId) {
    const href = fileHref(fileId);
    return (
      <>
        <div className="stimulus-link">
          <a href={href} target="_blank" rel="noreferrer noopener">
            Open the uploaded file
          </a>
          <span className="muted small">Opens in a new tab</span>
        </div>
        <Preview url={href} kind={kindFromType(contentType)} title={title} />
      </>
    );
  }
  if (!url) {
    return (
      <div className="stimulus-empty muted">{fileId ? `Uploaded file ${fileId}` : "No design attached"}</div>
    );
  }
  return (
    <>
      <div className="stimulus-link">
        <a href={url} target="_blank" rel="noreferrer noopener" className="mono">
          {url}
        </a>
        <span className="muted small">Opens in a new tab</span>
      </div>
      <Preview url={url} kind={kind} title={title} />
    </>
  );
}

/** The design (SSE) or the two designs side by side (SxS) a rater is judging. */
export function StimulusView({ comparison }: { comparison: Comparison }) {
  const s = comparison.stimulus;
  if (s.kind === "single") {
    return (
      <div className="stimulus">
        <Source
          url={s.url}
          fileId={s.fileId}
          contentType={s.contentType}
          kind={s.stimulusType}
          title="Design preview"
        />
      </div>
    );
  }
  return (
    <div className="stimulus-pair">
      {(
        [
          ["A", s.sideA],
          ["B", s.sideB],
        ] as const
      ).map(([side, design]) => (
        <section key={side} className="stimulus stimulus-side" aria-label={`Version ${side}`}>
          <h3 className="stimulus-side-head">
            <span className="side-tag">{side}</span> Version {side}
          </h3>
          <Source
            url={design.url}
            fileId={design.fileId}
            contentType={design.contentType}
            kind={design.url ? kindFromUrl(design.url) : "URL"}
            title={`Version ${side} preview`}
          />
        </section>
      ))}
    </div>
  );
}

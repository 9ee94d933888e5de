import type { Comparison } from "./types";

type MediaKind = "URL" | "IMAGE" | "VIDEO" | "GIF";

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
  kind,
  title,
}: {
  url: string | null;
  fileId: string | null;
  kind: MediaKind;
  title: string;
}) {
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
        <Source url={s.url} fileId={s.fileId} kind={s.stimulusType} title="Design preview" />
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
            kind={design.url ? kindFromUrl(design.url) : "URL"}
            title={`Version ${side} preview`}
          />
        </section>
      ))}
    </div>
  );
}

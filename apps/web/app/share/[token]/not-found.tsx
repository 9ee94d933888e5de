import type { Metadata } from "next";
import { ShareNotFoundCard } from "@/features/rating";

export const metadata: Metadata = { title: "Link not found" };

export default function ShareNotFound() {
  return (
    <div className="share-page">
      <header className="topbar">
        <div className="topbar-inner share-topbar-inner">
          <span className="brand">
            <span className="brand-mark" aria-hidden="true">
              R
            </span>
            Rubricon
          </span>
        </div>
      </header>
      <main className="share-container">
        <ShareNotFoundCard />
      </main>
    </div>
  );
}

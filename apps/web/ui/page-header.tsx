import type { ReactNode } from "react";

/** The title block every page opens with: optional breadcrumb, title, one line of description, actions on the right. */
export function PageHeader({
  title,
  description,
  breadcrumb,
  meta,
  actions,
}: {
  title: ReactNode;
  description?: ReactNode;
  breadcrumb?: ReactNode;
  meta?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="page-header">
      <div className="page-header-text">
        {breadcrumb && (
          <nav aria-label="Breadcrumb" className="breadcrumb">
            {breadcrumb}
          </nav>
        )}
        <h1>{title}</h1>
        {description && <p className="muted">{description}</p>}
        {meta && <div className="header-meta">{meta}</div>}
      </div>
      {actions && <div className="page-header-actions">{actions}</div>}
    </div>
  );
}

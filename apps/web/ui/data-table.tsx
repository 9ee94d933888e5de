import type { ReactNode } from "react";

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Right-aligned numbers. */
  numeric?: boolean;
  className?: string;
}

/** A card holding a table that scrolls inside itself on narrow screens instead of widening the page. */
export function DataTable<Row>({
  rows,
  columns,
  rowKey,
  caption,
  bare = false,
}: {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  caption?: string;
  /** Inside a card already: only the scroller, no card of its own. */
  bare?: boolean;
}) {
  const table = (
    <div className="table-scroll">
      <table className="table">
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th
                // biome-ignore lint/suspicious/noArrayIndexKey: columns are static per table
                key={i}
                scope="col"
                className={
                  [column.numeric ? "num" : "", column.className ?? ""].join(" ").trim() || undefined
                }
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column, i) => (
                <td
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are static per table
                  key={i}
                  className={
                    [column.numeric ? "num" : "", column.className ?? ""].join(" ").trim() || undefined
                  }
                >
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
  return bare ? table : <div className="card table-card">{table}</div>;
}

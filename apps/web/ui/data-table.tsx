import { type ComponentProps, Fragment, type ReactNode } from "react";
import { ScrollArea } from "./scroll-area";

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Right-aligned numbers. */
  numeric?: boolean;
  /** The cell that names its row (`<th scope="row">`), so a screen reader reads it before each cell. */
  rowHeader?: boolean;
  className?: string;
  /** A test id on each body cell of the column. */
  testId?: string;
}

/** Attributes a row may carry: an anchor to link to, a class, data attributes for tests. */
export type RowProps = Omit<ComponentProps<"tr">, "children"> & {
  [data: `data-${string}`]: string | undefined;
};

/** An action column's header: there for screen readers, empty to the eye. */
export const ACTIONS_HEADER = <span className="visually-hidden">Actions</span>;

function classes(column: Column<never>): string | undefined {
  return [column.numeric ? "num" : "", column.className ?? ""].join(" ").trim() || undefined;
}

/**
 * A table that scrolls inside itself on narrow screens instead of widening the page, with a visible sign that it does. On its own it is a card; `bare`
 * inside a card that already has a heading, where it runs to the card's edges; `plain` where neither fits (a dialog).
 */
export function DataTable<Row>({
  rows,
  columns,
  rowKey,
  rowProps,
  detail,
  caption,
  label,
  className,
  bare = false,
  plain = false,
}: {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  rowProps?: (row: Row) => RowProps;
  /** A full-width row under a row, for what it unfolds (a body, the attempts); nothing when it is folded. */
  detail?: (row: Row) => ReactNode;
  /** A caption for screen readers only. */
  caption?: string;
  /** The table's accessible name, when the heading above it does not give one. */
  label?: string;
  className?: string;
  bare?: boolean;
  plain?: boolean;
}) {
  const table = (
    <ScrollArea
      className={plain ? "table-scroll table-scroll-plain" : "table-scroll"}
      label={label ?? caption}
    >
      <table className={className ? `table ${className}` : "table"} aria-label={label}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th
                // biome-ignore lint/suspicious/noArrayIndexKey: columns are static per table
                key={i}
                scope="col"
                className={classes(column as Column<never>)}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const unfolded = detail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr {...rowProps?.(row)}>
                  {columns.map((column, i) => {
                    const Cell = column.rowHeader ? "th" : "td";
                    return (
                      <Cell
                        // biome-ignore lint/suspicious/noArrayIndexKey: columns are static per table
                        key={i}
                        scope={column.rowHeader ? "row" : undefined}
                        className={classes(column as Column<never>)}
                        data-testid={column.testId}
                      >
                        {column.cell(row)}
                      </Cell>
                    );
                  })}
                </tr>
                {unfolded && (
                  <tr>
                    <td colSpan={columns.length}>{unfolded}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </ScrollArea>
  );
  return bare || plain ? table : <div className="card table-card">{table}</div>;
}

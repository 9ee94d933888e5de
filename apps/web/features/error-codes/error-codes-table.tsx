import { ERROR_CODES, type ErrorCode } from "@rubricon/contracts";
import { DataTable } from "@/ui";

const ROWS = (Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][]).sort(
  ([a, x], [b, y]) => x.status - y.status || a.localeCompare(b),
);

/** Inline code spans in a summary (`like this`), as the reference's other text shows them. */
function Summary({ text }: { text: string }) {
  return (
    <>
      {text.split(/(`[^`]+`)/).map((part, i) =>
        part.startsWith("`") ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of a fixed sentence
          <code key={i}>{part.slice(1, -1)}</code>
        ) : (
          part
        ),
      )}
    </>
  );
}

/**
 * Every error code the API answers, from the one registry in `@rubricon/contracts`. Each row's id is its code, so
 * an error's `doc_url` (`/docs/errors#<code>`) lands on it.
 */
export function ErrorCodesTable() {
  return (
    <DataTable
      className="error-codes"
      caption="Error codes"
      rows={ROWS}
      rowKey={([code]) => code}
      rowProps={([code]) => ({ id: code })}
      columns={[
        {
          header: "Code",
          rowHeader: true,
          cell: ([code]) => (
            <a href={`#${code}`}>
              <code>{code}</code>
            </a>
          ),
        },
        { header: "Type", cell: ([, entry]) => <code>{entry.type}</code> },
        { header: "HTTP", numeric: true, cell: ([, entry]) => entry.status },
        { header: "Meaning", cell: ([, entry]) => <Summary text={entry.summary} /> },
      ]}
    />
  );
}

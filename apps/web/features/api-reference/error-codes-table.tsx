import { ERROR_CODES, type ErrorCode } from "@rubricon/contracts";

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
    <div className="card table-card">
      <div className="table-scroll">
        <table className="table error-codes">
          <caption className="visually-hidden">Error codes</caption>
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">Type</th>
              <th scope="col" className="num">
                HTTP
              </th>
              <th scope="col">Meaning</th>
            </tr>
          </thead>
          <tbody>
            {ROWS.map(([code, entry]) => (
              <tr key={code} id={code}>
                <th scope="row">
                  <a href={`#${code}`}>
                    <code>{code}</code>
                  </a>
                </th>
                <td>
                  <code>{entry.type}</code>
                </td>
                <td className="num">{entry.status}</td>
                <td>
                  <Summary text={entry.summary} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

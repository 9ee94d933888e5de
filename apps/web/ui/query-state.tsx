import type { ReactNode } from "react";
import { FormError } from "./form-error";
import { Loading } from "./loading";

interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
}

/**
 * The three states before a query's data can be shown: loading, failed, empty. `children` renders only with data
 * that is not empty, so pages stop repeating the same four conditions.
 */
export function QueryState<T>({
  query,
  loading = "Loading…",
  isEmpty,
  empty,
  children,
}: {
  query: QueryLike<T>;
  /** What is loading, e.g. "Loading evaluations…". */
  loading?: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading>{loading}</Loading>;
  if (query.isError) return <FormError error={query.error} />;
  if (query.data === undefined) return null;
  if (isEmpty?.(query.data)) return <>{empty ?? null}</>;
  return <>{children(query.data)}</>;
}

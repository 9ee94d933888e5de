import { errorMessage } from "@/lib/errors";

/** An error the user must see, announced to screen readers; nothing when there is none. */
export function FormError({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const message = typeof error === "string" ? error : errorMessage(error);
  return (
    <p className="alert alert-error" role="alert" id={id}>
      {message}
    </p>
  );
}

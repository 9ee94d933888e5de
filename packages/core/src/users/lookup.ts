import type { CoreContext } from "../shared/context";
import { ApiError } from "../shared/errors";
import { findPersonByEmail } from "../shares/people";

/**
 * `GET /users/lookup?email=`: the user with exactly this email, to share with. It answers no more than id, name
 * and email, and only an exact address: there is no search, so it cannot list who has an account.
 */
export async function lookupUser(ctx: CoreContext, email: string) {
  const person = await findPersonByEmail(ctx.db, email);
  if (!person) throw new ApiError("user_not_found", `No user has the email ${email}.`, { param: "email" });
  return { object: "user" as const, id: person.id, name: person.name, email: person.email };
}

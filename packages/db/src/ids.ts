import { createId } from "@paralleldrive/cuid2";
import { ID_PREFIXES, type IdKind } from "@rubricon/contracts";

/** The one maker of ids: a typed prefix and a cuid2 body, e.g. `eval_k3j2...`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${createId()}`;
}

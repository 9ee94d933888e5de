import { z } from "zod";

/**
 * Query of every list route. Query strings are text, so `limit` is coerced; the two cursors exclude each other.
 * `.meta()` sits inside `.optional()` so the OpenAPI document keeps the descriptions.
 */
export const PageQueryShape = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .meta({ description: "Page size, 1 to 100.", default: 20 })
    .optional(),
  starting_after: z
    .string()
    .min(1)
    .max(100)
    .meta({
      description:
        "Return items strictly after this id (next page). Not with `ending_before` or `cursor` (400).",
    })
    .optional(),
  ending_before: z
    .string()
    .min(1)
    .max(100)
    .meta({
      description:
        "Return items strictly before this id (previous page). Not with `starting_after` or `cursor` (400).",
    })
    .optional(),
  cursor: z
    .string()
    .min(1)
    .max(100)
    .meta({
      description:
        "Deprecated alias of `starting_after`; sunset 2027-04-04. Not with `starting_after` or `ending_before` (400).",
      deprecated: true,
    })
    .optional(),
};

export const PageQuery = z.object(PageQueryShape);
export type PageQuery = z.infer<typeof PageQuery>;

/** Adds the cursor rules to a list query schema, naming the offending parameter in the issue path. */
export function withCursorRules<T extends z.ZodObject<typeof PageQueryShape & z.ZodRawShape>>(schema: T) {
  return schema.superRefine((q, ctx) => {
    const v = q as PageQuery;
    if (v.starting_after !== undefined && v.ending_before !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["ending_before"],
        message: "`starting_after` and `ending_before` cannot be used together.",
      });
    }
    if (v.cursor !== undefined && (v.starting_after !== undefined || v.ending_before !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["cursor"],
        message: "`cursor` cannot be combined with `starting_after` or `ending_before`.",
      });
    }
  });
}

function listShape<T extends z.ZodType>(item: T) {
  return {
    object: z.literal("list"),
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z
      .string()
      .meta({
        description: "Id of the last item of the page; pass it as `starting_after`. Absent on an empty page.",
      })
      .optional(),
  };
}
const TotalCount = z.number().int().optional();
type ListShape<T extends z.ZodType> = ReturnType<typeof listShape<T>>;

/** A list page of `item`s; the overloads let a list with a total type its `total_count`. */
export function listOf<T extends z.ZodType>(
  item: T,
  id: string,
  withTotal: true,
): z.ZodObject<ListShape<T> & { total_count: typeof TotalCount }>;
export function listOf<T extends z.ZodType>(
  item: T,
  id: string,
  withTotal?: false,
): z.ZodObject<ListShape<T>>;
export function listOf<T extends z.ZodType>(item: T, id: string, withTotal = false) {
  const shape = listShape(item);
  return (withTotal ? z.object({ ...shape, total_count: TotalCount }) : z.object(shape)).meta({ id });
}

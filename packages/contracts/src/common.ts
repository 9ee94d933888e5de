import { z } from "zod";

export const DateTime = z.string().meta({ format: "date-time", example: "2026-11-22T10:00:00.000Z" });

export const DeletedObject = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: "DeletedObject", description: "Answer of every DELETE." });

/** Path parameter `{id}` of every resource route: ids are prefixed cuids or readable slugs such as `overall`. */
export const IdParam = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, "ids contain only letters, digits, `_` and `-`");

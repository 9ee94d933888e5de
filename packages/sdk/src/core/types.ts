/** The JSON request body of an operation of the generated `paths` type. */
export type Body<Op> = Op extends { requestBody?: infer R }
  ? NonNullable<R> extends { content: { "application/json": infer B } }
    ? B
    : never
  : never;

/** The query parameters of an operation. */
export type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206;

/**
 * The body of any 2xx response of an operation: parsed JSON, the text of another content type, or
 * `undefined` when the response has no body.
 */
export type Success<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: BodyOf<R[S]> }[keyof R & SuccessStatus]
  : never;

type BodyOf<Response> = Response extends { content: { "application/json": infer T } }
  ? T
  : Response extends { content: object }
    ? string
    : undefined;

// Apart from the API reference: a page importing that feature's index would load Scalar's stylesheet with it.
export { ErrorCodesTable } from "./error-codes-table";

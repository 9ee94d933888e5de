export { ApiReference } from "./api-reference";
export { ErrorCodesTable } from "./error-codes-table";

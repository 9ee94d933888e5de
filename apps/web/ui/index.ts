export { Badge, type Tone } from "./badge";
export { ConfirmProvider, useConfirm } from "./confirm-dialog";
export { type Column, DataTable } from "./data-table";
export { Field } from "./field";
export { FormError } from "./form-error";
export { PageHeader } from "./page-header";
export { QueryState } from "./query-state";

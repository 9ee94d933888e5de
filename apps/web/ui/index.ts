export { Badge, type Tone } from "./badge";
export { ConfirmProvider, useConfirm } from "./confirm-dialog";
export { ACTIONS_HEADER, type Column, DataTable, type RowProps } from "./data-table";
export { type ControlProps, Field, FieldError, FieldRow, FieldSet } from "./field";
export { FormError } from "./form-error";
export { Loading } from "./loading";
export { PageHeader } from "./page-header";
export { QueryState } from "./query-state";
export { ScrollArea } from "./scroll-area";

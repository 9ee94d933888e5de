export { TemplateCreate, TemplateDetail } from "./template-detail";
export { TemplateList } from "./template-list";

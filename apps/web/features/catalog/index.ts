export {
  CatalogBreadcrumb,
  CatalogCreatePage,
  CatalogDetailActions,
  CatalogName,
  CatalogRowActions,
  CatalogUpdated,
  SystemNote,
} from "./catalog-parts";
export { type CatalogActions, type CatalogResource, useCatalogActions } from "./use-catalog-actions";

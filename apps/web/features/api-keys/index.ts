export { ApiKeysPanel } from "./api-keys-panel";

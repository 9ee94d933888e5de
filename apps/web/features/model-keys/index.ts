export { ModelKeysPanel } from "./model-keys-panel";

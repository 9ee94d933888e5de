export { ConnectedAppsPanel } from "./connected-apps-panel";
export { OAuthConsent } from "./oauth-consent";
export { PairPlugin } from "./pair-plugin";

export { MembersPanel } from "./members-panel";

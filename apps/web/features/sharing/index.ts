export { AcceptInvite } from "./accept-invite";
export { AccessRequestInbox } from "./access-request-inbox";

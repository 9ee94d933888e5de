export { BuilderChat } from "./builder-chat";
export { ConversationList } from "./conversation-list";

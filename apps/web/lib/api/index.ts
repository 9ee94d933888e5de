export { ApiError, type ApiRequestInit, apiRequest, apiResponse, readApiError } from "./rest";
export {
  parseEventBlock,
  readEventStream,
  type ServerEvent,
  type StreamConnection,
  subscribeEvents,
} from "./sse";

/**
 * Provider-neutral model request/response contracts. They live in `@aeh/models` (the ModelProvider interface
 * speaks them); re-exported here so soclab code and users find every contract in one place.
 */
export {
  Message,
  type MessageInput,
  ModelRequest,
  type ModelRequestInput,
  ModelResponse,
  ToolCall,
  ToolSpec,
} from '@aeh/models';

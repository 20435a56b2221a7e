export { generateTools, toJsonSchema, type ArgumentLocation, type JsonSchema, type McpAnnotation, type ToolDefinition } from './generate.js';
export { clientCaller } from './client-caller.js';
export { createPersonaMcpServer, requestFor, toolError, type ApiAnswer, type ApiCaller, type ApiRequest, type PersonaMcpOptions } from './server.js';
export { loadTools, PACKAGE_VERSION } from './tools.js';

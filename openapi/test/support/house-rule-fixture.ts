// A small API that follows every house rule: the passing document of the rule tests. Each test clones
// it and breaks one thing.
const json = (schema: object, extra: object = {}) => ({ 'application/json': { schema, ...extra } });
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const errorResponse = (description: string) => ({ description, content: json(ref('schemas', 'ErrorResponse')) });
const commonErrors = {
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'TooManyRequests'),
  default: ref('responses', 'UnexpectedError'),
};
const string = (maxLength = 100) => ({ type: 'string', maxLength });

export function passingDocument(): Record<string, any> {
  return structuredClone({
    openapi: '3.1.0',
    info: { title: 'Fixture', version: '1.0.0', description: 'Rule fixture.', contact: { name: 'Team' } },
    servers: [{ url: 'https://api.fixture.example/api/v1' }],
    security: [{ BearerAuth: [] }],
    tags: [{ name: 'Widgets', description: 'Widgets.' }],
    paths: {
      '/widgets': {
        get: {
          operationId: 'listWidgets',
          summary: 'List widgets',
          description: 'Lists widgets.',
          tags: ['Widgets'],
          parameters: [ref('parameters', 'Limit'), ref('parameters', 'Cursor'), { name: 'name_prefix', in: 'query', description: 'Filter.', schema: string() }],
          responses: { '200': { description: 'A page.', content: json(ref('schemas', 'WidgetList')) }, ...commonErrors },
        },
        post: {
          operationId: 'createWidget',
          summary: 'Create a widget',
          description: 'Creates a widget.',
          tags: ['Widgets'],
          parameters: [{ name: 'Idempotency-Key', in: 'header', description: 'Retry key.', schema: string(255) }],
          requestBody: { required: true, content: json(ref('schemas', 'WidgetCreateRequest')) },
          responses: {
            '200': { description: 'The widget.', content: json(ref('schemas', 'Widget')) },
            '404': errorResponse('Not found.'),
            ...commonErrors,
          },
        },
      },
      '/widgets/{id}': {
        parameters: [ref('parameters', 'Id')],
        get: {
          operationId: 'getWidget',
          summary: 'Get a widget',
          description: 'Reads a widget.',
          tags: ['Widgets'],
          responses: { '200': { description: 'The widget.', content: json(ref('schemas', 'Widget')) }, ...commonErrors },
        },
      },
      '/widgets/{id}/suggestions': {
        parameters: [ref('parameters', 'Id')],
        post: {
          operationId: 'suggestWidgets',
          summary: 'Suggest widgets',
          description: 'A complete list, not paginated.',
          tags: ['Widgets'],
          responses: { '200': { description: 'Suggestions.', content: json(ref('schemas', 'WidgetSuggestionList')) }, ...commonErrors },
        },
      },
      '/widgets/{id}/stream': {
        parameters: [ref('parameters', 'Id')],
        post: {
          operationId: 'streamWidget',
          summary: 'Stream a widget',
          description: 'Server-Sent Events.',
          tags: ['Widgets'],
          responses: {
            '200': {
              description: 'The stream.',
              content: {
                'text/event-stream': {
                  schema: ref('schemas', 'WidgetEvent'),
                  examples: { stream: { value: 'event: widget.created\ndata: {"type":"widget.created"}\n\ndata: [DONE]\n\n' } },
                },
              },
            },
            ...commonErrors,
          },
        },
      },
      '/upload-url': {
        post: {
          operationId: 'createUploadUrl',
          summary: 'Create an upload URL',
          description: 'Presigned upload.',
          tags: ['Widgets'],
          responses: { '200': { description: 'The URL.', content: json(ref('schemas', 'UploadUrl')) }, ...commonErrors },
        },
      },
    },
    components: {
      securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer' } },
      parameters: {
        Id: { name: 'id', in: 'path', required: true, description: 'Id.', schema: string(64) },
        Limit: { name: 'limit', in: 'query', description: 'Page size.', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 50 } },
        Cursor: { name: 'cursor', in: 'query', description: 'Next page.', schema: string(512) },
      },
      responses: {
        Unauthorized: {
          description: 'Bad key.',
          content: json(ref('schemas', 'ErrorResponse')),
        },
        TooManyRequests: {
          description: 'Slow down.',
          headers: { 'Retry-After': { description: 'Seconds.', schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 3600 } } },
          content: json(ref('schemas', 'ErrorResponse')),
        },
        UnexpectedError: errorResponse('Anything else.'),
      },
      schemas: {
        ErrorResponse: { type: 'object', required: ['error'], properties: { error: ref('schemas', 'ErrorObject') } },
        ErrorObject: {
          type: 'object',
          required: ['message', 'type', 'code', 'param'],
          properties: {
            message: string(2000),
            type: { type: 'string', enum: ['invalid_request_error', 'api_error'] },
            code: { type: 'string', enum: ['invalid_parameter', 'internal_error'] },
            param: { type: ['string', 'null'], maxLength: 200 },
          },
        },
        ListEnvelope: {
          type: 'object',
          required: ['object', 'has_more', 'next_cursor'],
          properties: {
            object: { type: 'string', const: 'list' },
            has_more: { type: 'boolean' },
            next_cursor: { type: ['string', 'null'], maxLength: 512 },
          },
        },
        Widget: {
          type: 'object',
          required: ['id', 'object', 'name', 'created_at'],
          properties: {
            id: string(64),
            object: { type: 'string', const: 'widget' },
            name: string(),
            tags: { type: 'array', maxItems: 10, items: string(50) },
            metadata: { type: 'object', maxProperties: 16, additionalProperties: string(500) },
            parameters: { type: 'object', 'x-free-form': true, maxProperties: 64, description: 'A JSON Schema.' },
            value: { 'x-free-form': true, description: 'Any JSON value.' },
            created_at: { type: 'string', format: 'date-time' },
          },
        },
        WidgetList: {
          allOf: [
            ref('schemas', 'ListEnvelope'),
            { type: 'object', required: ['data'], properties: { data: { type: 'array', maxItems: 100, items: ref('schemas', 'Widget') } } },
          ],
        },
        WidgetCreateRequest: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: string() },
        },
        WidgetSuggestionList: {
          type: 'object',
          'x-unpaginated-list': true,
          required: ['object', 'data'],
          properties: {
            object: { type: 'string', const: 'list' },
            data: { type: 'array', maxItems: 10, items: ref('schemas', 'Widget') },
          },
        },
        WidgetEvent: { type: 'object', required: ['type'], properties: { type: { type: 'string', const: 'widget.created' } } },
        UploadUrl: {
          type: 'object',
          required: ['upload_url', 'headers'],
          properties: {
            upload_url: { type: 'string', format: 'uri', maxLength: 2048 },
            headers: {
              type: 'object',
              required: ['Content-Type', 'x-storage-checksum-sha256'],
              additionalProperties: false,
              properties: { 'Content-Type': string(255), 'x-storage-checksum-sha256': string(64) },
            },
          },
        },
      },
    },
  });
}

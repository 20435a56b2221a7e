// Everything here is generated from openapi/dist/openapi.yaml by openapi-typescript (`pnpm build`):
// `paths`, `components`, `operations`, and one alias per schema (`Workspace`, `ResponseObject`, …).
export type * from './generated/openapi.js';

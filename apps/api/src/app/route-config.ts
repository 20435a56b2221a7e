import type { FastifyRequest } from 'fastify';

/** What each contract route carries in its Fastify config. */
export interface RouteConfig {
  operationId: string;
}

/** The operationId of the contract route a request matched, if any. */
export const operationIdOf = (request: FastifyRequest): string | undefined => (request.routeOptions.config as Partial<RouteConfig> | undefined)?.operationId;

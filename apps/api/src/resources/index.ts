import type { HandlerMap, OperationId } from '../contract/handler-types.js';
import { errors } from '../http/errors.js';
import { agentModule } from './agent/index.js';
import { brandVoicesModule } from './brand-voices/index.js';
import { chatModule } from './chat/index.js';
import { consoleModule } from './console/index.js';
import { meetingsModule } from './meetings/index.js';
import { meetingSchemasModule } from './meeting-schemas/index.js';
import { focusGroupsModule } from './focus-groups/index.js';
import { newsModule } from './news/index.js';
import { filesModule } from './files/index.js';
import { foldersModule } from './folders/index.js';
import { generationsModule } from './generations/index.js';
import { modelsModule } from './models/index.js';
import type { ResourceModule } from './module.js';
import { personasModule } from './personas/index.js';
import { projectsModule } from './projects/index.js';
import { responsesModule } from './responses/index.js';
import { conversationsModule } from './conversations/index.js';
import { usageModule } from './usage/index.js';
import { videoAnalysesModule } from './video-analyses/index.js';
import { workspacesModule } from './workspaces/index.js';

/** For an operation whose issue has not landed: 501 `not_implemented` in the error envelope. */
export const notImplemented = async (): Promise<never> => {
  throw errors.notImplemented();
};

/** Every built resource of the contract, one line each. A new resource is a folder and a line here. */
export const resourceModules = [
  workspacesModule,
  projectsModule,
  personasModule,
  modelsModule,
  responsesModule,
  conversationsModule,
  chatModule,
  usageModule,
  videoAnalysesModule,
  meetingsModule,
  meetingSchemasModule,
  focusGroupsModule,
  newsModule,
  filesModule,
  foldersModule,
  brandVoicesModule,
  generationsModule,
  agentModule,
  consoleModule,
] as const satisfies readonly ResourceModule<any>[];

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;
export type BuiltHandlers = UnionToIntersection<(typeof resourceModules)[number]['handlers']>;

/**
 * `true` when no operation is both built by a module and listed in `NotBuiltMap`; otherwise an object type
 * naming the operations, so assigning `true` to it is a tsc error. (`satisfies` alone cannot catch it: once
 * every operation is built, the map it checks against is `{}`, and `{}` takes any extra entry.)
 */
export type NotBuiltGuard<NotBuiltMap, Built> = [Extract<keyof NotBuiltMap, keyof Built>] extends [never]
  ? true
  : { builtByAModuleAndStillInNotBuilt: Extract<keyof NotBuiltMap, keyof Built> };

/**
 * The operations no module builds yet, answered with 501 until their issues land: exactly the rest of the
 * contract. A missing one is a tsc error (`satisfies`), and so is one a module builds (`notBuiltGuard`).
 */
const notBuilt = {} satisfies { [Operation in Exclude<OperationId, keyof BuiltHandlers>]: typeof notImplemented };
export const notBuiltGuard: NotBuiltGuard<typeof notBuilt, BuiltHandlers> = true;

/**
 * One handler per operationId of the contract, composed from the modules. `satisfies HandlerMap` makes
 * a missing, extra or wrongly typed entry a tsc error.
 */
export const handlers = { ...notBuilt, ...(Object.assign({}, ...resourceModules.map((module) => module.handlers)) as BuiltHandlers) } satisfies HandlerMap;

// Fastify compiles every route's request validators (Ajv) and response serializers (fast-json-stringify)
// before it listens: for this contract 2.2 s of a PGlite restart's 13 s in a CPU profile on a loaded machine
// (bench/README.md, "Cold start"), paid again by every test file's app. Deferred, each compiles at its first
// use; a server compiles the rest right after it listens (warmUp), one per turn of the event loop, so few
// first requests wait on one.
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';

type Serializer = (data: unknown) => string;

export class DeferredCompiles {
  readonly #pending = new Set<() => void>();

  /** How many validators and serializers are not compiled yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** `compile` run at the validator's first call; the returned function reports its `errors` as Ajv's does. */
  validator(compile: () => ValidateFunction): ValidateFunction {
    const compiled = this.#defer(compile);
    const deferred = ((data: unknown) => {
      const validate = compiled();
      const valid = validate(data);
      deferred.errors = validate.errors ?? null;
      return valid;
    }) as ValidateFunction;
    return deferred;
  }

  /** `compile` run at the serializer's first call. */
  serializer(compile: () => Serializer): Serializer {
    const compiled = this.#defer(compile);
    return (data) => compiled()(data);
  }

  /** `compile`'s result, made at the first call (by a request or the warm-up) and kept. */
  #defer<T>(compile: () => T): () => T {
    let result: T | undefined;
    const ensure = () => {
      if (result === undefined) {
        this.#pending.delete(ensure);
        result = compile();
      }
      return result;
    };
    this.#pending.add(ensure);
    return ensure;
  }

  /**
   * Fastify's `schemaController.compilersFactory.buildSerializer`: its default (fast-json-stringify with the
   * instance's shared schemas), each route's serializer deferred.
   */
  serializerFactory(): SerializerFactory {
    const defaultFactory = SerializerSelector();
    return (externalSchemas, options) => {
      const build = defaultFactory(externalSchemas, options);
      return (route) => this.serializer(() => build(route));
    };
  }

  /**
   * Compiles what has not been used yet, one per turn of the event loop, until none is left or `stopped()`
   * says so; the number compiled. A schema that fails to compile throws here as at its first use.
   */
  async warmUp(stopped: () => boolean = () => false): Promise<number> {
    let count = 0;
    for (const compile of this.#pending) {
      if (stopped()) break;
      await new Promise((resolve) => setImmediate(resolve));
      if (!this.#pending.has(compile)) continue;
      compile();
      count += 1;
    }
    return count;
  }
}

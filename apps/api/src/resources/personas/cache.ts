import type { EnginePersona } from '@persona-api/engine';
import { LRUCache } from 'lru-cache';
import type { Executor } from '../../db/client.js';
import { changeChannel } from '../../lib/change-channel.js';

/**
 * The channel every change that can alter what a custom persona says, or who may use it, is announced on:
 * a persona updated or deleted, a member removed, a workspace deleted (its personas and members go).
 */
export const personasChannel = changeChannel('personas_changed');

/** Announces, in the caller's transaction, that cached custom personas must be read again (sent at commit). */
export const announcePersonasChanged = (tx: Executor): Promise<void> => personasChannel.announce(tx);

/** Call after the transaction that announced a change has committed: this instance forgets at once. */
export const personasChangedHere = (): void => personasChannel.changedHere();

/** How long a custom persona is used without a read, when no change is announced meanwhile. */
export const PERSONA_CACHE_MS = 30_000;

export interface CachedPersona {
  id: string;
  persona: EnginePersona;
}

/**
 * Custom personas a model call answers as, by user and id, so a call with one is the hold and the
 * settlement only (issue 23). A change is announced on personasChannel (pg_notify, heard by every
 * instance once it commits) and empties the cache; the time bound covers a lost
 * notification. A read that began before a change is not stored after it (`generation`), so a persona
 * read just before its member was removed is not kept for the whole time bound.
 */
export class PersonaCache {
  private readonly entries: LRUCache<string, CachedPersona>;
  private generation = 0;

  constructor(ttlMs = PERSONA_CACHE_MS) {
    this.entries = new LRUCache({ max: 10_000, ttl: ttlMs });
  }

  async get(userId: string, id: string, read: () => Promise<CachedPersona>): Promise<CachedPersona> {
    const key = `${userId}\u0000${id}`;
    const cached = this.entries.get(key);
    if (cached) return cached;
    const startedAt = this.generation;
    const found = await read();
    if (this.generation === startedAt) this.entries.set(key, found);
    return found;
  }

  forget(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

/** One cache per database a server runs on (tests run several servers in one process); made by the server. */
const caches = new WeakMap<object, PersonaCache>();

/** The cache of `db`, made on first use: buildApp calls it, and subscribes to personasChannel to empty it. */
export function personaCacheFor(db: object): PersonaCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new PersonaCache();
    caches.set(db, cache);
  }
  return cache;
}

/** The cache of `db` if a server made one; a transaction or the admin CLI has none and reads each time. */
export const personaCacheOf = (db: object): PersonaCache | undefined => caches.get(db);

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { grantCredits } from '../billing/credits.js';
import { reconcile } from '../billing/reconcile.js';
import { ConfigError, loadConfig, publicBaseUrl } from '../config.js';
import type { Database } from '../db/client.js';
import { openConfiguredDatabase } from '../db/open.js';
import { autovacuumMissing, vacuumTablesDue } from '../db/upkeep.js';
import { TIER_IDS, type TierId } from '../db/seed.js';
import { eq } from 'drizzle-orm';
import { addNewsFeeds } from '../resources/news/feeds.js';
import { newsFeeds } from '../resources/news/table.js';
import {
  consoleSetupLink,
  createAccount,
  createApiKey,
  createConsoleSetupToken,
  createWorkspaceFor,
  listAccounts,
  listApiKeys,
  revokeApiKey,
  setTier,
} from './accounts.js';

const USAGE = `Usage: pnpm --filter @persona-api/api admin <command> [options]

  accounts create --email <email> [--name <name>] [--tier starter|basic|professional|enterprise] [--credits <n>]
                  [--workspace <name>]       an account with its user, a first workspace and an API key
  accounts list
  accounts set-tier <account_id> --tier <tier>
  credits grant <account_id> --amount <n> [--reason <text>]
  workspaces create <account_id> --name <name> [--type enterprise|marketing_agency|user|starter]
  keys create <account_id> [--name <name>]    prints the new key once
  keys list [<account_id>]                    the keys people made, and live console browser keys
  keys revoke <key_id>
  console invite <account_id> [--email <email>]
                                             a one-time link (72 hours) to set a console password: the
                                             account owner's, or a new member's with --email
  news add-feed <url>                        a feed (RSS, Atom, JSON Feed) for the news.poll job
  news remove-feed <url>
  news list-feeds                            each feed with its last poll and error
  usage reconcile                            checks the usage counters against the credit ledger, and the counts,
                                             stored bytes and transcription minutes against their rows; exits 1
                                             on a mismatch
  db upkeep                                  on PGlite, vacuums and analyses the tables due now (the db.upkeep
                                             job's work, e.g. after a bulk import); on PostgreSQL autovacuum does

The database is the server's: DATABASE_URL (PostgreSQL), else PGlite in DATA_DIR (default .data/,
which the server must not be using at the same time).`;

export class UsageError extends Error {}

const WORKSPACE_TYPES = ['enterprise', 'marketing_agency', 'user', 'starter'] as const;

function tierOf(value: string | undefined, fallback?: TierId): TierId {
  const tier = value ?? fallback;
  if (!tier || !(TIER_IDS as readonly string[]).includes(tier)) throw new UsageError(`--tier must be one of ${TIER_IDS.join(', ')}`);
  return tier as TierId;
}

function wholeNumber(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (value === undefined || !Number.isSafeInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number of credits`);
  return n;
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

function parseOptions(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        tier: { type: 'string' },
        credits: { type: 'string' },
        amount: { type: 'string' },
        reason: { type: 'string' },
        type: { type: 'string' },
        workspace: { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Runs one admin command against `db`, writing human-readable lines to `out`. */
export async function runAdmin(argv: string[], db: Database, out: (line: string) => void, linkBase = 'http://localhost:8080/api/v1'): Promise<void> {
  const { values, positionals } = parseOptions(argv);
  const [group, action, target] = positionals;
  switch (`${group} ${action}`) {
    case 'accounts create': {
      const email = required(values.email, '--email');
      const tier = tierOf(values.tier, 'starter');
      const credits = wholeNumber(values.credits, '--credits', 0);
      const { accountId } = await createAccount(db, { name: values.name ?? email, email, tier, credits });
      const workspaceId = await createWorkspaceFor(db, { accountId, name: values.workspace ?? 'Default' });
      const { id, key } = await createApiKey(db, { accountId, name: 'Default key' });
      out(`account   ${accountId}  (${tier}, ${credits} credits)`);
      out(`workspace ${workspaceId}`);
      out(`key       ${id}`);
      out(`\nAPI key (shown once, only its hash is stored):\n  ${key}`);
      return;
    }
    case 'accounts list': {
      for (const account of await listAccounts(db)) {
        out(`${account.id}  ${account.tier.padEnd(12)} ${String(account.creditBalance).padStart(10)} credits  ${account.email ?? ''}  ${account.name}`);
      }
      return;
    }
    case 'accounts set-tier': {
      const accountId = required(target, 'account id');
      const tier = tierOf(values.tier);
      if (!(await setTier(db, accountId, tier))) throw new UsageError(`No account ${accountId}`);
      out(`${accountId} is now on the ${tier} tier`);
      return;
    }
    case 'credits grant': {
      const accountId = required(target, 'account id');
      const amount = wholeNumber(values.amount, '--amount');
      if (amount === 0) throw new UsageError('--amount must be at least 1');
      const balance = await grantCredits(db, { accountId, amount, description: values.reason ?? 'Granted by an administrator', now: new Date() });
      out(`granted ${amount} credits to ${accountId}; balance ${balance}`);
      return;
    }
    case 'workspaces create': {
      const accountId = required(target, 'account id');
      const type = values.type ?? 'user';
      if (!(WORKSPACE_TYPES as readonly string[]).includes(type)) throw new UsageError(`--type must be one of ${WORKSPACE_TYPES.join(', ')}`);
      const id = await createWorkspaceFor(db, {
        accountId,
        name: required(values.name, '--name'),
        type: type as (typeof WORKSPACE_TYPES)[number],
      });
      out(`workspace ${id}`);
      return;
    }
    case 'keys create': {
      const accountId = required(target, 'account id');
      const { id, key } = await createApiKey(db, { accountId, name: values.name ?? 'API key' });
      out(`key ${id}\n\nAPI key (shown once, only its hash is stored):\n  ${key}`);
      return;
    }
    case 'keys list': {
      for (const key of await listApiKeys(db, target)) {
        const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
        out(`${key.id}  ${key.keyPrefix}…  ${key.accountId}  ${state.padEnd(32)} ${key.name}`);
      }
      return;
    }
    case 'keys revoke': {
      const keyId = required(target, 'key id');
      if (!(await revokeApiKey(db, keyId))) throw new UsageError(`No active key ${keyId}`);
      out(`revoked ${keyId}`);
      return;
    }
    case 'console invite': {
      const accountId = required(target, 'account id');
      if (!(await listAccounts(db)).some((account) => account.id === accountId)) throw new UsageError(`No account ${accountId}`);
      const { userId, token } = await createConsoleSetupToken(db, { accountId, email: values.email });
      out(`user ${userId}\n\nOne-time console setup link (works once, for 72 hours):\n  ${consoleSetupLink(linkBase, token)}`);
      return;
    }
    case 'news add-feed': {
      const url = required(target, 'feed url');
      if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError('the feed url must start with http:// or https://');
      await addNewsFeeds(db, [url], new Date());
      out(`feed ${url} will be polled every 15 minutes`);
      return;
    }
    case 'news remove-feed': {
      const url = required(target, 'feed url');
      const removed = await db.delete(newsFeeds).where(eq(newsFeeds.url, url)).returning({ url: newsFeeds.url });
      if (removed.length === 0) throw new UsageError(`No feed ${url}`);
      out(`removed ${url}`);
      return;
    }
    case 'news list-feeds': {
      for (const feed of await db.select().from(newsFeeds).orderBy(newsFeeds.url)) {
        out(
          `${feed.url}  ${feed.lastPolledAt ? `polled ${feed.lastPolledAt.toISOString()}` : 'not polled yet'}${feed.lastError ? `  error: ${feed.lastError}` : ''}`,
        );
      }
      return;
    }
    case 'usage reconcile': {
      const { usage: mismatches, counts } = await reconcile(db);
      for (const m of mismatches) out(`${m.scope} ${m.scopeId} ${m.day}: ledger ${m.ledger}, counter ${m.counter}`);
      for (const m of counts) out(`${m.counter} ${m.id}: counted ${m.counted}, counter ${m.stored}`);
      const failures = [
        ...(mismatches.length > 0 ? [`${mismatches.length} usage counters differ from the ledger`] : []),
        ...(counts.length > 0 ? [`${counts.length} counters differ from their rows`] : []),
      ];
      if (failures.length > 0) throw new Error(failures.join('; '));
      out('usage counters match the ledger');
      out('counters match their rows');
      return;
    }
    case 'db upkeep': {
      if (!(await autovacuumMissing(db))) {
        out('autovacuum is not missing here (PostgreSQL): nothing to do');
        return;
      }
      const done = await vacuumTablesDue(db);
      for (const due of done) out(`${due.vacuum ? (due.analyze ? 'vacuumed and analysed' : 'vacuumed') : 'analysed'} ${due.schema}.${due.table}`);
      out(done.length > 0 ? `${done.length} tables done` : 'no table is due');
      return;
    }
    default:
      throw new UsageError(group ? `Unknown command: ${positionals.join(' ')}` : 'No command given');
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  const database = await openConfiguredDatabase(config, 'persona-api admin');
  try {
    await runAdmin(argv, database.db, (line) => process.stdout.write(`${line}\n`), publicBaseUrl(config));
  } finally {
    await database.close();
  }
}

const invokedDirectly = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main().catch((err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}\n`);
    else if (err instanceof ConfigError || err instanceof Error) process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  });
}

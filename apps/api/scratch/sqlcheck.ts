import { drizzle } from 'drizzle-orm/pglite';
import { sql, eq } from 'drizzle-orm';
import { projects, workspaces } from '../src/db/schema/index.js';
const db = drizzle.mock();
console.log(db.select({ n: db.$count(projects, eq(projects.workspaceId, workspaces.id)) }).from(workspaces).where(eq(workspaces.id, 'x')).toSQL().sql);

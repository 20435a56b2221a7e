import { timestamp } from 'drizzle-orm/pg-core';

/**
 * Millisecond timestamps: JavaScript Dates and list cursors carry milliseconds, so a column with
 * PostgreSQL's default microseconds would break keyset comparisons on round trip.
 */
export const timestampMs = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

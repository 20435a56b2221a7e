import type { PersonaDetails } from '@persona-api/types';
import { eq, or } from 'drizzle-orm';
import { personas } from '../../resources/personas/table.js';
import { clipText, overlap, queryStems } from './ranking.js';
import { SOURCES_PER_SEARCH, type ResearchTool } from './types.js';

/** The profile fields a persona search reads, as prose. */
function profileText(details: PersonaDetails): string {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(details as Record<string, unknown>)) {
    if (typeof value === 'string' && value.trim()) parts.push(`${field.replace(/_/g, ' ')}: ${value}`);
    else if (Array.isArray(value) && value.length > 0)
      parts.push(`${field.replace(/_/g, ' ')}: ${value.filter((item) => typeof item === 'string').join('; ')}`);
  }
  // A field per line: the research answer quotes a labelled list one item at a time (its items may hold a
  // sentence end, "6 a.m. starts").
  return parts.join('\n');
}

/** A persona source's address: the persona's API address (what the reader opens). */
const personaSourceUrl = (baseUrl: string, id: string) => `${baseUrl}/personas/${id}`;

/** Whether a found source is a persona's profile, read from the address personaSourceUrl gave it. */
export const isPersonaSourceUrl = (url: string): boolean => /\/personas\/[^/?#]+$/.test(url);

/** The base catalog and the workspace's custom personas, ranked by the query's word stems in name, description and profile. */
export const personaSearch: ResearchTool = {
  name: 'persona_search',
  description: "Search the personas (the base catalog and the workspace's custom personas) by who they are, their goals, pains and habits.",
  async run({ db, services, workspaceId }, query) {
    const rows = await db
      .select({ id: personas.id, name: personas.name, category: personas.category, description: personas.description, details: personas.details })
      .from(personas)
      .where(workspaceId ? or(eq(personas.isCustom, false), eq(personas.workspaceId, workspaceId)) : eq(personas.isCustom, false));
    const stems = queryStems(query);
    const ranked = rows
      .map((row) => {
        const profile = profileText(row.details);
        return { row, profile, score: 2 * overlap(`${row.name} ${row.category}`, stems) + overlap(`${row.description} ${profile}`, stems) };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || (a.row.id < b.row.id ? -1 : 1))
      .slice(0, SOURCES_PER_SEARCH);
    return {
      summary: ranked.length === 0 ? `No persona matched "${query}".` : `${ranked.length} personas matched "${query}".`,
      sources: ranked.map(({ row, profile }) => ({
        title: `${row.name} (${row.category})`.slice(0, 500),
        url: personaSourceUrl(services.files.baseUrl, row.id),
        snippet: clipText(`${row.description}\n${profile}`, 2000),
        publishedAt: null,
      })),
    };
  },
};

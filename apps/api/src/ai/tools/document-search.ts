import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import { DOCUMENT_TYPES, readDocumentSource } from '../source-text.js';
import { linksAt } from '../../resources/files/settings.js';
import { signedDownloadUrl } from '../../resources/files/mappers.js';
import { files } from '../../resources/files/table.js';
import { overlap, passages, queryStems } from './ranking.js';
import { SOURCES_PER_SEARCH, type ResearchTool } from './types.js';

/** The newest uploaded documents of the workspace that a search reads (DECISIONS.md). */
export const DOCUMENTS_SEARCHED = 20;
/** Bytes read of one document. */
const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/**
 * The extracted text of the workspace's uploaded documents (PDF, DOCX, HTML, Markdown, text; read as brand
 * voices read them), split into passages ranked by the query's word stems; at most two passages per file.
 */
export const documentSearch: ResearchTool = {
  name: 'document_search',
  description: "Search the text of the workspace's uploaded documents (PDF, Word, HTML, Markdown, text files). Returns the best-matching passages.",
  async run({ db, services, workspaceId, now, documentCache }, query) {
    if (!workspaceId) return { summary: 'There is no workspace whose documents could be searched.', sources: [] };
    const rows = await db
      .select({ id: files.id, name: files.name, type: files.type, storageKey: files.storageKey })
      .from(files)
      .where(and(eq(files.workspaceId, workspaceId), isNotNull(files.storageKey), inArray(files.type, Object.keys(DOCUMENT_TYPES))))
      .orderBy(desc(files.createdAt), desc(files.id))
      .limit(DOCUMENTS_SEARCHED);
    const stems = queryStems(query);
    const links = linksAt(services.files, now);
    const candidates: { score: number; order: number; file: (typeof rows)[number]; passage: string }[] = [];
    for (const [order, file] of rows.entries()) {
      if (!documentCache.has(file.id)) {
        const read = await readDocumentSource(file, services.storage, MAX_DOCUMENT_BYTES);
        documentCache.set(file.id, read.ok ? read.text : null);
      }
      const text = documentCache.get(file.id);
      if (!text) continue;
      const ranked = passages(text)
        .map((passage) => ({ passage, score: overlap(passage, stems) + overlap(file.name, stems) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, 2);
      for (const entry of ranked) candidates.push({ ...entry, order, file });
    }
    const best = candidates.sort((a, b) => b.score - a.score || a.order - b.order).slice(0, SOURCES_PER_SEARCH);
    return {
      summary:
        best.length === 0
          ? `No passage of the workspace's ${rows.length} readable documents matched "${query}".`
          : `${best.length} passages of the workspace's documents matched "${query}".`,
      sources: best.map(({ file, passage }) => ({
        title: file.name.slice(0, 500),
        url: signedDownloadUrl(links, file.storageKey!),
        snippet: passage,
        publishedAt: null,
      })),
    };
  },
};

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createOfflineEngine } from '@persona-api/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { files } from '../../src/resources/files/table.js';
import { createLocalStorage } from '../../src/storage/local.js';
import { fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { docxOf, pdfOf } from '../support/documents.js';
import { Harness, type Tenant } from '../support/harness.js';

// Persona suggestions read uploaded documents: a file source's text (PDF, DOCX, Markdown, CSV…, read from
// storage as brand voices read theirs) feeds the suggestion like a web page does and counts in
// `sources_count`; a file that cannot be read is skipped and not counted.

const SURVEY = [
  'Survey of veterinary clinic managers about appointment scheduling and inventory of vaccines.',
  'Most veterinary clinic managers said missed appointments and vaccine stock-outs cost them revenue every week.',
  'They want reminders by text message and an inventory dashboard their nurses can update from a tablet.',
];

let h: Harness;
let t: Tenant;
let storageDir: string;
let storage: ReturnType<typeof createLocalStorage>;
const engine = new SwitchableEngine(createOfflineEngine());
let upstream: Awaited<ReturnType<typeof fakeUpstreamEngine>>;

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), 'suggestion-files-'));
  storage = createLocalStorage(storageDir);
  upstream = await fakeUpstreamEngine();
  h = await Harness.create({ engine, services: { storage } });
  t = await h.tenant();
});
afterAll(async () => {
  await h.close();
  await upstream.fake.close();
  await rm(storageDir, { recursive: true, force: true });
});

async function storedFile(name: string, type: string, bytes: Buffer, workspaceId = t.workspaceId): Promise<string> {
  const id = newId('file');
  const key = `upl_${newId('file').slice(5)}`;
  await storage.put(uploadObjectKey(key), Readable.from([bytes]));
  const now = h.clock.now();
  await h.db
    .insert(files)
    .values({ id, workspaceId, name, type, sizeBytes: bytes.length, size: bytes.length, storageKey: key, createdAt: now, updatedAt: now });
  return id;
}

const request = (sources: unknown[]) => ({
  business_description: 'Software for small businesses that run on appointments.',
  target_customers: ['Clinic managers'],
  goals: ['increase trial sign-ups'],
  sources,
});

describe('persona suggestions from uploaded files', () => {
  it('reads PDF, DOCX, Markdown and CSV documents, counts them, and the suggestions reflect their text', async () => {
    const pdf = await storedFile('survey.pdf', 'application/pdf', pdfOf(SURVEY));
    const docx = await storedFile('notes.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', docxOf(SURVEY));
    const md = await storedFile('notes.md', 'text/markdown', Buffer.from(`# Findings\n\n${SURVEY.map((line) => `- **${line}**`).join('\n')}\n`));
    const csv = await storedFile('answers.csv', 'text/csv', Buffer.from(`answer\n${SURVEY.map((line) => `"${line}"`).join('\n')}\n`));
    const without = await h.post('/personas/suggestions', t.key, request([]));
    const res = await h.post(
      '/personas/suggestions',
      t.key,
      request([
        { type: 'file', file_id: pdf },
        { type: 'file', file_id: docx, name: 'Interview notes' },
        { type: 'file', file_id: md },
        { type: 'file', file_id: csv },
      ]),
    );
    expect(res.status).toBe(200);
    expect(res.body.input_summary.sources_count).toBe(4);
    expect(without.body.input_summary.sources_count).toBe(0);
    // The offline engine ranks the business's terms over the description and the sources' text.
    const rationale = res.body.data.map((s: any) => s.rationale).join(' ');
    expect(rationale).toMatch(/veterinary|clinic|vaccine/i);
    expect(JSON.stringify(res.body.data)).not.toBe(JSON.stringify(without.body.data));
  });

  it('skips a file that cannot be read (an image, too few words) without counting it', async () => {
    const png = await storedFile('logo.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const short = await storedFile('tiny.txt', 'text/plain', Buffer.from('Too short to say anything.'));
    const good = await storedFile('survey.txt', 'text/plain', Buffer.from(SURVEY.join('\n')));
    const res = await h.post(
      '/personas/suggestions',
      t.key,
      request([
        { type: 'file', file_id: png },
        { type: 'file', file_id: short },
        { type: 'file', file_id: good },
      ]),
    );
    expect(res.body.input_summary.sources_count).toBe(1);
  });

  it('sends the document’s text to the upstream model like a web page’s', async () => {
    const pdf = await storedFile('survey.pdf', 'application/pdf', pdfOf(SURVEY));
    const offline = await createOfflineEngine().suggestPersonas(request([]) as never);
    upstream.fake.enqueue({ content: JSON.stringify({ suggestions: offline.data.map(({ id: _id, object: _object, ...rest }) => rest) }) });
    const res = await engine.using(upstream.engine, () =>
      h.post('/personas/suggestions', t.key, request([{ type: 'file', file_id: pdf, name: 'Clinic survey' }])),
    );
    expect(res.status).toBe(200);
    expect(res.body.input_summary.sources_count).toBe(1);
    const user = upstream.fake.requests.at(-1)!.body.messages.find((m: any) => m.role === 'user').content as string;
    expect(user).toContain('Source 1 (Clinic survey):');
    expect(user).toContain('vaccine stock-outs cost them revenue');
  });
});

import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { storeUpload } from '../../../src/resources/files/pipeline.js';
import { isTextType, mediaTypeEssence, sniffType, typesMatch } from '../../../src/resources/files/sniff.js';
import { MemoryStorage } from './memory-storage.js';

// A minimal Word document (zip with [Content_Types].xml and word/document.xml), made with Python's zipfile.
const DOCX = readFileSync(new URL('./fixtures/notes.docx', import.meta.url));
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('type sniffing', () => {
  it('reads OOXML inside its zip, and stores a .docx declared as such', async () => {
    expect(await sniffType(DOCX)).toBe(DOCX_TYPE);
    const storage = new MemoryStorage();
    const stored = await storeUpload(Readable.from([DOCX]), { expectedSize: DOCX.length, declaredType: DOCX_TYPE }, storage, 'k');
    expect(stored.sniffedType).toBe(DOCX_TYPE);
    await expect(
      storeUpload(Readable.from([DOCX]), { expectedSize: DOCX.length, declaredType: 'application/pdf' }, new MemoryStorage(), 'k'),
    ).rejects.toMatchObject({ param: 'Content-Type' });
  });

  it('matches aliases, generic containers and one container’s audio/video names, nothing else', () => {
    expect(typesMatch('image/jpg', 'image/jpeg')).toBe(true);
    expect(typesMatch('audio/x-wav', 'audio/wav')).toBe(true);
    expect(typesMatch(DOCX_TYPE, 'application/zip')).toBe(true);
    expect(typesMatch('application/msword', 'application/x-cfb')).toBe(true);
    expect(typesMatch('audio/mp4', 'video/mp4')).toBe(true);
    expect(typesMatch('image/svg+xml', 'application/xml')).toBe(true);
    expect(typesMatch('application/octet-stream', 'image/png')).toBe(true);
    expect(typesMatch('image/png', 'image/jpeg')).toBe(false);
    expect(typesMatch('application/pdf', 'application/zip')).toBe(false);
    expect(typesMatch('video/mp4', 'video/quicktime')).toBe(false);
  });

  it('knows text types and media-type essences', () => {
    for (const type of ['text/csv', 'text/markdown', 'application/json', 'application/ld+json', 'image/svg+xml', 'application/xml'])
      expect(isTextType(type), type).toBe(true);
    for (const type of ['application/pdf', 'image/png', 'application/octet-stream']) expect(isTextType(type), type).toBe(false);
    expect(mediaTypeEssence(' Text/CSV ; charset=UTF-8')).toBe('text/csv');
  });
});

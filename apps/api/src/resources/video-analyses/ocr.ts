// On-screen text by OCR: tesseract.js with the English data shipped in @tesseract.js-data/eng (no
// download at run time), one worker per job, the frames read one by one.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const LANG_PATH = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

export interface TextReader {
  read(image: string | Buffer): Promise<string>;
  close(): Promise<void>;
}

/** Keeps words with at least two letters or digits: OCR of pictures without text yields stray marks. */
function clean(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line
        .split(/\s+/)
        .filter((word) => (word.match(/[A-Za-z0-9]/g)?.length ?? 0) >= 2)
        .join(' '),
    )
    .filter((line) => line.length > 0)
    .join('\n');
}

export async function openTextReader(): Promise<TextReader> {
  // Loaded by the first video analysis, not at start.
  const { createWorker } = await import('tesseract.js');
  const worker = await createWorker('eng', 1, { langPath: LANG_PATH, cacheMethod: 'none', gzip: true });
  return {
    read: async (image) => clean((await worker.recognize(image)).data.text),
    close: async () => {
      await worker.terminate();
    },
  };
}

import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import type { Database } from '../../src/db/client.js';
import type { ObjectStorage } from '../../src/storage/types.js';
import { storeFile } from './uploads.js';

const run = promisify(execFile);

export const TEXT = (text: string) => `drawtext=text='${text}':fontsize=56:fontcolor=white:x=(w-tw)/2:y=(h-th)/2`;

/**
 * A video of `segments` (640×360 at 25 fps unless `frame` says otherwise), each `seconds` long: a moving test pattern or a plain
 * colour with optional text drawn on it (and `draw`, more ffmpeg drawing filters after it); audio (optional) a 440 Hz tone for `toneSeconds`, then silence.
 */
export async function makeVideo(
  path: string,
  segments: { seconds: number; pattern?: boolean; color?: string; text?: string; draw?: string }[],
  audio: { toneSeconds: number } | null,
  frame = { size: '640x360', rate: 25 },
): Promise<string> {
  const inputs: string[] = [];
  const filters: string[] = [];
  segments.forEach((segment, i) => {
    inputs.push(
      '-f',
      'lavfi',
      '-i',
      segment.pattern
        ? `testsrc2=size=${frame.size}:rate=${frame.rate}:duration=${segment.seconds}`
        : `color=c=${segment.color ?? 'navy'}:size=${frame.size}:rate=${frame.rate}:duration=${segment.seconds}`,
    );
    filters.push(`[${i}:v]${[segment.text ? TEXT(segment.text) : 'null', segment.draw].filter(Boolean).join(',')}[v${i}]`);
  });
  const total = segments.reduce((sum, segment) => sum + segment.seconds, 0);
  const graph = [...filters, `${segments.map((_, i) => `[v${i}]`).join('')}concat=n=${segments.length}:v=1:a=0[v]`];
  const maps = ['-map', '[v]'];
  if (audio) {
    const tone = segments.length;
    inputs.push(
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=440:sample_rate=44100:duration=${audio.toneSeconds}`,
      '-f',
      'lavfi',
      '-t',
      String(total - audio.toneSeconds),
      '-i',
      'anullsrc=r=44100:cl=mono',
    );
    graph.push(`[${tone}:a][${tone + 1}:a]concat=n=2:v=0:a=1[a]`);
    maps.push('-map', '[a]', '-c:a', 'aac');
  }
  await run('ffmpeg', [
    '-hide_banner',
    '-v',
    'error',
    '-y',
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    ...maps,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    path,
  ]);
  return path;
}

/** An uploaded file: its row and its bytes in storage, as the files flow leaves them. */
export function storeUpload(db: Database, storage: ObjectStorage, workspaceId: string, path: string, type = 'video/mp4'): Promise<string> {
  return storeFile(db, storage, { workspaceId, name: basename(path), type, content: path });
}

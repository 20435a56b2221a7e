// The one rule for handing customer media to ffmpeg or ffprobe (SECURITY.md, Media). ffmpeg follows
// whatever an input names when it may pick its own demuxer: an HLS playlist or DASH manifest lists other
// files (another account's upload, /etc/passwd) or URLs, an ffconcat list does the same, and `concat:`
// or `subfile,` input names are protocols of their own. So the container is sniffed from the file's own
// bytes here, ffmpeg is told that one demuxer (`-f`), only that demuxer is whitelisted, and only the
// `file` protocol is, for exactly one path.
import { open } from 'node:fs/promises';
import { SNIFF_BYTES, sniffType } from './sniff.js';

/** The ffmpeg demuxer for each container type file-type can sniff; anything else is refused. */
const DEMUXERS: Readonly<Record<string, string>> = {
  'video/mp4': 'mov',
  'video/quicktime': 'mov',
  'video/3gpp': 'mov',
  'video/3gpp2': 'mov',
  'audio/mp4': 'mov',
  'audio/x-m4a': 'mov',
  'video/x-m4v': 'mov',
  'video/matroska': 'matroska',
  'video/x-matroska': 'matroska',
  'video/webm': 'matroska',
  'audio/webm': 'matroska',
  'audio/x-matroska': 'matroska',
  'video/x-msvideo': 'avi',
  'video/vnd.avi': 'avi',
  'video/mpeg': 'mpeg',
  'video/mp2t': 'mpegts',
  'video/ogg': 'ogg',
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'video/x-flv': 'flv',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/aac': 'aac',
  'audio/aiff': 'aiff',
  'audio/amr': 'amr',
  'video/x-ms-asf': 'asf',
  'audio/x-ms-asf': 'asf',
};

export class MediaInputError extends Error {
  override name = 'MediaInputError';
}

export interface MediaInput {
  /** The sniffed MIME type of the container. */
  container: string;
  /** The one ffmpeg demuxer allowed to read it. */
  demuxer: string;
}

/** The container of `head` (a file's first bytes), or why it is refused. */
export async function mediaInputOf(head: Uint8Array): Promise<MediaInput> {
  const sniffed = await sniffType(head);
  const demuxer = sniffed ? DEMUXERS[sniffed] : undefined;
  if (!sniffed || !demuxer) {
    const text = Buffer.from(head.subarray(0, 512)).toString('latin1');
    const kind = /#EXTM3U/.test(text)
      ? 'an HLS playlist'
      : /<MPD[\s>]/.test(text)
        ? 'a DASH manifest'
        : /ffconcat|^\s*file\s+/m.test(text)
          ? 'a concat list'
          : sniffed
            ? `${sniffed}, not audio or video`
            : 'not in a known audio or video container';
    throw new MediaInputError(
      `The file is ${kind}; only audio and video files in one container (MP4, MOV, WebM, Matroska, AVI, MPEG, Ogg, FLV, ASF, MP3, WAV, FLAC, AAC, AIFF, AMR) are read. Playlists, manifests and concat lists are refused.`,
    );
  }
  return { container: sniffed, demuxer };
}

/** The container of the local file at `path`. */
export async function mediaInputOfFile(path: string): Promise<MediaInput> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return await mediaInputOf(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/**
 * ffmpeg/ffprobe arguments that open `path` and nothing else: the `file` protocol only, the sniffed demuxer
 * only (forced, so no probing picks hls, dash, concat or image2), and the path as a `file:` URL so a name
 * can never be read as another protocol. Put them where `-i path` would go (ffprobe takes them the same).
 */
export function ffmpegInputArgs(path: string, input: MediaInput): string[] {
  return ['-protocol_whitelist', 'file', '-format_whitelist', input.demuxer, '-f', input.demuxer, '-i', `file:${path}`];
}

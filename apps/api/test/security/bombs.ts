// Compression bombs made in the test, small on disk: one deflate block of a mebibyte of spaces, ended
// with a sync flush so that it can be repeated; n copies inflate to n MiB. Nothing large is allocated here.
import { constants, crc32, deflateRawSync } from 'node:zlib';

const MIB = 1024 * 1024;
const block = deflateRawSync(Buffer.alloc(MIB, 0x20), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
// A final, empty fixed-Huffman block.
const FINAL = Buffer.from([0x03, 0x00]);

/** Raw deflate data that inflates to `mib` MiB of spaces. */
export function deflateBomb(mib: number): Buffer {
  return Buffer.concat([...Array.from({ length: mib }, () => block), FINAL]);
}

/** A one-page PDF whose content stream (FlateDecode) inflates to `mib` MiB. */
export function pdfStreamBomb(mib: number): Buffer {
  // zlib header; pdf.js does not check the Adler-32 trailer, so none is needed for the bomb to inflate.
  const stream = Buffer.concat([Buffer.from([0x78, 0x9c]), deflateBomb(mib)]);
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (part: Buffer | string) => {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
    parts.push(bytes);
    length += bytes.length;
  };
  push('%PDF-1.4\n');
  const objects: (string | [string, Buffer])[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    [`<< /Length ${stream.length} /Filter /FlateDecode >>`, stream],
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  objects.forEach((object, index) => {
    offsets.push(length);
    if (typeof object === 'string') push(`${index + 1} 0 obj\n${object}\nendobj\n`);
    else {
      push(`${index + 1} 0 obj\n${object[0]}\nstream\n`);
      push(object[1]);
      push('\nendstream\nendobj\n');
    }
  });
  const xref = length;
  push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

interface ZipEntry {
  name: string;
  data: Buffer;
  /** 8 deflate, 0 stored. */
  method: number;
  /** What the directory says the entry inflates to (a lie when it differs from the truth). */
  declaredSize: number;
}

/** A zip archive of `entries`, with whatever sizes they declare. */
export function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = entry.method === 0 ? crc32(entry.data) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A DOCX whose document.xml inflates to `mib` MiB while the directory says `declared` bytes. */
export function docxBomb(mib: number, declared: number): Buffer {
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from('<Types/>'), method: 0, declaredSize: 8 },
    { name: 'word/document.xml', data: deflateBomb(mib), method: 8, declaredSize: declared },
  ]);
}

/** A PNG that declares `width`×`height` pixels with almost no data. */
export function pngPixelBomb(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.concat([Buffer.from([0x78, 0x9c]), deflateBomb(16)])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Images people or operators give (the profile picture, a partner's logo): a JPEG, PNG or WebP
// image, checked by its leading bytes (never by the type the request or the file name claims) and
// stripped of what it carries besides the picture — EXIF (the place and time it was taken, the
// camera), XMP, comments and text chunks — before it is stored.

export type PictureType = 'image/jpeg' | 'image/png' | 'image/webp';

/** The type the bytes are, whatever the request said; null for anything else. */
export function pictureTypeOf(bytes: Uint8Array): PictureType | null {
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length > 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b))
    return 'image/png';
  if (bytes.length > 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'image/webp';
  return null;
}

/** The picture without its metadata; null when its structure is broken (then it is refused). */
export function stripMetadata(bytes: Uint8Array, type: PictureType): Uint8Array | null {
  try {
    if (type === 'image/jpeg') return stripJpeg(bytes);
    if (type === 'image/png') return stripPng(bytes);
    return stripWebp(bytes);
  } catch {
    return null;
  }
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** JPEG: every segment before the image data but APP1–APP13, APP15 (EXIF, XMP, IPTC…) and
 * comments; APP0 (JFIF) and APP14 (Adobe colour transform) stay, the picture needs them. */
function stripJpeg(bytes: Uint8Array): Uint8Array | null {
  const parts: Uint8Array[] = [bytes.subarray(0, 2)];
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    // Start of scan: the compressed picture follows up to the end of the file, kept as it is.
    if (marker === 0xda) {
      parts.push(bytes.subarray(at));
      return concat(parts);
    }
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (length < 2 || at + 2 + length > bytes.length) return null;
    const drop = (marker >= 0xe1 && marker <= 0xed) || marker === 0xef || marker === 0xfe;
    if (!drop) parts.push(bytes.subarray(at, at + 2 + length));
    at += 2 + length;
  }
  return null;
}

const PNG_TEXT_CHUNKS = new Set(['tEXt', 'zTXt', 'iTXt', 'eXIf', 'tIME']);

/** PNG: every chunk but the text, EXIF and time ones. */
function stripPng(bytes: Uint8Array): Uint8Array | null {
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  let at = 8;
  let ended = false;
  while (at + 12 <= bytes.length) {
    const view = new DataView(bytes.buffer, bytes.byteOffset + at, 4);
    const length = view.getUint32(0);
    const type = ascii(bytes, at + 4, 4);
    const end = at + 12 + length;
    if (end > bytes.length) return null;
    if (!PNG_TEXT_CHUNKS.has(type)) parts.push(bytes.subarray(at, end));
    at = end;
    if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  return ended ? concat(parts) : null;
}

/** WebP: every chunk but EXIF and XMP, with the extended header's flags for them cleared. */
function stripWebp(bytes: Uint8Array): Uint8Array | null {
  const parts: Uint8Array[] = [];
  let at = 12;
  while (at + 8 <= bytes.length) {
    const type = ascii(bytes, at, 4);
    const length = new DataView(bytes.buffer, bytes.byteOffset + at + 4, 4).getUint32(0, true);
    const end = at + 8 + length + (length % 2);
    if (at + 8 + length > bytes.length) return null;
    if (type !== 'EXIF' && type !== 'XMP ') {
      const chunk = bytes.slice(at, Math.min(end, bytes.length));
      if (type === 'VP8X' && chunk.length > 8) chunk[8]! &= ~0x0c;
      parts.push(chunk);
    }
    at = end;
  }
  const body = concat(parts);
  const header = new Uint8Array(12);
  header.set(bytes.subarray(0, 12));
  new DataView(header.buffer).setUint32(4, body.length + 4, true);
  return concat([header, body]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

import { describe, expect, it } from 'vitest';
import { pictureTypeOf, stripMetadata } from './images.ts';

const text = (s: string) => new TextEncoder().encode(s);
const bytes = (...parts: Array<number[] | Uint8Array>) => Uint8Array.from(parts.flatMap((p) => [...p]));
const be16 = (n: number) => [n >> 8, n & 0xff];
const be32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const le32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const has = (haystack: Uint8Array, needle: string) => Buffer.from(haystack).includes(Buffer.from(needle));

describe('profile picture', () => {
  it('knows a picture by its bytes, not by what it claims', () => {
    expect(pictureTypeOf(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(pictureTypeOf(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(pictureTypeOf(bytes(text('RIFF'), le32(4), text('WEBP'), [0]))).toBe('image/webp');
    expect(pictureTypeOf(text('<svg onload="alert(1)"></svg>'))).toBeNull();
    expect(pictureTypeOf(text('GIF89a'))).toBeNull();
  });

  it("drops a JPEG's EXIF, XMP and comments, keeping JFIF, the tables and the image data", () => {
    const exif = bytes(text('Exif\0\0GPSLatitude 50.85'));
    const comment = text('shot at home');
    const jpeg = bytes(
      [0xff, 0xd8],
      [0xff, 0xe0],
      be16(16),
      text('JFIF\0'),
      new Array(9).fill(1),
      [0xff, 0xe1],
      be16(exif.length + 2),
      exif,
      [0xff, 0xfe],
      be16(comment.length + 2),
      comment,
      [0xff, 0xdb],
      be16(5),
      [0, 1, 2],
      [0xff, 0xda],
      be16(4),
      [9, 9],
      [1, 2, 3, 0xff, 0xd9],
    );
    const clean = stripMetadata(jpeg, 'image/jpeg')!;
    expect(has(clean, 'GPSLatitude')).toBe(false);
    expect(has(clean, 'shot at home')).toBe(false);
    expect(has(clean, 'JFIF')).toBe(true);
    expect([...clean.slice(-5)]).toEqual([1, 2, 3, 0xff, 0xd9]);
    expect(stripMetadata(jpeg.slice(0, 30), 'image/jpeg')).toBeNull();
  });

  it("drops a PNG's text and EXIF chunks and refuses one without its end", () => {
    const chunk = (type: string, data: Uint8Array) => bytes(be32(data.length), text(type), data, [0, 0, 0, 0]);
    const png = bytes(
      [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
      chunk('IHDR', new Uint8Array(13)),
      chunk('tEXt', text('Location\0Brussels')),
      chunk('eXIf', text('GPS')),
      chunk('IDAT', new Uint8Array(4)),
      chunk('IEND', new Uint8Array(0)),
    );
    const clean = stripMetadata(png, 'image/png')!;
    expect(has(clean, 'Brussels')).toBe(false);
    expect(has(clean, 'eXIf')).toBe(false);
    expect(has(clean, 'IDAT')).toBe(true);
    expect(stripMetadata(png.slice(0, png.length - 12), 'image/png')).toBeNull();
  });

  it("drops a WebP's EXIF and XMP chunks and clears their flags", () => {
    const chunk = (type: string, data: number[] | Uint8Array) =>
      bytes(text(type), le32(data.length), data, data.length % 2 ? [0] : []);
    const body = bytes(
      text('WEBP'),
      chunk('VP8X', [0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
      chunk('VP8 ', [1, 2, 3, 4]),
      chunk('EXIF', text('GPS 50.85')),
      chunk('XMP ', text('<x:xmpmeta/>')),
    );
    const webp = bytes(text('RIFF'), le32(body.length), body);
    const clean = stripMetadata(webp, 'image/webp')!;
    expect(has(clean, 'GPS')).toBe(false);
    expect(has(clean, 'xmpmeta')).toBe(false);
    expect(clean[20]! & 0x0c).toBe(0);
    expect(new DataView(clean.buffer).getUint32(4, true)).toBe(clean.length - 8);
  });
});

// Partner logos: what the CLI takes (checkLogo), and how GET /api/clients/{client_id}/logo serves
// them; their address comes from the configured origin, never from the request's Host.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { PartnerAnswer } from '../../contract/schemas.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { editClient } from './registry.ts';
import { LOGO_MAX_BYTES, LogoError, checkLogo, logoVersionOf } from './logos.ts';

const DEMO_LOGO = new Uint8Array(readFileSync(new URL('../seed/deals-partner-logo.png', import.meta.url)));
const text = (s: string) => new TextEncoder().encode(s);
const be32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** The demo logo with a text chunk (a PNG's metadata) after its header. */
function withTextChunk(png: Uint8Array, note: string): Uint8Array {
  const headerEnd = 8 + 12 + 13; // signature, then IHDR (length, type, 13 bytes of data, CRC)
  const data = text(`Comment\0${note}`);
  const chunk = Uint8Array.from([...be32(data.length), ...text('tEXt'), ...data, 0, 0, 0, 0]);
  return Uint8Array.from([...png.subarray(0, headerEnd), ...chunk, ...png.subarray(headerEnd)]);
}

const refusal = (bytes: Uint8Array) => {
  try {
    checkLogo(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(LogoError);
    return (error as Error).message;
  }
  return null;
};

describe('what a logo may be', () => {
  it('takes a PNG, JPEG or WebP by its bytes, its metadata stripped, its version the digest of what is kept', () => {
    const logo = checkLogo(withTextChunk(DEMO_LOGO, 'made at home'));
    expect(logo.contentType).toBe('image/png');
    expect(Buffer.from(logo.bytes).includes(Buffer.from('made at home'))).toBe(false);
    expect(Buffer.from(logo.bytes).equals(Buffer.from(DEMO_LOGO))).toBe(true);
    expect(logo.version).toBe(logoVersionOf(DEMO_LOGO));
    expect(logo.version).toMatch(/^[\w-]{22}$/);
  });

  it('refuses SVG, other types, broken images, empty files and more than 100 KB', () => {
    expect(refusal(text('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'))).toBe(
      'is an SVG image: give a PNG, JPEG or WebP one',
    );
    expect(refusal(text('\uFEFF<?xml version="1.0"?>\n<svg/>'))).toBe('is an SVG image: give a PNG, JPEG or WebP one');
    expect(refusal(text('GIF89a……'))).toBe('is not a PNG, JPEG or WebP image');
    expect(refusal(text('<html><script>alert(1)</script>'))).toBe('is not a PNG, JPEG or WebP image');
    expect(refusal(DEMO_LOGO.subarray(0, 40))).toBe('is not a well-formed PNG image');
    expect(refusal(new Uint8Array())).toBe('is empty');
    const big = new Uint8Array(LOGO_MAX_BYTES + 1);
    big.set(DEMO_LOGO);
    expect(refusal(big)).toBe('is larger than 100 KB');
  });
});

const kinds = await databaseKinds();

describe.each(kinds)('partner logos served on %s', (kind) => {
  let server: TestServer;
  let origin: string;

  beforeAll(async () => {
    server = await startTestServer(kind);
    origin = server.ctx.config.publicOrigins.be;
  });
  afterAll(async () => server?.stop());

  const logo = (clientId: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url: `/api/clients/${clientId}/logo`, headers });
  const version = logoVersionOf(DEMO_LOGO);

  it('serves the demo partner its logo from our own origin, whatever Host the request names', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/partners/deals-partner',
      headers: { ...DEVICE, host: 'evil.example' },
    });
    expect(res.statusCode).toBe(200);
    const expected = `${origin}/api/clients/deals-partner/logo?v=${version}`;
    expect(v.parse(PartnerAnswer, res.json()).client.logo_uri).toBe(expected);
    // As oidc-provider reports the client's metadata.
    const provider = server.oidc.forIssuer(`${origin}/oidc`);
    const client = await provider.Client.find('deals-partner');
    expect(client!.metadata().logo_uri).toBe(expected);
  });

  it('answers the image with its type, an ETag and a day of caching, never sniffed nor run', async () => {
    // An <img> sends no device id.
    const res = await logo('deals-partner');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers.etag).toBe(`"${version}"`);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.rawPayload.equals(Buffer.from(DEMO_LOGO))).toBe(true);

    const again = await logo('deals-partner', { 'if-none-match': `W/"other", "${version}"` });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(`"${version}"`);
  });

  it('answers 404, not kept, for a client without a logo or none at all; a removed logo goes', async () => {
    for (const clientId of ['2', 'no-such-client']) {
      const res = await logo(clientId);
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    await editClient(server.ctx.db, 'deals-partner', { logo: null });
    expect((await logo('deals-partner')).statusCode).toBe(404);
    const partner = await server.app.inject({ method: 'GET', url: '/api/partners/deals-partner', headers: DEVICE });
    expect(v.parse(PartnerAnswer, partner.json()).client.logo_uri).toBeNull();
    await editClient(server.ctx.db, 'deals-partner', { logo: DEMO_LOGO });
    expect((await logo('deals-partner')).statusCode).toBe(200);
  });
});

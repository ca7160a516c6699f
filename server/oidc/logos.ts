// A partner's logo, served from our own origin (docs/decisions/client-logos.md): the operator gives
// the image file to the CLI, which checks it by its bytes (PNG, JPEG or WebP, at most
// LOGO_MAX_BYTES; SVG is refused), strips its metadata as a profile picture's is, and stores it. The
// client's `logo_uri` is then `<configured origin>/api/clients/<id>/logo?v=<digest>`: the consent,
// sign-in, partner and access screens load nothing from a partner's server.
import { createHash } from 'node:crypto';
import type { Db } from '../db/index.ts';
import { pictureTypeOf, stripMetadata, type PictureType } from '../http/images.ts';

/** The largest logo taken: it is drawn at 48 px. */
export const LOGO_MAX_BYTES = 100 * 1024;

/** Why the bytes cannot be a logo; thrown by `checkLogo`. */
export class LogoError extends Error {}

export type Logo = { contentType: PictureType; bytes: Uint8Array; version: string };

/** What an SVG file starts with (after a byte-order mark and white space). */
const SVG_START = /^(\uFEFF)?\s*(<\?xml|<!--|<!doctype svg|<svg)/i;

/** The logo these bytes make, checked by their content (never by a file name) and stripped of their
 * metadata; throws a LogoError saying why not. */
export function checkLogo(bytes: Uint8Array): Logo {
  if (bytes.length === 0) throw new LogoError('is empty');
  if (bytes.length > LOGO_MAX_BYTES) throw new LogoError(`is larger than ${LOGO_MAX_BYTES / 1024} KB`);
  const contentType = pictureTypeOf(bytes);
  if (!contentType) {
    const start = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 256));
    if (SVG_START.test(start)) throw new LogoError('is an SVG image: give a PNG, JPEG or WebP one');
    throw new LogoError('is not a PNG, JPEG or WebP image');
  }
  const clean = stripMetadata(bytes, contentType);
  if (!clean) throw new LogoError(`is not a well-formed ${contentType.slice('image/'.length).toUpperCase()} image`);
  return { contentType, bytes: clean, version: logoVersionOf(clean) };
}

/** The version of a logo: a digest of its bytes (its ETag, and the `v` of its address). */
export function logoVersionOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
}

/** The path the logo of a client is served at (under the API prefix). */
export function logoPathOf(clientId: string): string {
  return `/api/clients/${encodeURIComponent(clientId)}/logo`;
}

/** The address of a client's logo under a configured origin (never the request's Host); null without one. */
export function logoUriOf(origin: string, row: { client_id: string; logo_version: string | null }): string | null {
  return row.logo_version ? `${origin}${logoPathOf(row.client_id)}?v=${row.logo_version}` : null;
}

/** Stores (or replaces) a client's logo; null removes it. The client's row names its version. */
export async function saveLogo(db: Db, clientId: string, logo: Logo | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!logo) {
      await trx.deleteFrom('oauth_client_logos').where('client_id', '=', clientId).execute();
      await trx.updateTable('oauth_clients').set({ logo_version: null }).where('client_id', '=', clientId).execute();
      return;
    }
    const row = {
      content_type: logo.contentType,
      data: Buffer.from(logo.bytes).toString('base64'),
      updated_at: new Date().toISOString(),
    };
    await trx
      .insertInto('oauth_client_logos')
      .values({ client_id: clientId, ...row })
      .onConflict((c) => c.column('client_id').doUpdateSet(row))
      .execute();
    await trx
      .updateTable('oauth_clients')
      .set({ logo_version: logo.version })
      .where('client_id', '=', clientId)
      .execute();
  });
}

/** A client's logo as stored; null without one. */
export async function logoOf(
  db: Db,
  clientId: string,
): Promise<{ contentType: string; bytes: Buffer; version: string } | null> {
  const row = await db
    .selectFrom('oauth_client_logos')
    .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_client_logos.client_id')
    .select(['oauth_client_logos.content_type', 'oauth_client_logos.data', 'oauth_clients.logo_version'])
    .where('oauth_client_logos.client_id', '=', clientId)
    .executeTakeFirst();
  if (!row?.logo_version) return null;
  return { contentType: row.content_type, bytes: Buffer.from(row.data, 'base64'), version: row.logo_version };
}

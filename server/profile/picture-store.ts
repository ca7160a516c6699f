// The stored profile picture (`user_pictures`): one per account, kept as base64 with its type.
import type { Db } from '../db/index.ts';
import type { PictureType } from '../http/images.ts';

/** Stores the account's picture (already checked and stripped), replacing the one it had. */
export async function savePicture(db: Db, userId: string, type: PictureType, bytes: Uint8Array): Promise<void> {
  const row = {
    content_type: type,
    data: Buffer.from(bytes).toString('base64'),
    updated_at: new Date().toISOString(),
  };
  await db
    .insertInto('user_pictures')
    .values({ user_id: userId, ...row })
    .onConflict((c) => c.column('user_id').doUpdateSet(row))
    .execute();
}

/** The account's picture, as stored; null without one. */
export async function pictureOf(db: Db, userId: string): Promise<{ contentType: string; bytes: Buffer } | null> {
  const picture = await db
    .selectFrom('user_pictures')
    .select(['content_type', 'data'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return picture ? { contentType: picture.content_type, bytes: Buffer.from(picture.data, 'base64') } : null;
}

export async function removePicture(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('user_pictures').where('user_id', '=', userId).execute();
}

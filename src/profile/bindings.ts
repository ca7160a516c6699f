// How the profile's flow meets the real world: its machine (imported here, in its own chunk), its
// API calls, its screen requests (`show`, to the route table's path of the step), the merge it
// hands on and the files it saves. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { apiFailure } from '../../contract/api.ts';
import type { ErrorCode } from '../../contract/errors.ts';
import type { NewContact } from '../../machines/profile.ts';
import { pathOf } from '../../machines/routes.ts';
import type { Locale } from '../../contract/constants.ts';
import { codeEntryChecking, type Go } from '../shell/bindings.ts';
import { keepOffer } from '../shell/fuzzionMemory.ts';
import {
  confirmContact,
  deleteContact,
  exportAccountData,
  makeContactPrimary,
  cancelFuzzion,
  readFuzzionOffer,
  removePicture,
  saveIban,
  saveProfileInfo,
  startContact,
  uploadPicture,
} from '../api/flowCalls.ts';
import { switchLocale } from '../i18n.ts';
import { variant } from '../variant.ts';

/** Passkeys, with their library: loaded once the name or the first address changes. */
const passkeys = () => import('../api/passkeys.ts');

export const profile = (go: Go) =>
  import('../../machines/profile.ts').then(({ profileMachine }) =>
    profileMachine.provide({
      actors: {
        // The language chosen is the portal's at once, as the switch in the top bar would make it.
        saveInfo: fromPromise(async ({ input }) => {
          const user = await saveProfileInfo({
            ...input,
            birthdate: input.birthdate.trim() || null,
            gender: input.gender || null,
          });
          await switchLocale(user.language as Locale, true);
          // The person's name is what the password manager shows beside the account's passkeys.
          void passkeys().then((p) => p.tellPasswordManager('renamed', variant));
          return user;
        }),
        saveIban: fromPromise(({ input }) => saveIban(input)),
        startContact: fromPromise(({ input }) => startContact(input)),
        contactCode: codeEntryChecking(
          ({ ticket, code, captcha }) => confirmContact({ payload: ticket, code, captcha }),
          ({ request }: { request: NewContact }) =>
            startContact(request).then((answer) => ({ ticket: answer.payload, sent: answer.data })),
        ),
        readOffer: fromPromise(({ input }) => readFuzzionOffer(input)),
        cancelOffer: fromPromise(() => cancelFuzzion()),
        deleteContact: fromPromise(({ input }) => deleteContact(input)),
        makePrimary: fromPromise(async ({ input }) => {
          const answer = await makeContactPrimary(input);
          // A new first address is the account's name in the password manager.
          void passkeys().then((p) => p.tellPasswordManager('renamed', variant));
          return answer;
        }),
        exportData: fromPromise(() => exportAccountData()),
        uploadPicture: fromPromise(async ({ input }) => uploadPicture(await shrunk(input.file))),
        removePicture: fromPromise(() => removePicture()),
      },
      actions: {
        show: (_, { step }) => go(pathOf('profile', step)),
        offerFuzzion: (_, { payload }) => {
          keepOffer(payload);
          go(pathOf('fuzzion', 'offer'));
        },
        save: (_, { name, text }) => {
          const link = document.createElement('a');
          link.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
          link.download = name;
          link.click();
          setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
        },
      },
    }),
  );

/** The longest side of a profile picture as sent: enough for any screen that shows it. */
const PICTURE_SIDE = 512;

/** A picture redrawn at most PICTURE_SIDE pixels a side, as JPEG: smaller to send, and drawing it
 * again leaves behind what the file carried besides the picture (the server strips it too). */
async function shrunk(file: Blob): Promise<Blob> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw apiFailure(415, { code: 'invalid_picture' } satisfies { code: ErrorCode });
  }
  const scale = Math.min(1, PICTURE_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) =>
        blob ? resolve(blob) : reject(apiFailure(415, { code: 'invalid_picture' } satisfies { code: ErrorCode })),
      'image/jpeg',
      0.85,
    ),
  );
}

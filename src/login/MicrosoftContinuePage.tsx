// /login/microsoft#mfa=…: the Microsoft callback's sign-in that needs the account's second factor
// (docs/architecture.md "Microsoft sign-in"). A projection of machines/microsoft.ts microsoftMfa: the
// payload is exchanged for the second factors, then the sign-in goes on to them as a password
// sign-in does.
import { useActorRef, useSelector } from '@xstate/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { MfaMethodSummary } from '../../contract/baseSchemas.ts';
import { microsoftMfaMachine } from '../../machines/microsoft.ts';
import { LOGIN_PATH, pathOf } from '../../machines/routes.ts';
import { exchangeSsoMfa } from '../api/flowCalls.ts';
import { takeHash } from '../shell/hash.ts';
import { write } from '../shell/storage.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Card } from '../components/Card.tsx';
import { PublicLayout } from '../components/PublicLayout.tsx';

/** Where the tab keeps a sign-in waiting for its second factor: the root machine's `storeSession`
 * key, which src/app/actor.ts reads at start (written out there: the first load has no room for a
 * shared constant). */
const WAITING_SIGN_IN = 'mfaPayload';

/** The payload the callback put in the hash (`#mfa=`), taken once per page load: a screen mounted
 * again (the app settling around it) reads the same payload, not the hash already dropped. */
let taken: string | null | undefined;
const takePayload = () => (taken ??= new URLSearchParams(takeHash()).get('mfa'));

/** The Microsoft sign-in becomes this tab's sign-in that waits for its second factor, and the page
 * opens its methods: the root resumes it there, as it resumes a password sign-in after a reload. */
function handOver(_: unknown, sign: { payload: string; methods: MfaMethodSummary[] }) {
  write('sessionStorage', WAITING_SIGN_IN, JSON.stringify({ kind: 'mfa', ...sign }));
  window.location.replace(pathOf('mfa', 'methods'));
}

const CONTINUE = microsoftMfaMachine.provide({
  actors: { exchange: fromPromise(({ input }) => exchangeSsoMfa(input)) },
  actions: { handOver },
});

/** /login/microsoft: the second factors of the Microsoft sign-in, then the sign-in's second factor. */
export default function MicrosoftContinuePage() {
  const { t } = useTranslation();
  const [payload] = useState(takePayload);
  const flow = useActorRef(CONTINUE, { input: { payload } });
  const failed = useSelector(flow, (s) => s.matches('failed'));
  const error = useSelector(flow, (s) => s.context.error);
  return (
    <PublicLayout>
      <Card aria-labelledby="microsoft-title" className="mx-auto max-w-md">
        <h1 id="microsoft-title" className="text-2xl font-bold">
          {t('microsoft.button')}
        </h1>
        {failed ? (
          <div className="mt-5">
            <Alert tone="error">{t([`errors.${error}`, 'errors.sso_failed'])}</Alert>
            <Link to={LOGIN_PATH} className="btn btn-primary mt-4">
              {t('login.submit')}
            </Link>
          </div>
        ) : (
          <p role="status" className="mt-5">
            {t('microsoft.mfa.continuing')}
          </p>
        )}
      </Card>
    </PublicLayout>
  );
}

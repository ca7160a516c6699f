// The dashboard (spec §1): greeting by first name and the services card with one tile per platform.
import { useActorRef, useSelector } from '@xstate/react';
import { useState } from 'react';
import { fromPromise } from 'xstate';
import { cardsMachine } from '../../machines/cards.ts';
import type { AccountCard, CardProduct } from '../../contract/profile.ts';
import { passkeyOfferMachine } from '../../machines/passkeyOffer.ts';
import {
  confirmPasskey,
  declinePasskeyOffer,
  listCards,
  passkeyOffered,
  setCardProduct,
  startPasskey,
} from '../api/flowCalls.ts';
import { Button } from '../components/Button.tsx';
import { useTranslation } from 'react-i18next';
import { useRootActor } from '../shell/context.ts';
import { Link } from 'react-router';
import { pathOf } from '../../machines/routes.ts';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { Card } from '../components/Card.tsx';
import { OptionLink } from '../components/OptionLink.tsx';
import { SectionCard } from '../components/SectionCard.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { variant } from '../variant.ts';
import { tilesFor } from './tiles.ts';

export default function DashboardPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const user = useSelector(root, (s) => s.context.user);
  const notice = useSelector(root, (s) => s.context.notice);
  const passwordSignIn = useSelector(root, (s) => s.context.passwordSignIn);
  if (!user) return null;
  const tiles = tilesFor(user, window.location.host, window.location.protocol, variant === 'lu');
  return (
    <UserLayout>
      <h1 className="text-2xl font-bold">{t('dashboard.greeting', { name: user.firstname })}</h1>
      {notice === 'logout_failed' && (
        <Alert tone="error" className="mt-4">
          {t('errors.logout_failed')}
        </Alert>
      )}
      {!user.mfa_enrolled && (
        <Alert tone="warning" role={null} className="mt-4">
          <p className="font-semibold">{t('dashboard.nudge.title')}</p>
          <p className="mt-1">{t('dashboard.nudge.text')}</p>
          <Link to={pathOf('security', 'methods')} className="mt-2 inline-block font-medium text-brand-dark underline">
            {t('dashboard.nudge.action')}
          </Link>
        </Alert>
      )}
      <PasskeyOffer passwordSignIn={passwordSignIn} />
      <SectionCard titleId="services-title" title={t('dashboard.services')} className="mt-6">
        <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {tiles.map((tile) => (
            <li key={tile.key} data-testid={`tile-${tile.key}`}>
              <OptionLink
                to={tile.href}
                external
                title={t(`dashboard.tile.${tile.key}.title`)}
                text={t(`dashboard.tile.${tile.key}.text`)}
                className="h-full"
              />
            </li>
          ))}
        </ul>
      </SectionCard>
      <Cards />
    </UserLayout>
  );
}

/** The account's cards with their voucher products, each switched on or off here; the cards
 * machine (machines/cards.ts) runs while the dashboard shows. */
function Cards() {
  const { t } = useTranslation();
  const cards = useActorRef(CARDS);
  const { cards: list, error } = useSelector(cards, (s) => s.context);
  const state = useSelector(cards, (s) => s.value);
  // The last switch pressed here: once the server has it, a notice says what it changed.
  const [pressed, setPressed] = useState<{ cardId: string; product: CardProduct } | null>(null);
  const switched = pressed && state === 'ready' && !error ? switchedOf(list, pressed) : null;
  if (state === 'loading' && list.length === 0) return null;
  if (state === 'failed') {
    return (
      <Card className="mt-6">
        <Alert tone="error">{t('dashboard.cards.loadFailed')}</Alert>
        <Button className="mt-3" variant="secondary" onClick={() => cards.send({ type: 'RETRY' })}>
          {t('access.error.retry')}
        </Button>
      </Card>
    );
  }
  if (list.length === 0) return null;
  return (
    <section aria-labelledby="cards-title" className="mt-6">
      <h2 id="cards-title" className="text-lg font-semibold">
        {t('dashboard.cards.title')}
      </h2>
      <div aria-live="polite">
        {error && (
          <Alert tone="error" className="mt-3">
            {t('dashboard.cards.switchFailed')}
          </Alert>
        )}
      </div>
      <SaveNotice className="mt-3">
        {switched &&
          t('dashboard.cards.switched', {
            context: switched.active ? 'on' : 'off',
            product: t(`dashboard.cards.product.${switched.product}`),
            card: switched.number,
          })}
      </SaveNotice>
      <ul className="mt-3 grid gap-4 lg:grid-cols-2">
        {list.map((card) => (
          <li key={card.id}>
            <Card aria-labelledby={`card-${card.id}`}>
              <h3 id={`card-${card.id}`} className="font-mono text-lg font-semibold">
                {card.number}
              </h3>
              <p className="mt-1 text-sm text-slate-700">{t('dashboard.cards.text')}</p>
              <ul className="mt-3 divide-y divide-slate-200">
                {card.products.map(({ product, active }) => (
                  <li key={product} className="flex items-center justify-between gap-3 py-2">
                    <span id={`product-${card.id}-${product}`}>{t(`dashboard.cards.product.${product}`)}</span>
                    <button
                      type="button"
                      role="switch"
                      aria-checked={active}
                      id={`switch-${card.id}-${product}`}
                      aria-labelledby={`product-${card.id}-${product} switch-${card.id}-${product}`}
                      disabled={state !== 'ready'}
                      onClick={() => {
                        setPressed({ cardId: card.id, product });
                        cards.send({ type: 'TOGGLE', cardId: card.id, product });
                      }}
                      // Drawn as a switch (a track and its knob), so it reads as one to press, not a status.
                      className="inline-flex min-h-11 shrink-0 items-center gap-2 rounded px-1 text-sm font-medium disabled:opacity-70"
                    >
                      <span
                        aria-hidden="true"
                        className={`relative inline-block h-6 w-11 rounded-full border-2 ${active ? 'border-brand bg-brand' : 'border-slate-500 bg-white'}`}
                      >
                        <span
                          className={`absolute top-0.5 h-4 w-4 rounded-full ${active ? 'right-0.5 bg-white' : 'left-0.5 bg-slate-500'}`}
                        />
                      </span>
                      <span className="w-16 text-left">
                        {t(active ? 'dashboard.cards.active' : 'dashboard.cards.inactive')}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            </Card>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Passkeys, with their library: loaded only where one is offered. */
const passkeys = () => import('../api/passkeys.ts');

/** Asks the browser to make a passkey and hands it to the server. */
async function addPasskey(signal: AbortSignal, quietly: boolean) {
  const { createPasskey } = await passkeys();
  const { payload, options } = await startPasskey();
  const credential = await createPasskey(options, signal, quietly);
  return confirmPasskey({ payload, credential });
}

const PASSKEY_OFFER = passkeyOfferMachine.provide({
  actors: {
    offerStatus: fromPromise(async () => {
      const [offer, can] = await Promise.all([
        passkeyOffered(),
        passkeys().then(({ passkeySupport }) => passkeySupport(variant)),
      ]);
      return { offer, canCreate: can.signIn, quietCreate: can.quietCreate };
    }),
    quietCreate: fromPromise(({ signal }) => addPasskey(signal, true)),
    create: fromPromise(({ signal }) => addPasskey(signal, false)),
    decline: fromPromise<unknown>(async () => {
      await declinePasskeyOffer();
    }),
  },
});

/** After a password sign-in: a passkey made quietly where the browser can (said once made), else
 * offered once; the machine (machines/passkeyOffer.ts) runs while the dashboard shows. */
function PasskeyOffer({ passwordSignIn }: { passwordSignIn: boolean }) {
  const { t } = useTranslation();
  const offer = useActorRef(PASSKEY_OFFER, { input: { passwordSignIn } });
  const state = useSelector(offer, (s) => s.value);
  const error = useSelector(offer, (s) => s.context.error);
  if (state === 'made') {
    return (
      <Alert tone="success" className="mt-4">
        <p>{t('dashboard.passkey.made')}</p>
        <Link to={pathOf('security', 'methods')} className="mt-1 inline-block font-medium underline">
          {t('dashboard.passkey.name')}
        </Link>
      </Alert>
    );
  }
  if (state !== 'offered' && state !== 'creating') return null;
  return (
    <Card className="mt-4" aria-labelledby="passkey-offer-title">
      <h2 id="passkey-offer-title" className="text-lg font-semibold">
        {t('dashboard.passkey.title')}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t('dashboard.passkey.text')}</p>
      <div aria-live="assertive">
        {error && (
          <Alert tone="error" className="mt-3">
            {t([`errors.${error.code}`, 'errors.internal_error'])}
          </Alert>
        )}
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button loading={state === 'creating'} onClick={() => offer.send({ type: 'ADD' })}>
          {t('dashboard.passkey.add')}
        </Button>
        <Button variant="secondary" disabled={state === 'creating'} onClick={() => offer.send({ type: 'LATER' })}>
          {t('dashboard.passkey.later')}
        </Button>
      </div>
    </Card>
  );
}

const CARDS = cardsMachine.provide({
  actors: { listCards: fromPromise(() => listCards()), setProduct: fromPromise(({ input }) => setCardProduct(input)) },
});

/** The product a press switched, as the cards now have it (the card's masked number to name it). */
function switchedOf(cards: readonly AccountCard[], pressed: { cardId: string; product: CardProduct }) {
  const card = cards.find((c) => c.id === pressed.cardId);
  const product = card?.products.find((p) => p.product === pressed.product);
  return card && product ? { number: card.number, product: product.product, active: product.active } : null;
}

// The dashboard (spec §1): greeting by first name and the services card with one tile per platform.
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { cardsMachine } from '../../machines/cards.ts';
import { listCards, setCardProduct } from '../api/flowCalls.ts';
import { Button } from '../components/Button.tsx';
import { useTranslation } from 'react-i18next';
import { useRootActor } from '../shell/context.ts';
import { Link } from 'react-router';
import { pathOf } from '../../machines/routes.ts';
import { Alert } from '../components/Alert.tsx';
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
                      onClick={() => cards.send({ type: 'TOGGLE', cardId: card.id, product })}
                      className={`btn btn-sm min-w-28 ${active ? 'btn-primary' : 'btn-secondary'}`}
                    >
                      {t(active ? 'dashboard.cards.active' : 'dashboard.cards.inactive')}
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

const CARDS = cardsMachine.provide({
  actors: { listCards: fromPromise(() => listCards()), setProduct: fromPromise(({ input }) => setCardProduct(input)) },
});

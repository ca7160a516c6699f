// /security/history: the account's security events (spec §2): the days and the kinds to show, picked
// on the shared calendar and the shared All/Selected select, the sign-ins per day on the shared
// graph, and the events themselves, a page at a time. A projection of the history machine
// (machines/history.ts); the root's tag `security.history` says that this screen shows.
import { useSelector } from '@xstate/react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { usePlaceName } from './place.ts';
import type { ActorRefFrom } from 'xstate';
import {
  HISTORY_CATEGORIES,
  HISTORY_MAX_DAYS,
  addDays,
  dayOf,
  isKnownHistoryType,
  type HistoryCategory,
} from '../../contract/history.ts';
import type { HistoryEvent } from '../../contract/schemas.ts';
import type { historyMachine } from '../../machines/history.ts';
import { pathOf } from '../../machines/routes.ts';
import { useRootActor } from '../shell/context.ts';
import { Alert } from '../components/Alert.tsx';
import { BarChart } from '../components/BarChart.tsx';
import { Button } from '../components/Button.tsx';
import { DateField } from '../components/Calendar.tsx';
import { Card } from '../components/Card.tsx';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { Loading } from '../components/Pending.tsx';
import { useIntlLocale } from '../components/useIntl.ts';
import { SectionCard } from '../components/SectionCard.tsx';

type HistoryRef = ActorRefFrom<typeof historyMachine>;

export default function HistoryPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const shown = useSelector(root, (s) => s.hasTag('security.history'));
  const history = useFlowChild('securityHistory');
  return (
    <UserLayout>
      <Breadcrumbs
        trail={[
          { label: t('security.title'), to: pathOf('security', 'overview') },
          { label: t('history.breadcrumb'), to: pathOf('security', 'history') },
        ]}
      />
      <h1 className="mt-3 text-2xl font-bold">{t('history.title')}</h1>
      <p className="mt-2 text-sm text-slate-700">{t('history.intro')}</p>
      {shown && history ? <History history={history} /> : <Loading className="mt-4" />}
    </UserLayout>
  );
}

function useFormats() {
  const locale = useIntlLocale();
  return useMemo(
    () => ({
      moment: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
      day: new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }),
      shortDay: new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }),
    }),
    [locale],
  );
}

function History({ history }: { history: HistoryRef }) {
  const { t } = useTranslation();
  const { filters, events, next, days, error } = useSelector(history, (s) => s.context);
  const state = useSelector(history, (s) => s.value);
  const formats = useFormats();
  const today = dayOf(Date.now());
  const categories = HISTORY_CATEGORIES.map((value) => ({ value, label: t(`history.category.${value}`) }));
  const bars = days.map((day) => ({
    key: day.date,
    label: formats.day.format(new Date(`${day.date}T00:00:00Z`)),
    value: day.sign_ins,
  }));
  const short = (date: string) => formats.shortDay.format(new Date(`${date}T00:00:00Z`));
  return (
    <div className="mt-5 space-y-5">
      <SectionCard titleId="history-filters" title={t('history.filters')}>
        <div className="mt-3 grid gap-4 sm:grid-cols-2">
          <DateField
            label={t('history.from')}
            value={filters.from}
            min={addDays(filters.to, 1 - HISTORY_MAX_DAYS)}
            max={filters.to}
            testId="history-from"
            onChange={(from) => history.send({ type: 'FILTER', from })}
          />
          <DateField
            label={t('history.to')}
            value={filters.to}
            min={filters.from}
            max={today}
            testId="history-to"
            onChange={(to) => history.send({ type: 'FILTER', to })}
          />
        </div>
        <div className="mt-4">
          <ChoiceSelect
            legend={t('history.kinds')}
            options={categories}
            value={filters.categories}
            testId="history-kinds"
            onChange={(value) => history.send({ type: 'FILTER', categories: value as HistoryCategory[] | null })}
          />
        </div>
      </SectionCard>
      <div aria-live="polite">
        {error && state !== 'failed' && (
          <Alert tone="error">
            {t(`history.error.${error}`, {
              defaultValue: t(`errors.${error}`, { defaultValue: t('history.error.load') }),
            })}
          </Alert>
        )}
      </div>
      {state === 'failed' ? (
        <Card>
          <Alert tone="error" role="alert">
            {t('history.error.load')}
          </Alert>
          <Button className="mt-4" onClick={() => history.send({ type: 'RETRY' })}>
            {t('history.retry')}
          </Button>
        </Card>
      ) : (
        <>
          {days.length > 0 && (
            <Card>
              <BarChart
                title={t('history.graph', {
                  from: formats.day.format(new Date(`${filters.from}T00:00:00Z`)),
                  to: formats.day.format(new Date(`${filters.to}T00:00:00Z`)),
                })}
                bars={bars}
                columns={{ label: t('history.graphDay'), value: t('history.graphSignIns') }}
                axisLabels={{ start: short(days[0]!.date), end: short(days.at(-1)!.date) }}
                testId="history-graph"
              />
            </Card>
          )}
          <Events events={events} loading={state === 'loading'} />
          {next !== null && state !== 'loading' && (
            <Button
              variant="secondary"
              loading={state === 'loadingMore'}
              onClick={() => history.send({ type: 'MORE' })}
            >
              {t('history.more')}
            </Button>
          )}
        </>
      )}
    </div>
  );
}

function Events({ events, loading }: { events: HistoryEvent[]; loading: boolean }) {
  const { t } = useTranslation();
  if (loading) return <Loading />;
  if (events.length === 0) return <p data-testid="history-empty">{t('history.empty')}</p>;
  return (
    <section aria-labelledby="history-events">
      <h2 id="history-events" className="text-lg font-semibold">
        {t('history.events')}
      </h2>
      <p className="mt-1 text-sm text-slate-700" role="status">
        {t('history.count', { count: events.length })}
      </p>
      <ol className="mt-3 space-y-3" data-testid="history-events">
        {events.map((event) => (
          <li key={event.id}>
            <EventItem event={event} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function EventItem({ event }: { event: HistoryEvent }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const unknown = t('history.unknown');
  const name = isKnownHistoryType(event.type)
    ? t(`history.type.${event.type}`)
    : t(`history.category.${event.category}`);
  const place = usePlaceName(unknown)(event);
  const platform = event.platform ? t(`history.platform.${event.platform}`, { defaultValue: event.platform }) : unknown;
  return (
    <article className="rounded-lg border border-slate-200 bg-white p-4" data-type={event.type}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="font-semibold">{name}</h3>
        <time dateTime={event.at} className="text-sm text-slate-700">
          {formats.moment.format(new Date(event.at))}
        </time>
      </div>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-700">{t('history.device')}</dt>
        <dd>{platform}</dd>
        <dt className="text-slate-700">{t('history.browser')}</dt>
        <dd>{event.browser ?? unknown}</dd>
        <dt className="text-slate-700">{t('history.os')}</dt>
        <dd>{event.os ?? unknown}</dd>
        <dt className="text-slate-700">{t('history.location')}</dt>
        <dd>{place}</dd>
      </dl>
    </article>
  );
}

// The security overview's devices and sessions (spec §2 /security, §3 "Session/device"): each
// device with its browser, system, country, first and last use, services, status and open
// sessions; signing one out, every other one, or everywhere after a yes; a trust withdrawn. A
// projection of the devices machine (machines/devices.ts).
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { usePlaceName, type Place } from './place.ts';
import type { ActorRefFrom } from 'xstate';
import type { Device } from '../../contract/schemas.ts';
import type { devicesMachine } from '../../machines/devices.ts';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { TrailingBadge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { SectionCard } from '../components/SectionCard.tsx';
import { useDateFormat, useIntlLocale } from '../components/useIntl.ts';
import { StepUpLink } from './StepUpLink.tsx';
import { LoadFailed } from '../components/LoadFailed.tsx';
import { ConfirmQuestion } from '../components/ConfirmQuestion.tsx';
import { Loading } from '../components/Pending.tsx';

type DevicesRef = ActorRefFrom<typeof devicesMachine>;

const PLATFORMS = new Set(['desktop', 'mobile', 'tablet', 'tv']);

export function DevicesSection({ devices }: { devices: DevicesRef | undefined }) {
  const { t } = useTranslation();
  return (
    <SectionCard id="devices" titleId="devices-title" title={t('devices.title')}>
      {devices ? <Devices devices={devices} /> : <Loading className="mt-3 text-sm" />}
    </SectionCard>
  );
}

function Devices({ devices }: { devices: DevicesRef }) {
  const { t } = useTranslation();
  const { devices: list, error, notice, pending } = useSelector(devices, (s) => s.context);
  const state = useSelector(devices, (s) => s.value);
  const date = useDateFormat('medium', 'short');
  const place = usePlaceName(t('devices.unknown'));
  const busy = state !== 'ready';
  const confirming = useSelector(devices, (s) => s.matches('confirming'));
  // A sign-out asks first; a trust is withdrawn at once.
  const asking =
    pending && pending.action !== 'untrust'
      ? {
          key: `devices.confirm.${pending.action}`,
          name: nameOf(
            t,
            list.find((d) => 'id' in pending && d.id === pending.id),
          ),
        }
      : null;
  const others = list.some((d) => !d.current && d.status === 'active');
  // When the question closes, focus goes to the notice (or the failure) saying what happened.
  const notices = useRef<HTMLDivElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (pending !== null && pending.action !== 'untrust') {
      asked.current = true;
      return;
    }
    if (pending === null && asked.current) {
      asked.current = false;
      notices.current?.focus();
    }
  }, [pending]);
  return (
    <div className="mt-3 space-y-4">
      <div aria-live="polite" ref={notices} tabIndex={-1} className="outline-none">
        <SaveNotice>{notice && t(`devices.notice.${notice}`)}</SaveNotice>
        {error && state !== 'failed' && (
          <Alert tone="error">
            {t(error === 'step_up_required' ? 'devices.error.step_up_required' : 'devices.error.action')}
            {error === 'step_up_required' && <StepUpLink />}
          </Alert>
        )}
      </div>
      {state === 'failed' && (
        <div>
          <LoadFailed
            message={t('devices.error.load')}
            retry={t('devices.error.retry')}
            onRetry={() => devices.send({ type: 'RETRY' })}
          />
        </div>
      )}
      {state === 'loading' && list.length === 0 && <Loading className="text-sm" />}
      {list.length > 0 && state !== 'failed' && (
        <ul className="space-y-3" data-testid="devices">
          {list.map((device) => (
            <li key={device.id}>
              <DeviceCard device={device} busy={busy} date={date} place={place} send={devices.send} />
            </li>
          ))}
        </ul>
      )}
      {asking && (
        <ConfirmQuestion
          id="devices-confirm"
          level={3}
          title={t(`${asking.key}.title`, { name: asking.name })}
          text={t(`${asking.key}.text`, { name: asking.name })}
          yes={t(`${asking.key}.yes`)}
          no={t('devices.confirm.no')}
          busy={!confirming}
          onConfirm={() => devices.send({ type: 'CONFIRM' })}
          onCancel={() => devices.send({ type: 'CANCEL' })}
        />
      )}
      {state !== 'failed' && (
        <div className="flex flex-wrap gap-3 border-t border-slate-200 pt-4">
          {others && (
            <Button variant="secondary" disabled={busy} onClick={() => devices.send({ type: 'LOG_OUT_OTHERS' })}>
              {t('devices.logoutOthers')}
            </Button>
          )}
          <Button variant="danger" disabled={busy} onClick={() => devices.send({ type: 'LOG_OUT_EVERYWHERE' })}>
            {t('devices.logoutEverywhere')}
          </Button>
        </div>
      )}
    </div>
  );
}

type T = ReturnType<typeof useTranslation>['t'];

/** A device's name: the kind of device its browser says it is, or "unknown device". */
function nameOf(t: T, device: Device | undefined): string {
  const platform = device?.platform && PLATFORMS.has(device.platform) ? device.platform : 'unknown';
  return t(`devices.name.${platform}`);
}

function DeviceCard({
  device,
  busy,
  date,
  place,
  send,
}: {
  device: Device;
  busy: boolean;
  date: (iso: string) => string;
  place: (where: Place) => string;
  send: DevicesRef['send'];
}) {
  const { t } = useTranslation();
  const headingId = `device-${device.id}`;
  const locale = useIntlLocale();
  const services = new Intl.ListFormat(locale, { style: 'narrow', type: 'unit' });
  const name = nameOf(t, device);
  const unknown = t('devices.unknown');
  return (
    <article
      aria-labelledby={headingId}
      className="rounded-lg border border-slate-200 bg-white p-4"
      data-testid="device"
      data-current={device.current}
    >
      <h3 id={headingId} className="font-semibold">
        {name}
        {device.current && <TrailingBadge>{t('devices.current')}</TrailingBadge>}
      </h3>
      <dl className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-600">{t('devices.browser')}</dt>
        <dd className="mb-1 font-medium sm:mb-0">{device.browser ?? unknown}</dd>
        <dt className="text-slate-600">{t('devices.os')}</dt>
        <dd className="mb-1 font-medium sm:mb-0">{device.os ?? unknown}</dd>
        <dt className="text-slate-600">{t('devices.location')}</dt>
        <dd className="mb-1 font-medium sm:mb-0">{place(device)}</dd>
        <dt className="text-slate-600">{t('devices.firstSeen')}</dt>
        <dd className="mb-1 font-medium sm:mb-0">{date(device.first_seen_at)}</dd>
        <dt className="text-slate-600">{t('devices.lastSeen')}</dt>
        <dd className="mb-1 font-medium sm:mb-0">{date(device.last_seen_at)}</dd>
        <dt className="text-slate-600">{t('devices.services')}</dt>
        <dd className="mb-1 font-medium sm:mb-0">
          {device.services.length > 0 ? services.format(device.services.map((s) => s.name)) : t('devices.noServices')}
        </dd>
        <dt className="text-slate-600">{t('devices.status')}</dt>
        <dd data-testid="device-status" className="mb-1 font-medium sm:mb-0">
          {t(`devices.state.${device.status}`)}
          <span aria-hidden="true"> · </span>
          <span className="sr-only">, </span>
          {t('devices.sessions', { count: device.sessions })}
        </dd>
        {device.trusted_until && (
          <>
            <dt className="text-slate-600">{t('devices.trust')}</dt>
            <dd className="mb-1 font-medium sm:mb-0">
              {t('devices.trustedUntil', { date: date(device.trusted_until) })}
            </dd>
          </>
        )}
      </dl>
      {((!device.current && device.status === 'active') || device.trusted_until) && (
        <div className="mt-3 flex flex-wrap gap-2">
          {!device.current && device.status === 'active' && (
            <Button
              variant="danger"
              size="sm"
              disabled={busy}
              aria-label={t('devices.logoutFor', { name })}
              onClick={() => send({ type: 'LOG_OUT', id: device.id })}
            >
              {t('devices.logout')}
            </Button>
          )}
          {device.trusted_until && (
            <Button
              variant="secondary"
              size="sm"
              disabled={busy}
              aria-label={t('devices.untrustFor', { name })}
              onClick={() => send({ type: 'UNTRUST', id: device.id })}
            >
              {t('devices.untrust')}
            </Button>
          )}
        </div>
      )}
    </article>
  );
}

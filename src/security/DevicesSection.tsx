// The security overview's devices and sessions (spec §2 /security, §3 "Session/device"): each
// device with its browser, system, country, first and last use, services, status and open
// sessions; signing one out, every other one, or everywhere after a yes; a trust withdrawn. A
// projection of the devices machine (machines/devices.ts).
import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { usePlaceName, type Place } from './place.ts';
import type { ActorRefFrom } from 'xstate';
import type { Device } from '../../contract/schemas.ts';
import type { DeviceAction, devicesMachine } from '../../machines/devices.ts';
import { pathOf } from '../../machines/routes.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';

type DevicesRef = ActorRefFrom<typeof devicesMachine>;

const PLATFORMS = new Set(['desktop', 'mobile', 'tablet', 'tv']);

export function DevicesSection({ devices }: { devices: DevicesRef | undefined }) {
  const { t } = useTranslation();
  return (
    <Card id="devices" aria-labelledby="devices-title">
      <h2 id="devices-title" className="text-lg font-semibold">
        {t('devices.title')}
      </h2>
      {devices ? (
        <Devices devices={devices} />
      ) : (
        <p role="status" className="mt-3 text-sm">
          {t('common.loading')}
        </p>
      )}
    </Card>
  );
}

function Devices({ devices }: { devices: DevicesRef }) {
  const { t, i18n } = useTranslation();
  const { devices: list, error, notice, pending } = useSelector(devices, (s) => s.context);
  const state = useSelector(devices, (s) => s.value);
  const locale = i18n.language.replace('_', '-');
  const dates = useMemo(() => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }), [locale]);
  const date = (iso: string) => dates.format(new Date(iso));
  const place = usePlaceName(t('devices.unknown'));
  const busy = state !== 'ready';
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
        {notice && <Alert tone="success">{t(`devices.notice.${notice}`)}</Alert>}
        {error && state !== 'failed' && (
          <Alert tone="error">
            {t(error === 'step_up_required' ? 'devices.error.step_up_required' : 'devices.error.action')}
            {error === 'step_up_required' && (
              <>
                {' '}
                <Link to={pathOf('security', 'methods')} className="underline">
                  {t('devices.error.stepUpLink')}
                </Link>
              </>
            )}
          </Alert>
        )}
      </div>
      {state === 'failed' && (
        <div>
          <Alert tone="error" role="alert">
            {t('devices.error.load')}
          </Alert>
          <Button className="mt-3" onClick={() => devices.send({ type: 'RETRY' })}>
            {t('devices.error.retry')}
          </Button>
        </div>
      )}
      {state === 'loading' && list.length === 0 && (
        <p role="status" className="text-sm">
          {t('common.loading')}
        </p>
      )}
      {list.length > 0 && state !== 'failed' && (
        <ul className="space-y-3" data-testid="devices">
          {list.map((device) => (
            <li key={device.id}>
              <DeviceCard device={device} busy={busy} date={date} place={place} send={devices.send} />
            </li>
          ))}
        </ul>
      )}
      {pending && pending.action !== 'untrust' && (
        <Confirmation
          devices={devices}
          action={pending}
          name={nameOf(
            t,
            list.find((d) => 'id' in pending && d.id === pending.id),
          )}
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
  const { t, i18n } = useTranslation();
  const headingId = `device-${device.id}`;
  const services = new Intl.ListFormat(i18n.language.replace('_', '-'), { style: 'narrow', type: 'unit' });
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
        {device.current && (
          <>
            {' '}
            <span className="sr-only">— </span>
            <Badge>{t('devices.current')}</Badge>
          </>
        )}
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

/** The question before a sign-out: focus comes to it, and No is one key away. */
function Confirmation({
  devices,
  action,
  name,
}: {
  devices: DevicesRef;
  action: Exclude<DeviceAction, { action: 'untrust' }>;
  name: string;
}) {
  const { t } = useTranslation();
  const busy = useSelector(devices, (s) => !s.matches('confirming'));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const key = `devices.confirm.${action.action}`;
  return (
    <div
      role="alertdialog"
      aria-labelledby="devices-confirm-title"
      aria-describedby="devices-confirm-text"
      className="rounded-lg border-2 border-amber-500 bg-white p-4"
      onKeyDown={(event) => {
        if (event.key === 'Escape') devices.send({ type: 'CANCEL' });
      }}
    >
      <h3 id="devices-confirm-title" ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {t(`${key}.title`, { name })}
      </h3>
      <p id="devices-confirm-text" className="mt-1 text-sm text-slate-800">
        {t(`${key}.text`, { name })}
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button variant="danger" loading={busy} onClick={() => devices.send({ type: 'CONFIRM' })}>
          {t(`${key}.yes`)}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => devices.send({ type: 'CANCEL' })}>
          {t('devices.confirm.no')}
        </Button>
      </div>
    </div>
  );
}

// /profile, /profile/edit-info, /profile/edit-credentials: the profile's overview (personal,
// contact and banking information) and its forms, a projection of the profile machine
// (machines/profile.ts): which part shows is the machine's state, never the URL.
import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import { VARIANT_LOCALES, type Locale } from '../../contract/constants.ts';
import { GENDERS, IBAN_COUNTRIES } from '../../contract/profile.ts';
import type { ContactEntry, UserProfile } from '../../contract/schemas.ts';
import type { ContactKind, NewContact, profileMachine } from '../../machines/profile.ts';
import { pathOf } from '../../machines/routes.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ChannelChoice } from '../components/ChannelChoice.tsx';
import { CodeEntryForm, type CodeEntryRef } from '../components/CodeEntry.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { FileInput } from '../components/FileInput.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { NATIVE } from '../components/LanguageSwitch.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { variant } from '../variant.ts';

type ProfileRef = ActorRefFrom<typeof profileMachine>;
type Part = 'overview' | 'editingInfo' | 'credentials' | 'download';

export default function ProfilePage() {
  const { t } = useTranslation();
  const profile = useFlowChild('profile');
  const part = useSelector(profile, (s) =>
    s ? ((['editingInfo', 'credentials', 'download'] as const).find((name) => s.matches(name)) ?? 'overview') : null,
  );
  const title =
    part === 'editingInfo'
      ? t('profile.editInfo.title')
      : part === 'credentials'
        ? t('profile.credentials.title')
        : part === 'download'
          ? t('profile.download.title')
          : t('profile.title');
  return (
    <UserLayout>
      <Breadcrumbs
        trail={[
          { label: t('profile.title'), to: pathOf('profile', 'overview') },
          ...(part && part !== 'overview'
            ? [{ label: title, to: pathOf('profile', part === 'editingInfo' ? 'editInfo' : part) }]
            : []),
        ]}
      />
      <h1 className="mt-3 text-2xl font-bold">{title}</h1>
      {profile && part ? (
        <Part profile={profile} part={part} />
      ) : (
        <p role="status" className="mt-4">
          {t('common.loading')}
        </p>
      )}
    </UserLayout>
  );
}

function Part({ profile, part }: { profile: ProfileRef; part: Part }) {
  if (part === 'editingInfo') return <InfoForm profile={profile} />;
  if (part === 'credentials') return <Credentials profile={profile} />;
  if (part === 'download') return <Download profile={profile} />;
  return <Overview profile={profile} />;
}

/** Dates in the reader's language. */
function useDates() {
  const { i18n } = useTranslation();
  return useMemo(
    () => new Intl.DateTimeFormat(i18n.language.replace('_', '-'), { dateStyle: 'long', timeZone: 'UTC' }),
    [i18n.language],
  );
}

/** Country names in the reader's language. */
function useCountries() {
  const { i18n } = useTranslation();
  return useMemo(() => {
    const names = new Intl.DisplayNames([i18n.language.replace('_', '-')], { type: 'region' });
    return (code: string) => names.of(code) ?? code;
  }, [i18n.language]);
}

function Overview({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { user, notice, error } = useSelector(profile, (s) => s.context);
  const busy = useSelector(profile, (s) => s.hasTag('busy'));
  const dates = useDates();
  const country = useCountries();
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        {notice && <Alert tone="success">{t(`profile.notice.${notice}`)}</Alert>}
        {error && <Alert tone="error">{t([`errors.${error}`, 'errors.internal_error'])}</Alert>}
      </div>
      <Card aria-labelledby="picture-title">
        <h2 id="picture-title" className="text-lg font-semibold">
          {t('profile.picture.title')}
        </h2>
        <div className="mt-3 flex flex-wrap items-start gap-4">
          {user.picture ? (
            <img
              src={`/api/user/picture?v=${encodeURIComponent(user.picture)}`}
              alt={t('profile.picture.alt')}
              width={96}
              height={96}
              className="h-24 w-24 rounded-full object-cover"
              data-testid="picture"
            />
          ) : (
            <span
              aria-hidden="true"
              className="flex h-24 w-24 items-center justify-center rounded-full bg-brand-light text-2xl font-semibold text-brand-dark"
            >
              {(user.firstname[0] ?? '') + (user.lastname[0] ?? '')}
            </span>
          )}
          <div className="min-w-0 flex-1 space-y-2">
            <FileInput
              label={t(user.picture ? 'profile.picture.change' : 'profile.picture.add')}
              accept="image/jpeg,image/png,image/webp"
              disabled={busy}
              onFile={(file) => profile.send({ type: 'PICTURE_CHOSEN', file })}
            />
            {user.picture && (
              <Button
                variant="secondary"
                size="sm"
                disabled={busy}
                onClick={() => profile.send({ type: 'REMOVE_PICTURE' })}
              >
                {t('profile.picture.remove')}
              </Button>
            )}
          </div>
        </div>
      </Card>
      <Card aria-labelledby="personal-title">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="personal-title" className="text-lg font-semibold">
            {t('profile.personal.title')}
          </h2>
          <Button variant="secondary" size="sm" onClick={() => profile.send({ type: 'EDIT_INFO' })}>
            {t('profile.personal.edit')}
          </Button>
        </div>
        <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <Item label={t('profile.field.firstname')}>{user.firstname}</Item>
          <Item label={t('profile.field.lastname')}>{user.lastname}</Item>
          <Item label={t('profile.field.birthdate')}>
            {user.birthdate ? dates.format(new Date(`${user.birthdate}T00:00:00Z`)) : t('profile.notGiven')}
          </Item>
          <Item label={t('profile.field.gender')}>
            {user.gender ? t(`profile.gender.${user.gender}`) : t('profile.notGiven')}
          </Item>
          <Item label={t('profile.field.language')}>{NATIVE[user.language as Locale] ?? user.language}</Item>
        </dl>
      </Card>
      <Card aria-labelledby="contact-title">
        <h2 id="contact-title" className="text-lg font-semibold">
          {t('profile.contact.title')}
        </h2>
        <Contacts title={t('profile.contact.emails')} entries={user.email} />
        <Contacts title={t('profile.contact.phones')} entries={user.phone} />
      </Card>
      <Card aria-labelledby="banking-title">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="banking-title" className="text-lg font-semibold">
            {t('profile.banking.title')}
          </h2>
          <Link to={pathOf('profile', 'credentials')} className="btn btn-secondary btn-sm">
            {user.banking ? t('profile.banking.change') : t('profile.banking.add')}
          </Link>
        </div>
        {user.banking ? (
          <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
            <Item label={t('profile.field.iban')}>
              <span className="font-mono" data-testid="iban-masked">
                {user.banking.iban}
              </span>
            </Item>
            <Item label={t('profile.field.country')}>{country(user.banking.country)}</Item>
          </dl>
        ) : (
          <p className="mt-3 text-sm text-slate-700">{t('profile.banking.none')}</p>
        )}
      </Card>
      <Card aria-labelledby="data-title">
        <h2 id="data-title" className="text-lg font-semibold">
          {t('profile.download.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('profile.download.intro')}</p>
        <Link to={pathOf('profile', 'download')} className="btn btn-secondary btn-sm mt-3">
          {t('profile.download.open')}
        </Link>
      </Card>
    </div>
  );
}

/** The account's data as one JSON file: what it holds, and the button that saves it. */
function Download({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { notice, error } = useSelector(profile, (s) => s.context);
  const busy = useSelector(profile, (s) => s.hasTag('busy'));
  return (
    <Card className="mt-5 max-w-2xl">
      <p>{t('profile.download.intro')}</p>
      <ul className="mt-3 list-disc space-y-1 pl-5 text-sm">
        {(['profile', 'contacts', 'security', 'devices', 'history', 'partners', 'cards'] as const).map((part) => (
          <li key={part}>{t(`profile.download.part.${part}`)}</li>
        ))}
      </ul>
      <p className="mt-3 text-sm text-slate-700">{t('profile.download.noSecrets')}</p>
      <div aria-live="polite" className="mt-3">
        {notice === 'downloaded' && <Alert tone="success">{t('profile.notice.downloaded')}</Alert>}
        {error && <Alert tone="error">{t([`errors.${error}`, 'errors.internal_error'])}</Alert>}
      </div>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button loading={busy} onClick={() => profile.send({ type: 'DOWNLOAD' })}>
          {t('profile.download.button')}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => profile.send({ type: 'CANCEL' })}>
          {t('profile.backToProfile')}
        </Button>
      </div>
    </Card>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-medium text-slate-700">{label}</dt>
      <dd className="break-words">{children}</dd>
    </>
  );
}

function Contacts({ title, entries }: { title: string; entries: ContactEntry[] }) {
  const { t } = useTranslation();
  return (
    <>
      <h3 className="mt-4 text-sm font-semibold">{title}</h3>
      <ul className="mt-1 space-y-1 text-sm">
        {entries.map((entry) => (
          <li key={entry.value} className="flex flex-wrap items-center gap-2">
            <span className="break-all">{entry.value}</span>
            {entry.default && <Badge>{t('profile.contact.primary')}</Badge>}
            <span className={entry.verified ? 'text-emerald-800' : 'text-amber-800'}>
              {entry.verified ? t('profile.contact.verified') : t('profile.contact.unverified')}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The submit of a form goes to the machine; the page never reloads. */
const submitting = (profile: ProfileRef) => (event: FormEvent) => {
  event.preventDefault();
  profile.send({ type: 'SUBMIT' });
};

function InfoForm({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { info, fieldErrors, error, today } = useSelector(profile, (s) => s.context);
  const busy = useSelector(profile, (s) => s.hasTag('busy'));
  const change = (field: keyof typeof info) => (value: string) => profile.send({ type: 'CHANGE_INFO', field, value });
  const problem = (field: 'firstname' | 'lastname' | 'birthdate') =>
    fieldErrors[field] ? t(`profile.problem.${field}.${fieldErrors[field]}`) : null;
  const languages = Object.values(VARIANT_LOCALES[variant].locales);
  return (
    <Card className="mt-5 max-w-xl">
      <form noValidate onSubmit={submitting(profile)} className="space-y-4">
        <TextField
          label={t('profile.field.firstname')}
          value={info.firstname}
          onChange={change('firstname')}
          autoComplete="given-name"
          first
          problem={problem('firstname')}
        />
        <TextField
          label={t('profile.field.lastname')}
          value={info.lastname}
          onChange={change('lastname')}
          autoComplete="family-name"
          problem={problem('lastname')}
        />
        <TextField
          label={t('profile.field.birthdate')}
          type="date"
          max={today}
          value={info.birthdate}
          onChange={change('birthdate')}
          autoComplete="bday"
          problem={problem('birthdate')}
        />
        <SelectField
          label={t('profile.field.gender')}
          value={info.gender}
          onChange={change('gender')}
          autoComplete="sex"
          options={[
            { value: '', label: t('profile.gender.none') },
            ...GENDERS.map((g) => ({ value: g, label: t(`profile.gender.${g}`) })),
          ]}
        />
        <SelectField
          label={t('profile.field.language')}
          value={info.language}
          onChange={change('language')}
          options={languages.map((locale) => ({ value: locale, label: NATIVE[locale], lang: locale.slice(0, 2) }))}
        />
        <p className="text-sm text-slate-700">{t('profile.editInfo.languageHint')}</p>
        <ErrorMessage error={error ? { code: error } : null} />
        <div className="flex flex-wrap gap-3">
          <Button type="submit" loading={busy}>
            {t('profile.save')}
          </Button>
          <Button variant="secondary" disabled={busy} onClick={() => profile.send({ type: 'CANCEL' })}>
            {t('profile.cancel')}
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** edit-credentials: the emails and phone numbers with their actions, then the bank account. */
function Credentials({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { notice, error, pending } = useSelector(profile, (s) => s.context);
  const confirming = useSelector(profile, (s) => s.matches({ credentials: 'confirmingDelete' }));
  const adding = useSelector(profile, (s) => s.matches({ credentials: 'adding' }));
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        {notice && <Alert tone="success">{t(`profile.notice.${notice}`)}</Alert>}
        {error && !adding && (
          <Alert tone="error">
            {t([`errors.${error}`, 'errors.internal_error'])}
            {error === 'primary_needs_mfa' && (
              <>
                {' '}
                <Link to={pathOf('security', 'methods')} className="font-medium underline">
                  {t('profile.contacts.toSecurity')}
                </Link>
              </>
            )}
          </Alert>
        )}
      </div>
      <ContactList profile={profile} kind="email" />
      <ContactList profile={profile} kind="phone" />
      <BankForm profile={profile} />
      {confirming && pending && <DeleteQuestion profile={profile} value={pending.value} />}
    </div>
  );
}

function ContactList({ profile, kind }: { profile: ProfileRef; kind: ContactKind }) {
  const { t } = useTranslation();
  const entries = useSelector(profile, (s) => s.context.user[kind]);
  const busy = useSelector(profile, (s) => !s.matches({ credentials: 'ready' }));
  const addingHere = useSelector(
    profile,
    (s) => s.matches({ credentials: 'adding' }) && s.context.newContact.kind === kind,
  );
  const titleId = `${kind}-contacts`;
  return (
    <Card aria-labelledby={titleId}>
      <h2 id={titleId} className="text-lg font-semibold">
        {t(`profile.contacts.${kind}.title`)}
      </h2>
      <ul className="mt-3 divide-y divide-slate-200" data-testid={`${kind}-list`}>
        {entries.map((entry) => (
          <li key={entry.value} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
            <span className="min-w-0 break-all font-medium">{entry.value}</span>
            {entry.default && <Badge>{t('profile.contact.primary')}</Badge>}
            <span className={`text-sm ${entry.verified ? 'text-emerald-800' : 'text-amber-800'}`}>
              {entry.verified ? t('profile.contact.verified') : t('profile.contact.unverified')}
            </span>
            {!entry.default && (
              <span className="ml-auto flex flex-wrap gap-2">
                <Button
                  variant="secondary"
                  size="sm"
                  disabled={busy}
                  aria-label={t('profile.contacts.makePrimaryFor', { value: entry.value })}
                  onClick={() => profile.send({ type: 'MAKE_PRIMARY', contact: { kind, value: entry.value } })}
                >
                  {t('profile.contacts.makePrimary')}
                </Button>
                <Button
                  id={deleteButtonId(entry.value)}
                  variant="danger"
                  size="sm"
                  disabled={busy}
                  aria-label={t('profile.contacts.deleteFor', { value: entry.value })}
                  onClick={() => profile.send({ type: 'DELETE_CONTACT', contact: { kind, value: entry.value } })}
                >
                  {t('profile.contacts.delete')}
                </Button>
              </span>
            )}
          </li>
        ))}
      </ul>
      {addingHere ? (
        <AddContact profile={profile} kind={kind} />
      ) : (
        <Button
          className="mt-3"
          variant="secondary"
          disabled={busy}
          onClick={() => profile.send({ type: 'ADD_CONTACT', kind })}
        >
          {t(`profile.contacts.${kind}.add`)}
        </Button>
      )}
    </Card>
  );
}

const deleteButtonId = (value: string) => `delete-${value.replace(/[^\w-]/g, '_')}`;

/** A new address or number: typed, then the code it received. */
function AddContact({ profile, kind }: { profile: ProfileRef; kind: ContactKind }) {
  const { t } = useTranslation();
  const { newContact, error, challenge } = useSelector(profile, (s) => s.context);
  const sending = useSelector(profile, (s) => s.matches({ credentials: { adding: 'sending' } }));
  const entry = useSelector(profile, (s) => s.children.contactCode) as
    CodeEntryRef<UserProfile, NewContact> | undefined;
  const back = (
    <Button variant="secondary" onClick={() => profile.send({ type: 'BACK' })}>
      {t('profile.cancel')}
    </Button>
  );
  // Opened in place: focus goes to its field, and to the code's once the code is sent.
  const area = useRef<HTMLDivElement>(null);
  const codeStep = !!(entry && challenge);
  useEffect(() => {
    area.current?.querySelector('input')?.focus();
  }, [codeStep]);
  return (
    <div ref={area}>
      {codeStep ? (
        <div className="mt-4 space-y-3 border-t border-slate-200 pt-4">
          <p className="text-sm">{t(`profile.contacts.${kind}.codeSent`, { target: newContact.value })}</p>
          <CodeEntryForm entry={entry!}>{back}</CodeEntryForm>
        </div>
      ) : (
        <form
          noValidate
          className="mt-4 space-y-4 border-t border-slate-200 pt-4"
          onSubmit={(event) => {
            event.preventDefault();
            profile.send({ type: 'SEND_CODE' });
          }}
        >
          <TextField
            label={t(`profile.contacts.${kind}.new`)}
            value={newContact.value}
            type={kind === 'email' ? 'email' : 'tel'}
            autoComplete={kind === 'email' ? 'email' : 'tel'}
            onChange={(value) => profile.send({ type: 'CHANGE_NEW', value })}
            error={error ? { code: error } : null}
          />
          {kind === 'phone' && (
            <ChannelChoice
              channel={newContact.channel}
              onChange={(channel) => profile.send({ type: 'SET_CHANNEL', channel })}
            />
          )}
          <div className="flex flex-wrap gap-3">
            <Button type="submit" loading={sending}>
              {t('profile.contacts.sendCode')}
            </Button>
            {back}
          </div>
        </form>
      )}
    </div>
  );
}

/** The question before a deletion: focus comes to it, and No is one key away. */
function DeleteQuestion({ profile, value }: { profile: ProfileRef; value: string }) {
  const { t } = useTranslation();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    // Closed: back to the entry's Delete button, or where the list says what happened.
    return () => {
      document.getElementById(deleteButtonId(value))?.focus();
    };
  }, [value]);
  return (
    <div
      role="alertdialog"
      aria-labelledby="delete-title"
      aria-describedby="delete-text"
      className="rounded-lg border-2 border-amber-500 bg-white p-4"
      onKeyDown={(event) => {
        if (event.key === 'Escape') profile.send({ type: 'KEEP' });
      }}
    >
      <h2 id="delete-title" ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {t('profile.contacts.confirm.title', { value })}
      </h2>
      <p id="delete-text" className="mt-1 text-sm text-slate-800">
        {t('profile.contacts.confirm.text', { value })}
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button variant="danger" onClick={() => profile.send({ type: 'CONFIRM' })}>
          {t('profile.contacts.confirm.yes')}
        </Button>
        <Button variant="secondary" onClick={() => profile.send({ type: 'KEEP' })}>
          {t('profile.contacts.confirm.no')}
        </Button>
      </div>
    </div>
  );
}

function BankForm({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { bank, fieldErrors, user } = useSelector(profile, (s) => s.context);
  const saving = useSelector(profile, (s) => s.matches({ credentials: 'savingBank' }));
  const busy = useSelector(profile, (s) => !s.matches({ credentials: 'ready' }));
  const country = useCountries();
  const countries = useMemo(
    () =>
      IBAN_COUNTRIES.map((code) => ({ value: code, label: country(code) })).sort((a, b) =>
        a.label.localeCompare(b.label),
      ),
    [country],
  );
  return (
    <div>
      <Card aria-labelledby="bank-title">
        <h2 id="bank-title" className="text-lg font-semibold">
          {t('profile.banking.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          {user.banking ? t('profile.banking.current', { iban: user.banking.iban }) : t('profile.banking.none')}
        </p>
        <form noValidate onSubmit={submitting(profile)} className="mt-4 space-y-4">
          <SelectField
            label={t('profile.field.country')}
            value={bank.country}
            autoComplete="country"
            onChange={(value) => profile.send({ type: 'CHANGE_BANK', field: 'country', value })}
            options={[{ value: '', label: t('profile.banking.chooseCountry') }, ...countries]}
          />
          <TextField
            label={t('profile.field.iban')}
            value={bank.iban}
            first
            autoComplete="off"
            code
            onChange={(value) => profile.send({ type: 'CHANGE_BANK', field: 'iban', value })}
            problem={fieldErrors.iban ? t('errors.iban_invalid') : null}
          />
          <p className="text-sm text-slate-700">{t('profile.banking.told')}</p>
          <div aria-live="assertive">
            {fieldErrors.bank && (
              <Alert tone="error">
                {t(fieldErrors.bank === 'step_up_required' ? 'errors.step_up_required' : 'profile.banking.failed')}
              </Alert>
            )}
          </div>
          <div className="flex flex-wrap gap-3">
            <Button type="submit" loading={saving} disabled={busy}>
              {t('profile.banking.save')}
            </Button>
            <Button variant="secondary" disabled={busy} onClick={() => profile.send({ type: 'CANCEL' })}>
              {t('profile.backToProfile')}
            </Button>
          </div>
        </form>
      </Card>
    </div>
  );
}

// /profile, /profile/edit-info, /profile/edit-credentials, /profile/edit-bank: the profile's overview
// (personal, contact and banking information) and its forms, a projection of the profile machine
// (machines/profile.ts): which part shows is the machine's state, never the URL.
import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import { VARIANT_LOCALES, type Locale } from '../../contract/constants.ts';
import { GENDERS, IBAN_COUNTRIES } from '../../contract/profile.ts';
import { ibanCountryOf } from '../../contract/iban.ts';
import { formatPhone } from '../../contract/rules.ts';
import type { ContactEntry, UserProfile } from '../../contract/schemas.ts';
import type { ContactKind, NewContact, profileMachine } from '../../machines/profile.ts';
import { pathOf } from '../../machines/routes.ts';
import { Link } from 'react-router';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmQuestion } from '../components/ConfirmQuestion.tsx';
import { SectionCard } from '../components/SectionCard.tsx';
import { useCountryName, useIntlLocale } from '../components/useIntl.ts';
import { ChannelChoice } from '../components/ChannelChoice.tsx';
import { CodeEntryForm, type CodeEntryRef } from '../components/CodeEntry.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { FileInput } from '../components/FileInput.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { NATIVE } from '../components/LanguageSwitch.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { Loading } from '../components/Pending.tsx';
import { Form } from '../components/Form.tsx';
import { variant } from '../variant.ts';

type ProfileRef = ActorRefFrom<typeof profileMachine>;
type Part = 'overview' | 'editingInfo' | 'credentials' | 'bank' | 'download';

export default function ProfilePage() {
  const { t } = useTranslation();
  const profile = useFlowChild('profile');
  const part = useSelector(profile, (s) =>
    s
      ? ((['editingInfo', 'credentials', 'bank', 'download'] as const).find((name) => s.matches(name)) ?? 'overview')
      : null,
  );
  const title =
    part === 'editingInfo'
      ? t('profile.editInfo.title')
      : part === 'credentials'
        ? t('profile.credentials.title')
        : part === 'bank'
          ? t('profile.banking.title')
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
      {profile && part ? <Part profile={profile} part={part} /> : <Loading className="mt-4" />}
    </UserLayout>
  );
}

function Part({ profile, part }: { profile: ProfileRef; part: Part }) {
  if (part === 'editingInfo') return <InfoForm profile={profile} />;
  if (part === 'credentials') return <Credentials profile={profile} />;
  if (part === 'bank') return <BankForm profile={profile} />;
  if (part === 'download') return <Download profile={profile} />;
  return <Overview profile={profile} />;
}

/** Dates in the reader's language. */
function useDates() {
  const locale = useIntlLocale();
  return useMemo(() => new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }), [locale]);
}

function Overview({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { user, notice, error } = useSelector(profile, (s) => s.context);
  const busy = useSelector(profile, (s) => s.hasTag('busy'));
  const removing = useSelector(profile, (s) => s.matches({ overview: 'removing' }));
  const dates = useDates();
  const country = useCountryName();
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        <SaveNotice>{notice && t(`profile.notice.${notice}`)}</SaveNotice>
        {error && <Alert tone="error">{t([`errors.${error}`, 'errors.internal_error'])}</Alert>}
      </div>
      <SectionCard titleId="picture-title" title={t('profile.picture.title')}>
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
                loading={removing}
                onClick={() => profile.send({ type: 'REMOVE_PICTURE' })}
              >
                {t('profile.picture.remove')}
              </Button>
            )}
          </div>
        </div>
      </SectionCard>
      <SectionCard
        titleId="personal-title"
        title={t('profile.personal.title')}
        action={
          <Button variant="secondary" size="sm" onClick={() => profile.send({ type: 'EDIT_INFO' })}>
            {t('profile.personal.edit')}
          </Button>
        }
      >
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
      </SectionCard>
      <SectionCard
        titleId="contact-title"
        title={t('profile.contact.title')}
        action={
          <Link to={pathOf('profile', 'credentials')} className="btn btn-secondary btn-sm">
            {t('profile.contact.manage')}
          </Link>
        }
      >
        <Contacts title={t('profile.contact.emails')} entries={user.email} />
        <Contacts title={t('profile.contact.phones')} entries={user.phone} />
      </SectionCard>
      <SectionCard
        titleId="banking-title"
        title={t('profile.banking.title')}
        action={
          <Link to={pathOf('profile', 'bank')} className="btn btn-secondary btn-sm">
            {user.banking ? t('profile.banking.change') : t('profile.banking.add')}
          </Link>
        }
      >
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
      </SectionCard>
      <SectionCard titleId="data-title" title={t('profile.download.title')} intro={t('profile.download.intro')}>
        <Link to={pathOf('profile', 'download')} className="btn btn-secondary btn-sm mt-3">
          {t('profile.download.open')}
        </Link>
      </SectionCard>
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
            <span className="break-all">{formatPhone(entry.value)}</span>
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
      <Form onSubmit={() => profile.send({ type: 'SUBMIT' })} className="space-y-4">
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
        <SubmitOrCancel profile={profile} submit={t('profile.save')} cancel={t('profile.cancel')} busy={busy} />
      </Form>
    </Card>
  );
}

/** A form's submit, and beside it the way back to the overview (CANCEL). `saving`: what the submit
 * waits for, when the form is busy with other things too. */
function SubmitOrCancel({
  profile,
  submit,
  cancel,
  busy,
  saving = busy,
}: {
  profile: ProfileRef;
  submit: string;
  cancel: string;
  busy: boolean;
  saving?: boolean;
}) {
  return (
    <div className="flex flex-wrap gap-3">
      <Button type="submit" loading={saving} disabled={busy}>
        {submit}
      </Button>
      <Button variant="secondary" disabled={busy} onClick={() => profile.send({ type: 'CANCEL' })}>
        {cancel}
      </Button>
    </div>
  );
}

/** edit-credentials: the emails and phone numbers with their actions. */
function Credentials({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { notice, error, pending } = useSelector(profile, (s) => s.context);
  const confirming = useSelector(profile, (s) => s.matches({ credentials: 'confirmingDelete' }));
  const adding = useSelector(profile, (s) => s.matches({ credentials: 'adding' }));
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        <SaveNotice>{notice && t(`profile.notice.${notice}`)}</SaveNotice>
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
      {/* Closed: focus goes back to the entry's Delete button, or where the list says what happened. */}
      {confirming && pending && (
        <ConfirmQuestion
          id="delete"
          title={t('profile.contacts.confirm.title', { value: pending.value })}
          text={t('profile.contacts.confirm.text', { value: pending.value })}
          yes={t('profile.contacts.confirm.yes')}
          no={t('profile.contacts.confirm.no')}
          onConfirm={() => profile.send({ type: 'CONFIRM' })}
          onCancel={() => profile.send({ type: 'KEEP' })}
          returnFocusTo={deleteButtonId(pending.value)}
        />
      )}
    </div>
  );
}

function ContactList({ profile, kind }: { profile: ProfileRef; kind: ContactKind }) {
  const { t } = useTranslation();
  const entries = useSelector(profile, (s) => s.context.user[kind]);
  const busy = useSelector(profile, (s) => !s.matches({ credentials: 'ready' }));
  // The contact being made primary, while the server answers.
  const switching = useSelector(profile, (s) =>
    s.matches({ credentials: 'switching' }) && s.context.pending?.kind === kind ? s.context.pending.value : null,
  );
  const addingHere = useSelector(
    profile,
    (s) => s.matches({ credentials: 'adding' }) && s.context.newContact.kind === kind,
  );
  return (
    <SectionCard titleId={`${kind}-contacts`} title={t(`profile.contacts.${kind}.title`)}>
      <ul className="mt-3 divide-y divide-slate-200" data-testid={`${kind}-list`}>
        {entries.map((entry) => (
          <li key={entry.value} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
            <span className="min-w-0 break-all font-medium">{formatPhone(entry.value)}</span>
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
                  loading={switching === entry.value}
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
    </SectionCard>
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
  const offered = useSelector(profile, (s) => s.matches({ credentials: { adding: 'offered' } }));
  const back = (
    <Button variant="secondary" onClick={() => profile.send({ type: 'BACK' })}>
      {t('profile.cancel')}
    </Button>
  );
  // Opened in place: focus goes to its field, to the code's once the code is sent, and to the field
  // again after the merge's choice.
  const area = useRef<HTMLDivElement>(null);
  const codeStep = !!(entry && challenge);
  useEffect(() => {
    area.current?.querySelector('input')?.focus();
  }, [codeStep, offered]);
  if (offered) return <MergeChoice profile={profile} kind={kind} />;
  return (
    <div ref={area}>
      {codeStep ? (
        <div className="mt-4 space-y-3 border-t border-slate-200 pt-4">
          <p className="text-sm">{t(`profile.contacts.${kind}.codeSent`, { target: newContact.value })}</p>
          <CodeEntryForm entry={entry!}>{back}</CodeEntryForm>
        </div>
      ) : (
        <Form
          className="mt-4 space-y-4 border-t border-slate-200 pt-4"
          onSubmit={() => profile.send({ type: 'SEND_CODE' })}
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
        </Form>
      )}
    </div>
  );
}

/** The code proved an address or number another account holds: one choice, not an error. */
function MergeChoice({ profile, kind }: { profile: ProfileRef; kind: ContactKind }) {
  const { t } = useTranslation();
  const offer = useSelector(profile, (s) => s.context.offer);
  const reading = useSelector(profile, (s) => s.hasTag('busy'));
  // Giving the offer up failed: it is still open, and the choice stays.
  const error = useSelector(profile, (s) => s.context.error);
  // Focus goes to what the choice is about, once it is known.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [reading]);
  if (!offer || reading) return <Loading className="mt-4" />;
  return (
    <div className="mt-4 space-y-3 border-t border-slate-200 pt-4">
      <h3 ref={heading} tabIndex={-1} className="break-words font-semibold">
        {t('profile.contacts.offer.title', { target: offer.target })}
      </h3>
      {offer.ssoOnly ? (
        <Alert tone="warning">{t('errors.merge_sso_only')}</Alert>
      ) : (
        <p className="text-sm">{t('profile.contacts.offer.text')}</p>
      )}
      {error && <Alert tone="error">{t([`errors.${error}`, 'errors.internal_error'])}</Alert>}
      <div className="flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        {!offer.ssoOnly && (
          <Button onClick={() => profile.send({ type: 'MERGE' })}>{t('profile.contacts.offer.merge')}</Button>
        )}
        {offer.canDecline && (
          <Button variant="secondary" onClick={() => profile.send({ type: 'DECLINE' })}>
            {t('profile.contacts.offer.decline', { context: kind })}
          </Button>
        )}
        <Button variant={offer.ssoOnly ? 'primary' : 'secondary'} onClick={() => profile.send({ type: 'USE_ANOTHER' })}>
          {t('profile.contacts.offer.another', { context: kind })}
        </Button>
      </div>
    </div>
  );
}

/** edit-bank: the bank account. The country follows the IBAN typed until the person picks one. */
function BankForm({ profile }: { profile: ProfileRef }) {
  const { t } = useTranslation();
  const { bank, fieldErrors, user } = useSelector(profile, (s) => s.context);
  const saving = useSelector(profile, (s) => s.matches({ bank: 'saving' }));
  const busy = useSelector(profile, (s) => !s.matches({ bank: 'ready' }));
  const country = useCountryName();
  const countries = useMemo(
    () =>
      IBAN_COUNTRIES.map((code) => ({ value: code, label: country(code) })).sort((a, b) =>
        a.label.localeCompare(b.label),
      ),
    [country],
  );
  const ibanCountry = ibanCountryOf(bank.iban);
  const problem =
    fieldErrors.iban === 'iban_country_mismatch' && ibanCountry && bank.country
      ? t('profile.banking.countryMismatch', { ibanCountry: country(ibanCountry), chosen: country(bank.country) })
      : fieldErrors.iban
        ? t(`errors.${fieldErrors.iban}`)
        : null;
  return (
    <Card className="mt-5 max-w-xl">
      <p>{user.banking ? t('profile.banking.current', { iban: user.banking.iban }) : t('profile.banking.none')}</p>
      <Form onSubmit={() => profile.send({ type: 'SUBMIT' })} className="mt-4 space-y-4">
        <TextField
          label={t('profile.field.iban')}
          value={bank.iban}
          first
          autoComplete="off"
          code
          onChange={(value) => profile.send({ type: 'CHANGE_BANK', field: 'iban', value })}
          problem={problem}
        />
        <SelectField
          label={t('profile.field.country')}
          value={bank.country}
          autoComplete="country"
          onChange={(value) => profile.send({ type: 'CHANGE_BANK', field: 'country', value })}
          options={[{ value: '', label: t('profile.banking.chooseCountry') }, ...countries]}
        />
        <p className="text-sm text-slate-700">{t('profile.banking.told')}</p>
        <div aria-live="assertive">
          {fieldErrors.bank && (
            <Alert tone="error">
              {t(fieldErrors.bank === 'step_up_required' ? 'errors.step_up_required' : 'profile.banking.failed')}
            </Alert>
          )}
        </div>
        <SubmitOrCancel
          profile={profile}
          submit={t('profile.banking.save')}
          cancel={t('profile.backToProfile')}
          busy={busy}
          saving={saving}
        />
      </Form>
    </Card>
  );
}

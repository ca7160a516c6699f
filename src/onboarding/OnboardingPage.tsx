// /onboarding and its steps (spec §2): a projection of the onboarding machine. Each step is one
// screen; which one shows, and when, is the machine's decision.
import { useSelector } from '@xstate/react';
import { useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { EXTERNAL_LINKS } from '../externalLinks.ts';
import { elidedBefore } from '../i18n.ts';
import type { ActorRefFrom } from 'xstate';
import { NO_CAPTCHA_ELEMENT } from '../../machines/captchaAnswer.ts';
import type { OnboardingStep, onboardingMachine } from '../../machines/onboarding.ts';
import { Link } from 'react-router';
import { Button } from '../components/Button.tsx';
import { Stepper } from '../components/Stepper.tsx';
import { Captcha, type CaptchaHandle } from '../components/captcha/Captcha.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { ChannelChoice } from '../components/ChannelChoice.tsx';
import { CodeEntryForm } from '../components/CodeEntry.tsx';
import { NewPassword, type WeakRef } from '../components/NewPassword.tsx';
import { Loading } from '../components/Pending.tsx';
import { Form } from '../components/Form.tsx';
import { LINKS, pathOf } from '../../machines/routes.ts';

type OnboardingRef = ActorRefFrom<typeof onboardingMachine>;
type Send = OnboardingRef['send'];

/** Where each step stands among the seven the person goes through. */
const POSITION: Partial<Record<OnboardingStep, number>> = {
  card: 1,
  code: 1,
  welcome: 2,
  'terms-conditions': 3,
  create: 4,
  'email-verification': 5,
  'phone-verification': 6,
  password: 7,
};

export default function OnboardingPage() {
  const onboarding = useFlowChild('onboarding');
  return <FlowCard flow={onboarding}>{(flow) => <Onboarding onboarding={flow} />}</FlowCard>;
}

function Onboarding({ onboarding }: { onboarding: OnboardingRef }) {
  const step = useSelector(onboarding, (s) => s.context.step);
  const recalling = useSelector(onboarding, (s) => s.matches('recalling'));
  const codeFor = useSelector(onboarding, (s) => s.context.challenge?.kind);
  const position = step === 'onboarding-mfa' ? (codeFor === 'phone' ? 6 : 5) : POSITION[step];
  const screens: Record<OnboardingStep, ReactNode> = {
    onboarding: <Start onboarding={onboarding} />,
    card: <CardStep onboarding={onboarding} />,
    code: <InvitationStep onboarding={onboarding} />,
    existingCard: <ExistingCard onboarding={onboarding} />,
    welcome: <Welcome onboarding={onboarding} />,
    'terms-conditions': <Terms onboarding={onboarding} />,
    create: <Details onboarding={onboarding} />,
    'email-verification': <ContactStep onboarding={onboarding} kind="email" />,
    'onboarding-mfa': <CodeStep onboarding={onboarding} />,
    'phone-verification': <ContactStep onboarding={onboarding} kind="phone" />,
    password: <PasswordStep onboarding={onboarding} />,
    confirmation: <Confirmation onboarding={onboarding} />,
  };
  // A reload: the step to show is known once the server has answered.
  if (recalling) return <Loading />;
  return (
    <>
      {position !== undefined && <Progress position={position} />}
      {screens[step]}
    </>
  );
}

function Progress({ position }: { position: number }) {
  const { t } = useTranslation();
  return (
    <Stepper step={position} steps={7}>
      {t('onboarding.progress', { step: position, steps: 7 })}
    </Stepper>
  );
}

function Heading({ title, text }: { title: string; text?: ReactNode }) {
  return (
    <>
      <h1 className="text-2xl font-bold">{title}</h1>
      {text && <p className="mt-1 text-sm text-slate-700">{text}</p>}
    </>
  );
}

function Back({ send, label }: { send: Send; label?: string }) {
  const { t } = useTranslation();
  return (
    <Button variant="secondary" full onClick={() => send({ type: 'BACK' })}>
      {label ?? t('setupMfa.back')}
    </Button>
  );
}

/** A step's form: the fields, the step's error, continue and (where the spec allows) back. */
function StepForm({
  onboarding,
  busy,
  submitLabel,
  back,
  children,
  captcha,
  errorContext,
}: {
  onboarding: OnboardingRef;
  busy: boolean;
  submitLabel?: string;
  back?: string | true;
  children?: ReactNode;
  captcha?: boolean;
  /** The i18next context the step's error is read in (an invitation's words, not a card's). */
  errorContext?: string | undefined;
}) {
  const { t } = useTranslation();
  const error = useSelector(onboarding, (s) => s.context.error);
  const captchaLevel = useSelector(onboarding, (s) => s.context.captchaLevel);
  const widget = useRef<CaptchaHandle>(null);
  return (
    <Form
      className="mt-5 space-y-4"
      onSubmit={() => {
        onboarding.send(
          captcha ? { type: 'SUBMIT', captcha: widget.current?.take() ?? NO_CAPTCHA_ELEMENT } : { type: 'SUBMIT' },
        );
      }}
    >
      {children}
      {captcha && <Captcha ref={widget} level={captchaLevel} />}
      <ErrorMessage error={error} context={errorContext}>
        {error?.code === 'card_blocked' && <SupportLink />}
      </ErrorMessage>
      <Button type="submit" full loading={busy}>
        {submitLabel ?? t('onboarding.continue')}
      </Button>
      {back && <Back send={onboarding.send} label={back === true ? undefined : back} />}
    </Form>
  );
}

/** Where a blocked card's holder finds help: the support pages the footer links to too. */
function SupportLink() {
  const { t } = useTranslation();
  return (
    <a href={EXTERNAL_LINKS.help} target="_blank" rel="noreferrer" className="mt-1 block font-semibold underline">
      {t('onboarding.card.support')}
    </a>
  );
}

function Start({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const error = useSelector(onboarding, (s) => s.context.error);
  const choice = (source: 'card' | 'invitation') => (
    <button
      type="button"
      onClick={() => onboarding.send({ type: 'CHOOSE', source })}
      className="w-full rounded border border-slate-300 px-4 py-3 text-left hover:border-brand hover:bg-brand-light"
    >
      <span className="block font-semibold">{t(`onboarding.start.${source}`)}</span>
      <span className="block text-sm text-slate-700">{t(`onboarding.start.${source}Hint`)}</span>
    </button>
  );
  return (
    <>
      <Heading title={t('onboarding.start.title')} text={t('onboarding.start.text')} />
      <div className="mt-4">
        <ErrorMessage error={error} />
      </div>
      <div className="mt-4 space-y-3">
        {choice('card')}
        {choice('invitation')}
      </div>
      <ul className="mt-5 space-y-1 text-sm">
        <li>
          <Link to={pathOf('login', 'email')} className="text-brand underline">
            {t('onboarding.start.signIn')}
          </Link>
        </li>
        <li>
          <Link to={pathOf('onboarding', 'existingCard')} className="text-brand underline">
            {t('onboarding.start.existing')}
          </Link>
        </li>
      </ul>
    </>
  );
}

function CardStep({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const { cardNumber, activationCode } = useSelector(onboarding, (s) => s.context);
  const busy = useSelector(onboarding, (s) => s.matches({ card: 'submitting' }));
  return (
    <>
      <Heading title={t('onboarding.card.title')} text={t('onboarding.card.text')} />
      <StepForm onboarding={onboarding} busy={busy} back captcha>
        <TextField
          label={t('onboarding.card.number')}
          inputMode="numeric"
          autoComplete="off"
          value={cardNumber}
          onChange={(value) => onboarding.send({ type: 'CHANGE', field: 'cardNumber', value })}
        />
        <TextField
          label={t('onboarding.card.activationCode')}
          autoComplete="off"
          code
          value={activationCode}
          onChange={(value) => onboarding.send({ type: 'CHANGE', field: 'activationCode', value })}
        />
      </StepForm>
    </>
  );
}

function InvitationStep({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const invitationCode = useSelector(onboarding, (s) => s.context.invitationCode);
  const busy = useSelector(onboarding, (s) => s.matches({ code: 'submitting' }));
  return (
    <>
      <Heading title={t('onboarding.code.title')} text={t('onboarding.code.text')} />
      <StepForm onboarding={onboarding} busy={busy} back captcha>
        <TextField
          label={t('onboarding.code.label')}
          autoComplete="off"
          code
          value={invitationCode}
          onChange={(value) => onboarding.send({ type: 'CHANGE', field: 'invitationCode', value })}
        />
      </StepForm>
    </>
  );
}

function ExistingCard({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const usernames = useSelector(onboarding, (s) => s.context.usernames);
  return (
    <>
      <Heading
        title={t('onboarding.existing.title')}
        text={t(usernames.length ? 'onboarding.existing.known' : 'onboarding.existing.text')}
      />
      {usernames.length > 0 && (
        <ul className="mt-3 space-y-1 font-mono" data-testid="usernames">
          {usernames.map((u) => (
            <li key={u}>{u}</li>
          ))}
        </ul>
      )}
      <ul className="mt-5 space-y-2 text-sm">
        <li>
          <Link to={pathOf('login', 'email')} className="font-semibold text-brand underline">
            {t('onboarding.existing.signIn')}
          </Link>
        </li>
        <li>
          <Link to={pathOf('forgotUsername', 'ask')} className="text-brand underline">
            {t('login.forgotUsername')}
          </Link>
        </li>
        <li>
          <Link to={LINKS.forgotPassword} className="text-brand underline">
            {t('login.forgotPassword')}
          </Link>
        </li>
        <li>
          <Link to={pathOf('onboarding', 'onboarding')} className="text-brand underline">
            {t('onboarding.existing.another')}
          </Link>
        </li>
      </ul>
    </>
  );
}

function Welcome({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const { welcome, source } = useSelector(onboarding, (s) => s.context);
  const company = welcome?.company;
  const lead =
    source === 'card'
      ? company
        ? t('onboarding.welcome.card', { company, context: elidedBefore(company) ? 'elided' : undefined })
        : t('onboarding.welcome.cardAnonymous')
      : company
        ? t('onboarding.welcome.invitation', { company })
        : t('onboarding.welcome.invitationAnonymous');
  return (
    <>
      <Heading
        title={
          welcome?.firstname
            ? t('onboarding.welcome.title', { name: welcome.firstname })
            : t('onboarding.welcome.titleAnonymous')
        }
        text={lead}
      />
      <p className="mt-4 text-sm font-medium">{t('onboarding.welcome.next')}</p>
      <ol className="mt-2 list-decimal space-y-1 pl-5 text-sm text-slate-800">
        {(['terms', 'details', 'email', 'phone', 'password'] as const).map((item) => (
          <li key={item}>{t(`onboarding.welcome.steps.${item}`)}</li>
        ))}
      </ol>
      <div className="mt-6 space-y-3">
        <Button full onClick={() => onboarding.send({ type: 'CONTINUE' })}>
          {t('onboarding.continue')}
        </Button>
        <Back
          send={onboarding.send}
          label={t(source === 'card' ? 'onboarding.welcome.otherCard' : 'onboarding.welcome.otherCode')}
        />
      </div>
    </>
  );
}

/** The terms of use: only this step links to them. */
const TERMS_URL = 'https://www.tessera.example/terms';

function Check({ checked, onChange, children }: { checked: boolean; onChange: () => void; children: ReactNode }) {
  return (
    <label className="flex items-start gap-2 text-sm">
      <input type="checkbox" checked={checked} onChange={onChange} className="mt-0.5 h-4 w-4" />
      <span>{children}</span>
    </label>
  );
}

function Terms({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const { consents, source } = useSelector(onboarding, (s) => s.context);
  const busy = useSelector(onboarding, (s) => s.matches({ terms: 'saving' }));
  // An invitation brings no card: its words speak of the account.
  const context = source === 'invitation' ? 'invitation' : undefined;
  const toggle = (consent: 'terms' | 'privacy' | 'email' | 'sms' | 'partners') => () =>
    onboarding.send({ type: 'TOGGLE', consent });
  return (
    <>
      <Heading title={t('onboarding.terms.title')} text={t('onboarding.terms.text', { context })} />
      <StepForm onboarding={onboarding} busy={busy} back errorContext={context}>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">{t('onboarding.terms.required')}</legend>
          <Check checked={consents.terms} onChange={toggle('terms')}>
            {t('onboarding.terms.acceptTerms')}
          </Check>
          <Check checked={consents.privacy} onChange={toggle('privacy')}>
            {t('onboarding.terms.acceptPrivacy')}
          </Check>
          <p className="flex flex-wrap gap-4 text-sm">
            <a href={TERMS_URL} target="_blank" rel="noreferrer" className="text-brand underline">
              {t('onboarding.terms.readTerms')}
            </a>
            <a href={EXTERNAL_LINKS.privacy} target="_blank" rel="noreferrer" className="text-brand underline">
              {t('onboarding.terms.readPrivacy')}
            </a>
          </p>
        </fieldset>
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">{t('onboarding.terms.marketing')}</legend>
          <Check checked={consents.marketing.email} onChange={toggle('email')}>
            {t('onboarding.terms.byEmail')}
          </Check>
          <Check checked={consents.marketing.sms} onChange={toggle('sms')}>
            {t('onboarding.terms.bySms')}
          </Check>
          <Check checked={consents.marketing.partners} onChange={toggle('partners')}>
            {t('onboarding.terms.partners')}
          </Check>
        </fieldset>
      </StepForm>
    </>
  );
}

function Details({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const profile = useSelector(onboarding, (s) => s.context.profile);
  const missing = useSelector(onboarding, (s) => s.context.missing);
  const busy = useSelector(onboarding, (s) => s.matches({ create: 'saving' }));
  // The account speaks the language of the page (the top bar's switch changes it): no choice here.
  return (
    <>
      <Heading title={t('onboarding.details.title')} text={t('onboarding.details.text')} />
      <StepForm onboarding={onboarding} busy={busy} back>
        <TextField
          label={t('onboarding.details.firstname')}
          autoComplete="given-name"
          value={profile.firstname}
          error={requiredError(missing, 'firstname')}
          onChange={(value) => onboarding.send({ type: 'CHANGE', field: 'firstname', value })}
        />
        <TextField
          label={t('onboarding.details.lastname')}
          autoComplete="family-name"
          value={profile.lastname}
          error={requiredError(missing, 'lastname')}
          onChange={(value) => onboarding.send({ type: 'CHANGE', field: 'lastname', value })}
        />
      </StepForm>
    </>
  );
}

/** The email's step and the phone's: the address or number, with a code sent to it (unless it is
 * the one already proven), and for a phone how the code goes. */
function ContactStep({ onboarding, kind }: { onboarding: OnboardingRef; kind: 'email' | 'phone' }) {
  const { t } = useTranslation();
  const { email, phone, provenEmail, provenPhone, channel, missing } = useSelector(onboarding, (s) => s.context);
  const busy = useSelector(onboarding, (s) =>
    kind === 'email' ? s.matches({ emailVerification: 'sending' }) : s.matches({ phoneVerification: 'sending' }),
  );
  const address = kind === 'email' ? email : phone;
  const proven = kind === 'email' ? provenEmail : provenPhone;
  const keeping = proven !== null && proven === address.trim();
  return (
    <>
      <Heading
        title={t(`onboarding.${kind}.title`)}
        text={t(keeping ? `onboarding.${kind}.proven` : `onboarding.${kind}.text`)}
      />
      <StepForm
        onboarding={onboarding}
        busy={busy}
        back
        submitLabel={t(keeping ? `onboarding.${kind}.keep` : 'onboarding.sendCode')}
      >
        <TextField
          label={t(`login.field.${kind}`)}
          type={kind === 'email' ? 'email' : 'tel'}
          autoComplete={kind === 'email' ? 'email' : 'tel'}
          value={address}
          error={requiredError(missing, kind)}
          onChange={(value) => onboarding.send({ type: 'CHANGE', field: kind, value })}
        />
        {kind === 'phone' && !keeping && (
          <ChannelChoice channel={channel} onChange={(c) => onboarding.send({ type: 'SET_CHANNEL', channel: c })} />
        )}
      </StepForm>
    </>
  );
}

function CodeStep({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const { challenge, channel } = useSelector(onboarding, (s) => s.context);
  const entry = useSelector(onboarding, (s) => s.children.codeEntry);
  if (!challenge) return null;
  const how = challenge.kind === 'email' ? 'email' : channel;
  return (
    <>
      <Heading
        title={t(`mfa.code.title.${how}`)}
        text={t(`mfa.code.instruction.${how}`, { target: challenge.sent.target ?? '' })}
      />
      {entry ? (
        <CodeEntryForm entry={entry}>
          <Back
            send={onboarding.send}
            label={t(challenge.kind === 'email' ? 'onboarding.code.changeEmail' : 'onboarding.code.changePhone')}
          />
        </CodeEntryForm>
      ) : (
        <p role="status" className="mt-5 text-sm">
          {t('mfa.sending')}
        </p>
      )}
    </>
  );
}

function PasswordStep({ onboarding }: { onboarding: OnboardingRef }) {
  const password = useSelector(onboarding, (s) => s.children.newPassword as WeakRef | undefined);
  return password ? (
    <NewPassword
      weak={password}
      title="onboarding.password.title"
      text="onboarding.password.text"
      submit="onboarding.password.submit"
    />
  ) : null;
}

function Confirmation({ onboarding }: { onboarding: OnboardingRef }) {
  const { t } = useTranslation();
  const outcome = useSelector(onboarding, (s) => s.context.outcome);
  if (!outcome) return null;
  return (
    <>
      <Heading
        title={t(`onboarding.done.${outcome.outcome}.title`)}
        text={t(`onboarding.done.${outcome.outcome}.text`)}
      />
      <p className="mt-3 text-sm text-slate-800">{t('onboarding.done.signInWith', { username: outcome.username })}</p>
      <Button full className="mt-6" onClick={() => onboarding.send({ type: 'CONTINUE' })}>
        {t('onboarding.continue')}
      </Button>
    </>
  );
}

/** The message of a field a submit found empty, on that field only. */
function requiredError(missing: string | null, field: 'firstname' | 'lastname' | 'email' | 'phone') {
  return missing === field ? { code: `required_${field}` as const } : undefined;
}

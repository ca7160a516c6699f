// Shown when the API answers 503: in Dutch, French and English at once (spec §2), no top bar; on the
// Luxembourg host French comes first. The page checks by itself every minute whether the API is
// back (the root machine's maintenance state), and "Try again" checks at once.
import { useSelector } from '@xstate/react';
import { useRootActor } from '../shell/context.ts';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { Logo } from '../components/Logo.tsx';
import { variant } from '../variant.ts';

const MESSAGES = {
  nl: {
    title: 'Onderhoud',
    text: 'Inloggen is momenteel niet mogelijk. Probeer het later opnieuw.',
    auto: 'Deze pagina probeert het elke minuut vanzelf opnieuw.',
    retry: 'Opnieuw proberen',
  },
  fr: {
    title: 'Maintenance',
    text: 'La connexion est actuellement indisponible. Veuillez réessayer plus tard.',
    auto: 'Cette page réessaie d’elle-même chaque minute.',
    retry: 'Réessayer',
  },
  en: {
    title: 'Maintenance',
    text: 'Login is unavailable at the moment. Please try again later.',
    auto: 'This page tries again by itself every minute.',
    retry: 'Try again',
  },
} as const;
const ORDER = { be: ['nl', 'fr', 'en'], lu: ['fr', 'en', 'nl'] } as const;

export default function MaintenancePage() {
  const root = useRootActor();
  const checking = useSelector(root, (s) => s.matches({ maintenance: 'checking' }));
  const order = ORDER[variant];
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16">
      <Logo className="mb-8" />
      <h1 className="sr-only">
        {order
          .map((lang) => MESSAGES[lang].title)
          .filter((t, i, all) => all.indexOf(t) === i)
          .join(' · ')}
      </h1>
      <div className="space-y-6">
        {order.map((lang) => (
          <Card key={lang} lang={lang}>
            <h2 className="text-lg font-semibold">{MESSAGES[lang].title}</h2>
            <p className="mt-1 text-slate-700">{MESSAGES[lang].text}</p>
            <p className="mt-1 text-sm text-slate-700">{MESSAGES[lang].auto}</p>
          </Card>
        ))}
      </div>
      <Button className="mt-6" loading={checking} onClick={() => root.send({ type: 'RETRY' })}>
        {/* One inline run: as the button's flex items, the separators' spaces would collapse. */}
        <span>
          {order
            .map((lang) => (
              <span key={lang} lang={lang}>
                {MESSAGES[lang].retry}
              </span>
            ))
            .reduce<React.ReactNode[]>((all, part, i) => (i ? [...all, ' · ', part] : [part]), [])}
        </span>
      </Button>
    </main>
  );
}

// Shown when the API answers 503: in Dutch, French and English at once (spec §2), no top bar.
import { Card } from '../components/Card.tsx';

const MESSAGES = [
  { lang: 'nl', title: 'Onderhoud', text: 'Inloggen is momenteel niet mogelijk. Probeer het later opnieuw.' },
  { lang: 'fr', title: 'Maintenance', text: 'La connexion est actuellement indisponible. Veuillez réessayer plus tard.' },
  { lang: 'en', title: 'Maintenance', text: 'Login is unavailable at the moment. Please try again later.' },
];

export function MaintenancePage() {
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16">
      <h1 className="sr-only">Maintenance</h1>
      <div className="space-y-6">
        {MESSAGES.map((m) => (
          <Card key={m.lang} lang={m.lang}>
            <h2 className="text-lg font-semibold">{m.title}</h2>
            <p className="mt-1 text-slate-700">{m.text}</p>
          </Card>
        ))}
      </div>
    </main>
  );
}

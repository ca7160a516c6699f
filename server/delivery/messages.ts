// The texts Tessera sends, in the user's language (both variants' locales).

type Template = { subject: string; body: (code: string, minutes: number) => string };

const CODE: Record<string, Template> = {
  en: { subject: 'Your Tessera security code', body: (c, m) => `Your Tessera security code is ${c}. It is valid for ${m} minutes. Never share it with anyone.` },
  fr: { subject: 'Votre code de sécurité Tessera', body: (c, m) => `Votre code de sécurité Tessera est ${c}. Il est valable ${m} minutes. Ne le communiquez jamais à personne.` },
  nl: { subject: 'Uw Tessera-beveiligingscode', body: (c, m) => `Uw Tessera-beveiligingscode is ${c}. Hij is ${m} minuten geldig. Deel hem nooit met iemand.` },
  de: { subject: 'Ihr Tessera-Sicherheitscode', body: (c, m) => `Ihr Tessera-Sicherheitscode lautet ${c}. Er ist ${m} Minuten gültig. Geben Sie ihn niemals weiter.` },
};

/** en_LU, fr_LU, de_LU speak their language's text. */
export function codeMessage(language: string, code: string, ttlSeconds: number): { subject: string; body: string } {
  const template = CODE[language.split('_')[0]!] ?? CODE.en!;
  return { subject: template.subject, body: template.body(code, Math.round(ttlSeconds / 60)) };
}

// The company's pages outside the portal that every page links to (the footer), named once; the
// onboarding's terms step links to the privacy page too.
export const EXTERNAL_LINKS = {
  blog: 'https://www.tessera.example/blog',
  help: 'https://help.tessera.example/',
  site: 'https://www.tessera.example/',
  privacy: 'https://www.tessera.example/privacy',
} as const;

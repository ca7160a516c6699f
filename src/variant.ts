// The variant of this host (Belgian or Luxembourg) and what it changes outside React: the favicon,
// and the brand colours (src/styles.css reads the data-variant of the document).
import { variantOfHost, type Variant } from '../contract/constants.ts';

export const variant: Variant = variantOfHost(window.location.host);

export function applyVariantLook(): void {
  document.documentElement.dataset.variant = variant;
  const link = document.getElementById('favicon') as HTMLLinkElement | null;
  if (link && variant === 'lu') link.href = '/favicon-lu.svg';
}

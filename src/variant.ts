// The variant of this host (Belgian or Luxembourg) and what it changes outside React: the favicon.
import { variantOfHost, type Variant } from '../contract/constants.ts';

export const variant: Variant = variantOfHost(window.location.host);

export function applyVariantFavicon(): void {
  const link = document.getElementById('favicon') as HTMLLinkElement | null;
  if (link && variant === 'lu') link.href = '/favicon-lu.svg';
}

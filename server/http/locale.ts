// The locale an API answer speaks: the app sends its screen's language (src/api/client.ts), which
// the host's variant must offer; otherwise the variant's fallback.
import type { FastifyRequest } from 'fastify';
import { VARIANT_LOCALES, variantLocaleOf, variantOfHost, type Locale } from '../../contract/constants.ts';

export function localeOfRequest(request: FastifyRequest): Locale {
  const variant = variantOfHost(request.host);
  return variantLocaleOf(request.headers['accept-language'], variant) ?? VARIANT_LOCALES[variant].fallback;
}

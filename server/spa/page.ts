// The page every screen route answers: the built index.html with what the first screen needs
// written in, so that nothing waits on a chain of requests before the first paint:
//  - the config and whether the browser sent a session cookie (contract/schemas.ts `Boot`);
//  - the stylesheet, inline (its hash in the page's content security policy);
//  - the app's modules preloaded, or, where a drawn screen comes with the page, listed for the
//    entry to preload once that screen is painted;
//  - the language, chosen as the app chooses it (a remembered choice, else the browser's), its
//    strings' chunk preloaded, the variant's look (data-variant, favicon) and the screen's title;
//  - for a visitor without a session on a public screen, the screen itself as the app draws it
//    (dist/prerendered.json, from scripts/prerender.ts), which the app then takes over.
// Pages differ by host, language, cookie and config, so each is compressed when first asked for and
// kept (a handful of variants × languages × screens).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AFTER_PAINT_ID, ENTRY_THERE, HELD_LINK, HELD_SUBMIT } from '../../contract/page.ts';
import {
  BOOT_ELEMENT_ID,
  CONSENT_PATH,
  INTERACTION_PATH,
  LANGUAGE_COOKIE,
  LOGOUT_CONFIRM_PATH,
  chooseLocale,
  firstOfferedLocale,
  variantOfHost,
  type Locale,
} from '../../contract/constants.ts';
import type { AppConfig, Boot } from '../../contract/schemas.ts';
import type { Prerendered } from '../../scripts/prerender.ts';
import { localeChain } from '../../locales/fallbacks.ts';

export type PageSources = {
  /** The content security policy of a page carrying inline style and script elements with these hashes. */
  /** `answersProvider`: the page posts the authorisation server's own form (an application's
   * sign-out), whose answer redirects to the application. */
  securityPolicy(styleHashes: string[], scriptHashes: string[], answersProvider?: boolean): string;
  /** The config for a host, or null when it cannot be read (the app then asks /api/config, and shows maintenance). */
  configFor(host: string): Promise<AppConfig | null>;
  /** The application an authorisation request (named by the page's `redirect`) is signing in to. */
  signingInTo?(redirect: string, locale: Locale, host: string): Promise<Boot['signingInTo'] | null>;
  /** The parameters of the live authorisation request of this interaction uid, or null. */
  authorisationRequest?(uid: string): Promise<Record<string, unknown> | null>;
  cookieName: string;
};

/** A login hint longer than any email address or phone number is not one. */
const MAX_LOGIN_HINT = 254;

/** The interaction a page belongs to: the one its sign-in or second factor returns to
 * (`redirect=/oidc/interaction/<uid>`), or the one its consent answers (`/approve?uid=`). */
function interactionUidOfPage(path: string, query: URLSearchParams): string | null {
  const redirect = query.get('redirect');
  if (redirect?.startsWith(`${INTERACTION_PATH}/`)) return redirect.slice(INTERACTION_PATH.length + 1);
  return path === CONSENT_PATH ? query.get('uid') : null;
}

/** The browser's languages, most wanted first (RFC 9110 quality values; a refused one left out). */
export function acceptedLanguages(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/i.exec(p)?.[1]).find((value) => value !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/** JSON inside a <script> element: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const CACHED_PAGES = 64;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The built page with its stylesheet inline: one round trip fewer before the first paint (the page
 * itself is revalidated by ETag, so a later visit does not fetch the styles again either). */
function inlineStylesheet(spaDir: string, built: string): { template: string; styleHashes: string[] } {
  const link = /<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)"[^>]*>/.exec(built);
  if (!link) return { template: built, styleHashes: [] };
  const css = readFileSync(join(spaDir, link[1]!), 'utf8').trim();
  if (/<\/style/i.test(css)) return { template: built, styleHashes: [] };
  return { template: built.replace(link[0], () => `<style>${css}</style>`), styleHashes: [sha256(css)] };
}

/** A page with a drawn screen asks for its entry only once that screen is painted (the frame after
 * the first; at once in a tab that paints nothing): the entry and its modules then neither compete
 * with the page on a slow link nor count, in a simulated load, as holding the first paint. A small
 * inline script does it (its hash in the policy); the entry's own preload links go with it. Until
 * the entry is there, the script holds a submission of the drawn form, which would otherwise post
 * the page to itself, and a plain click on a link to another of our screens, which would load it
 * anew: both would lose what was typed (contract/page.ts). */
function entryAfterPaint(template: string): { drawnTemplate: string; scriptHashes: string[] } {
  const entry = /\s*<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/.exec(template);
  if (!entry) return { drawnTemplate: template, scriptHashes: [] };
  const start =
    `(()=>{const d=document.documentElement.dataset;` +
    `addEventListener('submit',e=>{if(!(${JSON.stringify(ENTRY_THERE)} in d)){e.preventDefault();d.${HELD_SUBMIT}=''}},true);` +
    `addEventListener('click',e=>{const a=e.target.closest&&e.target.closest('a'),h=a&&a.getAttribute('href');` +
    `if(${JSON.stringify(ENTRY_THERE)} in d||!h||h[0]!=='/'||h[1]==='/'||e.button||e.ctrlKey||e.metaKey||e.shiftKey||e.altKey||a.target)return;` +
    `e.preventDefault();d.${HELD_LINK}=h},true);` +
    `const go=()=>{const s=document.createElement('script');s.type='module';s.crossOrigin='';` +
    `s.src=${JSON.stringify(entry[1])};document.head.append(s)};` +
    `document.visibilityState==='hidden'?go():requestAnimationFrame(()=>setTimeout(go))})()`;
  const drawnTemplate = template
    .replace(entry[0], '')
    .replace(/\s*<link rel="modulepreload"[^>]*>/g, '')
    .replace('</body>', () => `  <script>${start}</script>\n  </body>`);
  return { drawnTemplate, scriptHashes: [sha256(start)] };
}

export function pageRenderer(spaDir: string, sources: PageSources) {
  const { template, styleHashes } = inlineStylesheet(spaDir, readFileSync(join(spaDir, 'index.html'), 'utf8'));
  const { drawnTemplate, scriptHashes } = entryAfterPaint(template);
  const securityPolicy = sources.securityPolicy(styleHashes, scriptHashes);
  const answeringPolicy = sources.securityPolicy(styleHashes, scriptHashes, true);
  const drawnFile = join(spaDir, 'prerendered.json');
  const drawn: Prerendered = existsSync(drawnFile)
    ? (JSON.parse(readFileSync(drawnFile, 'utf8')) as Prerendered)
    : { app: [], locales: {}, screens: {} };
  const encoded = new Map<string, { etag: string; identity: Buffer; br?: Buffer; gzip?: Buffer }>();

  async function html(request: FastifyRequest): Promise<string> {
    const variant = variantOfHost(request.host);
    const [path = '/', query = ''] = request.url.split('?');
    const search = new URLSearchParams(query);
    // An application's request may ask for a language (ui_locales): its screens speak the first one
    // the variant offers, ahead of the browser's; a language the person chose here still comes first.
    const uid = interactionUidOfPage(path, search);
    const params =
      uid && sources.authorisationRequest ? await sources.authorisationRequest(uid).catch(() => null) : null;
    const requested = typeof params?.ui_locales === 'string' ? firstOfferedLocale(params.ui_locales, variant) : null;
    const loginHint =
      typeof params?.login_hint === 'string' && params.login_hint.length <= MAX_LOGIN_HINT ? params.login_hint : null;
    const authorisationRequest =
      requested || loginHint
        ? { ...(requested ? { locale: requested } : {}), ...(loginHint ? { login_hint: loginHint } : {}) }
        : null;
    const locale = chooseLocale(
      variant,
      requested ? [requested] : acceptedLanguages(request.headers['accept-language']),
      request.cookies[LANGUAGE_COOKIE],
    );
    const sessionCookie = Boolean(request.cookies[sources.cookieName]);
    const config = await sources.configFor(request.host).catch(() => null);
    const redirect = search.get('redirect');
    const signingInTo =
      redirect && sources.signingInTo
        ? await sources.signingInTo(redirect, locale, request.host).catch(() => null)
        : null;
    // A visitor with a session cookie is probably signed in: the public screen would only flash. A
    // sign-in for an application names it: the screen drawn ahead does not, so the app draws it.
    const screen =
      sessionCookie || signingInTo || authorisationRequest ? undefined : drawn.screens[variant]?.[locale]?.[path];
    const boot: Boot = {
      config,
      locale,
      sessionCookie,
      ...(signingInTo ? { signingInTo } : {}),
      ...(authorisationRequest ? { authorisationRequest } : {}),
    };
    // An overlay's strings come with its base's (en_LU reads what it does not change in en).
    const strings = localeChain(locale).flatMap((code) => drawn.locales[code] ?? []);
    const preloads = [...drawn.app, ...strings].map(
      (chunk) => `<link rel="modulepreload" crossorigin href="${chunk}">`,
    );
    const head = [
      `<script type="application/json" id="${BOOT_ELEMENT_ID}">${scriptJson(boot)}</script>`,
      // A drawn screen paints before the app's modules are even asked for: the entry starts them
      // from this template once it is painted (src/main.tsx). Fetched alongside the page, they
      // would compete with it on a slow link, and a simulated load counts them as holding the paint.
      ...(screen ? [`<template id="${AFTER_PAINT_ID}">${preloads.join('')}</template>`] : preloads),
    ].join('\n    ');
    let page = (screen ? drawnTemplate : template)
      .replace(/<html lang="[^"]*">/, `<html lang="${locale.replace('_', '-')}" data-variant="${variant}">`)
      .replace('</head>', `  ${head}\n  </head>`)
      .replace('<div id="root"></div>', `<div id="root">${screen?.html ?? ''}</div>`);
    if (screen) {
      page = page.replace(
        /<title>[^<]*<\/title>/,
        () =>
          `<title>${escapeHtml(screen.title)}</title>\n    <meta name="description" content="${escapeHtml(screen.description)}">`,
      );
    }
    if (variant === 'lu') page = page.replace('href="/favicon.svg"', 'href="/favicon-lu.svg"');
    return page;
  }

  function encodings(page: string) {
    let entry = encoded.get(page);
    if (!entry) {
      const identity = Buffer.from(page);
      entry = { etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`, identity };
      if (encoded.size >= CACHED_PAGES) encoded.delete(encoded.keys().next().value!);
      encoded.set(page, entry);
    }
    return entry;
  }

  return async function sendPage(request: FastifyRequest, reply: FastifyReply) {
    const entry = encodings(await html(request));
    reply
      .header(
        'content-security-policy',
        request.url.split('?')[0] === LOGOUT_CONFIRM_PATH ? answeringPolicy : securityPolicy,
      )
      .header('cache-control', 'no-cache')
      .header('vary', 'accept-encoding, accept-language, cookie')
      .header('etag', entry.etag)
      .type('text/html; charset=utf-8');
    if (request.headers['if-none-match'] === entry.etag) return reply.code(304).send();
    const accepts = request.headers['accept-encoding'] ?? '';
    if (/\bbr\b/.test(accepts)) {
      entry.br ??= brotliCompressSync(entry.identity, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: entry.identity.length },
      });
      return reply.header('content-encoding', 'br').send(entry.br);
    }
    if (/\bgzip\b/.test(accepts)) {
      entry.gzip ??= gzipSync(entry.identity, { level: 9 });
      return reply.header('content-encoding', 'gzip').send(entry.gzip);
    }
    return reply.send(entry.identity);
  };
}

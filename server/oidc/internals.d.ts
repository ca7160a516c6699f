// The one internal module of oidc-provider we read (server/oidc/refreshRepeat.ts): the provider's
// private state, where its grant handlers are.
declare module 'oidc-provider/lib/helpers/weak_cache.js' {
  const instance: (provider: unknown) => unknown;
  export default instance;
}

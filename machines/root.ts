// The root machine lives in machines/root/ (setup, actions, anonymous and signed-in flows).
export * from './root/index.ts';

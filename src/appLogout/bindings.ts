// How an application's sign-out meets the real world: its machine (imported here, in its own
// chunk), its API call, and the answer posted to the authorisation server as its own form would
// post it. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { Go } from '../shell/bindings.ts';
import { readLogoutRequest } from '../api/flowCalls.ts';

export const appLogout = (_go: Go) =>
  import('../../machines/appLogout.ts').then(({ appLogoutMachine }) =>
    appLogoutMachine.provide({
      actors: { readLogout: fromPromise(({ input }) => readLogoutRequest(input)) },
      actions: {
        // A top-level form post (the provider's cookies go with it): `logout=yes`, or nothing, the
        // standard's two answers.
        answer: (_, { action, xsrf, logout }) => {
          const form = document.createElement('form');
          form.method = 'post';
          form.action = action;
          form.hidden = true;
          const fields: Record<string, string> = { xsrf, ...(logout ? { logout: 'yes' } : {}) };
          for (const [name, value] of Object.entries(fields)) {
            const input = document.createElement('input');
            input.type = 'hidden';
            input.name = name;
            input.value = value;
            form.append(input);
          }
          document.body.append(form);
          form.submit();
        },
      },
    }),
  );

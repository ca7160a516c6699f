// How the notifications' flow meets the real world: its machine (imported here, in its own chunk)
// and its API calls. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { Go } from '../shell/bindings.ts';
import { loadNotifications, saveNotifications } from '../api/flowCalls.ts';

export const notifications = (_go: Go) =>
  import('../../machines/notifications.ts').then(({ notificationsMachine }) =>
    notificationsMachine.provide({
      actors: {
        loadNotifications: fromPromise(() => loadNotifications()),
        saveNotifications: fromPromise(({ input }) => saveNotifications(input)),
      },
    }),
  );

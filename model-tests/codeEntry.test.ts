import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, createMachine, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { CodeDelivery } from '../contract/schemas.ts';
import {
  codeEntryMachineOf,
  DELIVERY_ASK_MS,
  sentCodeOf,
  type CodeEntryInput,
  type NewCode,
} from '../machines/codeEntry.ts';
import { report, walkAll } from './coverage.ts';
import { codeEntryModel, sentAt } from './codeEntry.model.ts';
import { refuses, settle } from './events.ts';

describe('code-entry machine: model', () => {
  it('takes every declared transition (a sent code, one that cannot be sent again, one nobody sent)', () => {
    const result = walkAll(codeEntryModel);
    console.info(report('codeEntry', result));
    expect(result.missing).toEqual([]);
  });
});

/** What the entry's parent hears when the flow it belongs to expired: its end, with the answer's body. */
const expiredEnd = {
  done: {
    result: null,
    failure: { code: 'onboarding_expired' },
    body: { code: 'onboarding_expired', message: '' },
  },
};

describe('code-entry machine: behaviour', () => {
  /** The entry, specialised as a flow would, under a parent that records what comes up to it. */
  function start(
    input: Partial<CodeEntryInput> & {
      check?: (input: { ticket: string; code: string; remember: boolean }) => Promise<unknown>;
      sendCode?: (input: { request: unknown; captcha: string | null }) => Promise<NewCode>;
      askDelivery?: (input: { ticket: string }) => Promise<CodeDelivery>;
    },
  ) {
    const clock = new SimulatedClock();
    const toParent: unknown[] = [];
    const entry = codeEntryMachineOf<unknown>().provide({
      actors: {
        check: fromPromise(({ input: i }) => (input.check ?? (async () => ({ ok: true })))(i)),
        send: fromPromise(({ input: i }) =>
          (input.sendCode ?? (async () => ({ ticket: 'new', sent: { expires_in: 900, resend_in: 45 } })))(i),
        ),
        askDelivery: fromPromise(({ input: i }) =>
          (input.askDelivery ?? (async () => ({ channel: 'sms', status: 'sent', fell_back_from: null }) as const))(i),
        ),
      },
    });
    const parent = createMachine({
      invoke: {
        id: 'entry',
        src: entry,
        input: {
          ticket: 'payload',
          length: input.length ?? 8,
          sent: input.sent === undefined ? sentAt(Date.now()) : input.sent,
          error: input.error ?? null,
          endsOn: input.endsOn ?? [],
          resend: input.resend === undefined ? { to: 'm' } : input.resend,
          followsDelivery: input.followsDelivery ?? false,
        },
        onDone: {
          actions: ({ event }) => {
            toParent.push({ done: event.output });
          },
        },
      },
      on: {
        CODE_SENT: {
          actions: ({ event }) => {
            toParent.push(event);
          },
        },
      },
    });
    const actor = createActor(parent, { clock }).start();
    const child = () => actor.getSnapshot().children.entry!;
    const send = (event: object) => child().send(event as never);
    return {
      clock,
      toParent,
      snapshot: () =>
        child().getSnapshot() as ReturnType<ReturnType<typeof codeEntryMachineOf<unknown>>['getInitialSnapshot']>,
      send,
    };
  }

  it('shows expired after 900 s and enables resend after 30 s, from the server answer', () => {
    const { clock, snapshot } = start({});
    expect(snapshot().matches({ entering: { expiry: 'running', resend: 'cooling' } })).toBe(true);
    clock.increment(29_000);
    expect(snapshot().matches({ entering: { resend: 'cooling' } })).toBe(true);
    clock.increment(2_000);
    expect(snapshot().matches({ entering: { resend: 'ready' } })).toBe(true);
    clock.increment(870_000);
    expect(snapshot().matches({ entering: { expiry: 'expired' } })).toBe(true);
  });

  it('sends the flow’s request again only once the wait is over, with the CAPTCHA answer that came with it', async () => {
    const requests: unknown[] = [];
    const { clock, toParent, snapshot, send } = start({
      resend: { to: 'm***@example.be' },
      sendCode: async (input) => {
        requests.push(input);
        return { ticket: 'second', sent: { target: 'm***@example.be', expires_in: 900, resend_in: 45 } };
      },
    });
    send({ type: 'RESEND' });
    await settle();
    expect(requests).toEqual([]);
    clock.increment(31_000);
    send({ type: 'TYPE', value: '1234' });
    send({ type: 'RESEND', captcha: { token: 'solved' } });
    expect(snapshot().matches({ entering: { resend: 'sending' } })).toBe(true);
    await settle();
    expect(requests).toEqual([{ request: { to: 'm***@example.be' }, captcha: 'solved' }]);
    // The new code's ticket and timers replace the old ones; the field empties; the flow hears of it.
    const { ticket, code, sent } = snapshot().context;
    expect({ ticket, code }).toEqual({ ticket: 'second', code: '' });
    expect(sent && sent.resendAt! - sent.expiresAt).toBe(45_000 - 900_000);
    expect(toParent).toEqual([{ type: 'CODE_SENT', ticket: 'second', sent }]);
    expect(snapshot().matches({ entering: { expiry: 'running', resend: 'cooling' } })).toBe(true);
    clock.increment(44_000);
    expect(snapshot().matches({ entering: { resend: 'cooling' } })).toBe(true);
    clock.increment(2_000);
    expect(snapshot().matches({ entering: { resend: 'ready' } })).toBe(true);
  });

  it('refuses a new code while the CAPTCHA is unsolved, and keeps the old code when a new one cannot be sent', async () => {
    let sends = 0;
    const { clock, toParent, snapshot, send } = start({
      sendCode: async () => {
        sends++;
        throw apiFailure(503, { code: 'delivery_failed', message: '' });
      },
    });
    clock.increment(31_000);
    send({ type: 'RESEND', captcha: { error: { code: 'captcha_not_loaded' } } });
    await settle();
    expect(sends).toBe(0);
    expect(snapshot().context.error).toEqual({ code: 'captcha_not_loaded' });
    send({ type: 'RESEND' });
    await settle();
    expect(sends).toBe(1);
    expect(snapshot().context).toMatchObject({ ticket: 'payload', error: { code: 'delivery_failed' } });
    expect(snapshot().matches({ entering: { resend: 'ready', expiry: 'running' } })).toBe(true);
    expect(toParent).toEqual([]);
  });

  it('ends when a new code fails in a way the flow named (the flow expired)', async () => {
    const { clock, toParent, send } = start({
      endsOn: ['onboarding_expired'],
      sendCode: refuses(410, { code: 'onboarding_expired', message: '' }),
    });
    clock.increment(31_000);
    send({ type: 'RESEND' });
    await settle();
    expect(toParent).toEqual([expiredEnd]);
  });

  it('has neither timer nor resend for a code nobody sent (authenticator, recovery key, card), nor one the flow cannot send again', async () => {
    const { clock, toParent, snapshot, send } = start({ sent: null, length: 6 });
    expect(snapshot().matches({ entering: { expiry: 'untimed', resend: 'unavailable' } })).toBe(true);
    clock.increment(1_000_000);
    send({ type: 'RESEND' });
    await settle();
    expect(toParent).toEqual([]);
    expect(snapshot().matches({ entering: { expiry: 'untimed' } })).toBe(true);
    const noRequest = start({ resend: null });
    expect(noRequest.snapshot().matches({ entering: { expiry: 'running', resend: 'unavailable' } })).toBe(true);
  });

  it('keeps letters and digits only, submits only a complete code, and shows a wrong code until typing', async () => {
    let calls = 0;
    const { snapshot, send } = start({
      check: async () => {
        calls++;
        throw apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' });
      },
    });
    send({ type: 'TYPE', value: '12 34-56' });
    expect(snapshot().context.code).toBe('123456');
    send({ type: 'SUBMIT' });
    expect(calls).toBe(0);
    send({ type: 'TYPE', value: '1234567890' });
    expect(snapshot().context.code).toBe('12345678');
    send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toBe(1);
    expect(snapshot().context.error).toEqual({ code: 'invalid_code' });
    send({ type: 'TYPE', value: '1234567' });
    expect(snapshot().context.error).toBeNull();
  });

  it('sends a code typed or pasted whole by itself, spaces and dashes dropped, and a wrong one not again by a key more', async () => {
    const codes: string[] = [];
    const { snapshot, send } = start({
      check: async ({ code }) => {
        codes.push(code);
        throw apiFailure(422, { code: 'invalid_code', message: '' });
      },
    });
    send({ type: 'TYPE', value: '1234 567' });
    expect(snapshot().matches({ entering: { input: 'typing' } })).toBe(true);
    send({ type: 'TYPE', value: '1234 - 5678' });
    expect(snapshot().matches({ entering: { input: 'checking' } })).toBe(true);
    // Pressed again while it is checked: nothing more goes.
    send({ type: 'SUBMIT' });
    await settle();
    expect(codes).toEqual(['12345678']);
    expect(snapshot().context.error).toEqual({ code: 'invalid_code' });
    // A key pressed after the wrong code leaves it as it was: not sent again (Enter still sends it).
    send({ type: 'TYPE', value: '1234 56789' });
    await settle();
    expect(codes).toEqual(['12345678']);
    send({ type: 'TYPE', value: '1234 567' });
    send({ type: 'TYPE', value: '1234 5679' });
    await settle();
    expect(codes).toEqual(['12345678', '12345679']);
    send({ type: 'SUBMIT' });
    await settle();
    expect(codes).toEqual(['12345678', '12345679', '12345679']);
  });

  it('says a code confirmed before it is whole is too short, and sends nothing', async () => {
    let calls = 0;
    const { snapshot, send } = start({
      check: async () => {
        calls++;
        return {};
      },
    });
    send({ type: 'SUBMIT' });
    expect(snapshot().context.error).toEqual({ code: 'code_incomplete' });
    send({ type: 'TYPE', value: '1234' });
    expect(snapshot().context.error).toBeNull();
    send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toBe(0);
    expect(snapshot().context.error).toEqual({ code: 'code_incomplete' });
  });

  it('waits for the confirmation of a whole code once the server wants a puzzle with it', async () => {
    const sent: unknown[] = [];
    const { snapshot, send } = start({
      check: async (input) => {
        sent.push(input);
        throw apiFailure(422, { code: 'invalid_code', message: '', captcha: true, captcha_level: 1 });
      },
    });
    send({ type: 'TYPE', value: '12345678' });
    await settle();
    expect(snapshot().context.captchaLevel).toBe(1);
    send({ type: 'TYPE', value: '87654321' });
    await settle();
    expect(sent).toHaveLength(1);
    expect(snapshot().matches({ entering: { input: 'typing' } })).toBe(true);
    send({ type: 'SUBMIT', captcha: { token: 'solved' } });
    await settle();
    expect(sent).toEqual([
      expect.objectContaining({ code: '12345678' }),
      expect.objectContaining({ code: '87654321', captcha: 'solved' }),
    ]);
  });

  it('ends with the check answer and the trust choice sent', async () => {
    let seen: unknown = null;
    const { toParent, send } = start({
      check: async (input) => {
        seen = input;
        return { access_token: 'tok' };
      },
    });
    send({ type: 'TOGGLE_REMEMBER' });
    send({ type: 'TYPE', value: '12345678' });
    send({ type: 'SUBMIT' });
    await settle();
    expect(seen).toEqual({ ticket: 'payload', code: '12345678', remember: true, captcha: null });
    expect(toParent).toEqual([{ done: { result: { access_token: 'tok' }, failure: null } }]);
  });

  it('ends with the failure for a problem the flow named, and lets the person retry any other', async () => {
    let answer = 'invalid_code';
    const { toParent, snapshot, send } = start({
      endsOn: ['onboarding_expired'],
      check: async () => {
        throw apiFailure(410, { code: answer, message: '' });
      },
    });
    send({ type: 'TYPE', value: '12345678' });
    send({ type: 'SUBMIT' });
    await settle();
    expect(snapshot().matches({ entering: { input: 'typing' } })).toBe(true);
    answer = 'onboarding_expired';
    send({ type: 'SUBMIT' });
    await settle();
    // The answer's body goes along: a flow reads what it carries besides the error (a merge offer).
    expect(toParent).toEqual([expiredEnd]);
  });

  it('once the server wants a puzzle with each code, shows it at its level and sends its answer with the code', async () => {
    const seen: unknown[] = [];
    let answer: 'puzzle' | 'ok' = 'puzzle';
    const { toParent, snapshot, send } = start({
      check: async (input) => {
        seen.push(input);
        if (answer === 'puzzle')
          throw apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 2 });
        return { access_token: 'tok' };
      },
    });
    expect(snapshot().context.captchaLevel).toBeNull();
    send({ type: 'TYPE', value: '12345678' });
    send({ type: 'SUBMIT' });
    await settle();
    expect(snapshot().context).toMatchObject({ captchaLevel: 2, error: { code: 'captcha_required' } });
    // Without a solution the code is not sent; the widget's problem shows instead.
    send({ type: 'SUBMIT', captcha: { error: { code: 'captcha_not_loaded' } } });
    await settle();
    expect(seen).toHaveLength(1);
    expect(snapshot().context.error).toEqual({ code: 'captcha_not_loaded' });
    answer = 'ok';
    send({ type: 'SUBMIT', captcha: { token: 'solved-at-2' } });
    await settle();
    expect(seen.at(-1)).toEqual({ ticket: 'payload', code: '12345678', remember: false, captcha: 'solved-at-2' });
    expect(toParent).toEqual([{ done: { result: { access_token: 'tok' }, failure: null } }]);
  });

  describe('how the code is getting there', () => {
    /** A delivery the server might answer, recording each ask's ticket. */
    function server(answers: CodeDelivery[]) {
      const asked: string[] = [];
      return {
        asked,
        askDelivery: async ({ ticket }: { ticket: string }) => {
          asked.push(ticket);
          const answer = answers[Math.min(asked.length, answers.length) - 1];
          if (!answer) throw apiFailure(404, { code: 'not_found', message: '' });
          return answer;
        },
      };
    }
    const fellBack: CodeDelivery = { channel: 'sms', status: 'sent', fell_back_from: 'whatsapp' };

    it('asks every 5 s while the code is typed, keeps what it heard, and stops once the code arrived', async () => {
      const peer = server([
        { channel: 'whatsapp', status: 'sending', fell_back_from: null },
        fellBack,
        { ...fellBack, status: 'delivered' },
      ]);
      const { clock, snapshot, send } = start({ followsDelivery: true, askDelivery: peer.askDelivery });
      clock.increment(DELIVERY_ASK_MS - 1);
      await settle();
      expect(peer.asked).toEqual([]);
      clock.increment(1);
      await settle();
      expect(peer.asked).toEqual(['payload']);
      expect(snapshot().context.delivery).toEqual({ channel: 'whatsapp', status: 'sending', fell_back_from: null });
      // Typing goes on meanwhile.
      send({ type: 'TYPE', value: '1234' });
      clock.increment(DELIVERY_ASK_MS);
      await settle();
      expect(snapshot().context.delivery).toEqual(fellBack);
      clock.increment(DELIVERY_ASK_MS);
      await settle();
      expect(peer.asked).toHaveLength(3);
      expect(snapshot().context.delivery).toEqual({ ...fellBack, status: 'delivered' });
      expect(snapshot().context.code).toBe('1234');
      clock.increment(10 * DELIVERY_ASK_MS);
      await settle();
      expect(peer.asked).toHaveLength(3);
    });

    it('never asks where the flow says not (a forgotten password), nor for a code nobody sent', async () => {
      const peer = server([fellBack]);
      const reset = start({ askDelivery: peer.askDelivery });
      const authenticator = start({ followsDelivery: true, sent: null, length: 6, askDelivery: peer.askDelivery });
      for (const { clock } of [reset, authenticator]) clock.increment(60_000);
      await settle();
      expect(peer.asked).toEqual([]);
      expect(reset.snapshot().context.delivery).toBeNull();
    });

    it('stops without a word at a failed ask (an unknown code, the network)', async () => {
      const peer = server([]);
      const { clock, snapshot } = start({ followsDelivery: true, askDelivery: peer.askDelivery });
      clock.increment(DELIVERY_ASK_MS);
      await settle();
      clock.increment(10 * DELIVERY_ASK_MS);
      await settle();
      expect(peer.asked).toHaveLength(1);
      expect(snapshot().context).toMatchObject({ delivery: null, error: null });
    });

    it('stops once the code expired, and once it is spent', async () => {
      const peer = server([fellBack]);
      const expiring = start({
        followsDelivery: true,
        sent: { ...sentAt(Date.now()), expiresAt: Date.now() + 7_000 },
        askDelivery: peer.askDelivery,
      });
      expiring.clock.increment(DELIVERY_ASK_MS);
      await settle();
      expiring.clock.increment(DELIVERY_ASK_MS);
      await settle();
      expiring.clock.increment(10 * DELIVERY_ASK_MS);
      await settle();
      expect(peer.asked).toHaveLength(1);
      const spent = start({ followsDelivery: true, askDelivery: peer.askDelivery });
      spent.send({ type: 'TYPE', value: '12345678' });
      await settle();
      expect(spent.snapshot().status).toBe('done');
      spent.clock.increment(10 * DELIVERY_ASK_MS);
      await settle();
      expect(peer.asked).toHaveLength(1);
    });

    it('asks of a new code by its own ticket, forgetting what was heard of the one before', async () => {
      const peer = server([fellBack]);
      const { clock, snapshot, send } = start({ followsDelivery: true, askDelivery: peer.askDelivery });
      clock.increment(DELIVERY_ASK_MS);
      await settle();
      expect(snapshot().context.delivery).toEqual(fellBack);
      clock.increment(31_000 - DELIVERY_ASK_MS);
      send({ type: 'RESEND' });
      await settle();
      expect(snapshot().context).toMatchObject({ ticket: 'new', delivery: null });
      clock.increment(DELIVERY_ASK_MS);
      await settle();
      expect(peer.asked.at(-1)).toBe('new');
    });
  });

  it('shows from the start a problem the flow passed in (a new code that could not be sent)', () => {
    const { snapshot } = start({ error: { code: 'resend_too_soon' } });
    expect(snapshot().context.error).toEqual({ code: 'resend_too_soon' });
  });
});

describe('the timers of a sent code', () => {
  it('prefer seconds to go over instants, which a wrong browser clock would skew', () => {
    const now = 1_000_000;
    expect(
      sentCodeOf({ target: 't', expires_in: 900, resend_in: 30, expires_at: '2000-01-01T00:00:00Z' }, now),
    ).toEqual({ target: 't', expiresAt: now + 900_000, resendAt: now + 30_000 });
    expect(sentCodeOf({ expires_at: '2030-01-01T00:00:00.000Z' }, now)).toEqual({
      target: null,
      expiresAt: Date.parse('2030-01-01T00:00:00.000Z'),
      resendAt: null,
    });
  });
});

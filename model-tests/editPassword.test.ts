import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { ChangePasswordAnswer } from '../contract/schemas.ts';
import { changeMachine, editPasswordMachine, type PasswordChange } from '../machines/editPassword.ts';
import { report, walkFrom } from './coverage.ts';
import { editPasswordModel, input } from './editPassword.model.ts';
import { settle } from './events.ts';

const NEW = 'Brand-new-pass-77';

describe('edit password machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(editPasswordModel);
    console.info(report('editPassword', result));
    expect(result.missing).toEqual([]);
  });
});

describe('edit password machine: behaviour', () => {
  function start(
    answer: (change: PasswordChange & { password: string; captcha?: string }) => Promise<ChangePasswordAnswer>,
  ) {
    const sent: Array<PasswordChange & { password: string; confirmation: string; captcha?: string }> = [];
    const actor = createActor(
      editPasswordMachine.provide({
        actors: {
          newPassword: changeMachine.provide({
            actors: {
              resetPassword: fromPromise(async ({ input: call }) => {
                const change = {
                  ...call.payload,
                  password: call.password,
                  confirmation: call.confirmation,
                  ...(call.captcha ? { captcha: call.captcha } : {}),
                };
                sent.push(change);
                return answer(change);
              }),
            },
          }),
        },
      }),
      { input },
    ).start();
    const type = (current: string, password = NEW, confirmation = password) => {
      actor.send({ type: 'CURRENT', value: current });
      actor.getSnapshot().children.newPassword!.send({ type: 'CHANGE', field: 'password', value: password });
      actor.getSnapshot().children.newPassword!.send({ type: 'CHANGE', field: 'confirmation', value: confirmation });
    };
    return { actor, sent, type };
  }

  it('asks for the current password before sending anything', () => {
    const { actor, sent, type } = start(async () => ({ session_ended: false }));
    type('');
    actor.send({ type: 'SUBMIT' });
    expect(actor.getSnapshot().context.currentMissing).toBe(true);
    expect(sent).toEqual([]);
    actor.send({ type: 'CURRENT', value: 'x' });
    expect(actor.getSnapshot().context.currentMissing).toBe(false);
  });

  it('sends nothing while the new password breaks a rule: the checklist says which', () => {
    const { actor, sent, type } = start(async () => ({ session_ended: false }));
    type('Tessera-demo-2026!', 'short');
    actor.send({ type: 'SUBMIT' });
    expect(sent).toEqual([]);
    expect(actor.getSnapshot().children.newPassword!.getSnapshot().context.refused).toBe('too_short');
  });

  it('sends the current password and the choice to stay signed in with the new one, then shows the notice', async () => {
    const { actor, sent, type } = start(async () => ({ session_ended: false }));
    type('Tessera-demo-2026!');
    actor.send({ type: 'KEEP', value: true });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(sent).toEqual([{ current: 'Tessera-demo-2026!', keepThisSession: true, password: NEW, confirmation: NEW }]);
    expect(actor.getSnapshot().value).toBe('changed');
    expect(actor.getSnapshot().context.current).toBe('');
    // The flow is over, this session still signed in: the root keeps the person where they are.
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toEqual({ sessionEnded: false });
  });

  it('ends when this session ended too: the root signs the person out', async () => {
    const { actor, sent, type } = start(async () => ({ session_ended: true }));
    type('Tessera-demo-2026!');
    actor.send({ type: 'KEEP', value: false });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(sent[0]!.keepThisSession).toBe(false);
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toEqual({ sessionEnded: true });
  });

  it("keeps the form with the server's refusal, and sends the corrected current password next", async () => {
    let attempt = 0;
    const { actor, sent, type } = start(async () => {
      attempt += 1;
      if (attempt === 1) throw apiFailure(422, { code: 'wrong_current_password' });
      return { session_ended: false };
    });
    type('Wrong-one-1');
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().value).toBe('editing');
    expect(actor.getSnapshot().children.newPassword!.getSnapshot().context.error).toMatchObject({
      code: 'wrong_current_password',
    });
    actor.send({ type: 'CURRENT', value: 'Tessera-demo-2026!' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(sent.map((s) => s.current)).toEqual(['Wrong-one-1', 'Tessera-demo-2026!']);
    expect(actor.getSnapshot().value).toBe('changed');
  });

  it("past the account's ceiling, shows the puzzle at the level named and sends its solution with the current password", async () => {
    let answer: 'wrong' | 'puzzle' | 'ok' = 'wrong';
    const { actor, sent, type } = start(async () => {
      // The wrong password that crosses the ceiling says so; then even the right one needs the puzzle.
      if (answer === 'wrong')
        throw apiFailure(400, { code: 'wrong_current_password', message: '', captcha: true, captcha_level: 1 });
      if (answer === 'puzzle')
        throw apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 2 });
      return { session_ended: false };
    });
    const child = () => actor.getSnapshot().children.newPassword!.getSnapshot().context;
    type('Wrong-one-1');
    expect(child().captchaLevel).toBeNull();
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(child()).toMatchObject({ captchaLevel: 1, error: { code: 'wrong_current_password' } });
    answer = 'puzzle';
    actor.send({ type: 'CURRENT', value: 'Tessera-demo-2026!' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-1' } });
    await settle();
    expect(child()).toMatchObject({ captchaLevel: 2, error: { code: 'captcha_required' } });
    // Without a solution nothing is sent: the widget's problem shows instead, and the form stays.
    actor.send({ type: 'SUBMIT', captcha: { error: { code: 'captcha_not_loaded' } } });
    await settle();
    expect(sent).toHaveLength(2);
    expect(child()).toMatchObject({ error: { code: 'captcha_not_loaded' }, password: NEW });
    answer = 'ok';
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-2' } });
    await settle();
    expect(sent.map((s) => [s.current, s.captcha])).toEqual([
      ['Wrong-one-1', undefined],
      ['Tessera-demo-2026!', 'solved-at-1'],
      ['Tessera-demo-2026!', 'solved-at-2'],
    ]);
    expect(actor.getSnapshot().value).toBe('changed');
  });
});

import { describe, expect, it } from 'vitest';
import { report, walkFrom } from './coverage.ts';
import { forgotUsernameModel } from './forgotUsername.model.ts';

describe('forgotten username machine: model', () => {
  it('takes every declared transition; a malformed number never reaches the server', () => {
    const result = walkFrom(forgotUsernameModel);
    console.info(report('forgotUsername', result));
    expect(result.missing).toEqual([]);
  });
});

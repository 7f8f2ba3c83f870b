import { describe, expect, it } from 'vitest';
import { cutLog } from './logs.ts';

describe('cutting a log read', () => {
  it('keeps everything when neither limit was reached', () => {
    expect(cutLog('a\nb\n', 2, 100)).toEqual({
      text: 'a\nb\n',
      truncated: false,
      bytes: 4,
    });
  });

  it('drops the extra line read to tell that the tail cut something', () => {
    expect(cutLog('a\nb\nc\n', 2, 100)).toMatchObject({ text: 'b\nc\n', truncated: true });
  });

  it('says the byte limit cut it when the read filled the budget, and spends no more than the budget', () => {
    expect(cutLog('a\nbb', 5, 4)).toEqual({ text: 'a\nbb', truncated: true, bytes: 4 });
  });

  it('keeps an empty read empty', () => {
    expect(cutLog('', 5, 10)).toEqual({ text: '', truncated: false, bytes: 0 });
  });
});

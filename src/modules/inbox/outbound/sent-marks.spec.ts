import { describe, expect, it } from '@jest/globals';
import { SentMarks } from './sent-marks';

/** A SentMarks whose writes are recorded (each write: the marks it held). */
function recorder(waitMs: number) {
  const writes: string[][] = [];
  const marks = new SentMarks<string, string>(async (list) => {
    writes.push([...list]);
    return list.map((m) => `${m}:ok`);
  }, waitMs);
  return { marks, writes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SentMarks: the SENT marks of one group job, written together', () => {
  it('writes once every slot has handed its mark over, in one write, each with its own result', async () => {
    const { marks, writes } = recorder(10_000);
    const [a, b, c] = [marks.slot(), marks.slot(), marks.slot()];
    const results = Promise.all([a.mark('a'), b.mark('b'), c.mark('c')]);
    expect(await results).toEqual(['a:ok', 'b:ok', 'c:ok']);
    expect(writes).toEqual([['a', 'b', 'c']]);
  });

  it('a slot that leaves (failed send) is not waited for; leaving twice or after marking changes nothing', async () => {
    const { marks, writes } = recorder(10_000);
    const [a, b, c] = [marks.slot(), marks.slot(), marks.slot()];
    const first = a.mark('a');
    b.leave();
    b.leave();
    expect(writes).toEqual([]);
    const third = c.mark('c');
    expect(await Promise.all([first, third])).toEqual(['a:ok', 'c:ok']);
    a.leave();
    expect(writes).toEqual([['a', 'c']]);
    await expect(c.mark('again')).rejects.toThrow(/already/);
  });

  it('a slow send holds the others back at most the wait: they are written without it, it is written next', async () => {
    const { marks, writes } = recorder(30);
    const [a, b, slow] = [marks.slot(), marks.slot(), marks.slot()];
    const started = performance.now();
    const early = Promise.all([a.mark('a'), b.mark('b')]);
    expect(await early).toEqual(['a:ok', 'b:ok']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25); // the timer fired, not the last slot
    expect(writes).toEqual([['a', 'b']]);
    await sleep(40);
    expect(await slow.mark('slow')).toBe('slow:ok');
    expect(writes).toEqual([['a', 'b'], ['slow']]);
  });

  it('a failed write rejects every mark it held', async () => {
    const marks = new SentMarks<string, string>(() => Promise.reject(new Error('database gone')), 10_000);
    const [a, b] = [marks.slot(), marks.slot()];
    const results = Promise.allSettled([a.mark('a'), b.mark('b')]);
    expect((await results).map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});

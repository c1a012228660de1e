import { describe, expect, it } from 'vitest';
import { AFTER_ANSWER_MS, backgroundSettled, inBackground, streamedAnswer } from '../../src/lib/background';

// Work after the answer (src/lib/background.ts): `streamedAnswer` tells when the runtime has read
// the answer's body, `inBackground` runs work on waitUntil with its errors logged.

describe('streamedAnswer', () => {
  it('keeps status, headers and bytes, and resolves `answered` only once the whole body was read', async () => {
    const original = new Response(JSON.stringify({ success: true }), { status: 200, headers: { 'Content-Type': 'application/json', 'X-Thing': 'kept' } });
    const { response, answered } = await streamedAnswer(original);
    let done = false;
    void answered.then(() => (done = true));
    // Unread, a while later: the answer is not out, the work has not started.
    await new Promise((r) => setTimeout(r, AFTER_ANSWER_MS * 2));
    expect(done).toBe(false);

    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(response.headers.get('X-Thing')).toBe('kept');
    expect(await response.json()).toEqual({ success: true });
    await answered;
    expect(done).toBe(true);
  });
});

describe('inBackground', () => {
  it('hands the work to waitUntil, logs its failure instead of throwing it, and backgroundSettled waits for it', async () => {
    const handed: Promise<unknown>[] = [];
    const logged: string[] = [];
    const error = console.error;
    console.error = (line: string) => void logged.push(line);
    try {
      let finished = false;
      inBackground((p) => handed.push(p), { job: 'test' }, async () => {
        await new Promise((r) => setTimeout(r, 10));
        finished = true;
      });
      inBackground((p) => handed.push(p), { job: 'failing' }, async () => {
        throw new Error('boom');
      });
      expect(handed).toHaveLength(2);
      await backgroundSettled();
      expect(finished).toBe(true);
      await expect(Promise.all(handed)).resolves.toBeDefined();
      expect(logged.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ level: 'error', job: 'failing', message: 'boom' })]);
    } finally {
      console.error = error;
    }
  });
});

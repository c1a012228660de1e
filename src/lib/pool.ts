/**
 * Runs `task` for every item, at most `limit` at a time, in order of the items; resolves when all
 * have settled. A task that throws rejects the whole (tasks are expected to handle their errors).
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

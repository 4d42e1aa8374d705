// What the punctuality bench's workers (_scale_worker.ts, _croner_worker.ts) measure
// alike: the wait for an instant, and the CPU of each measured minute.

/** Resolves at `at` (epoch ms), at once when it has passed. */
export const until = (at: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/**
 * Waits through the minute slots `first`..`last` and returns the CPU ms of each, from 1 s
 * before its slot to 1 s before the next (`cpu0`: the CPU clock read 1 s before `first`).
 */
export async function cpuPerMinute(first: number, last: number, cpu0: NodeJS.CpuUsage): Promise<number[]> {
  const perMinute: number[] = [];
  let mark = cpu0;
  for (let at = first + 60_000; at <= last + 60_000; at += 60_000) {
    await until(at - 1_000);
    const now = process.cpuUsage();
    perMinute.push(Math.round((now.user - mark.user + now.system - mark.system) / 1000));
    mark = now;
  }
  return perMinute;
}

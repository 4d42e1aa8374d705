// The floor of the punctuality bench: croner in one process, no coordination, the same
// <jobs> no-op `* * * * *` jobs. Usage: _croner_worker.ts <jobs> <first slot> <minutes>
// Prints one JSON line: { lateness: number[], cpuMs, perMinute: number[] } (perMinute: the CPU ms
// of each measured minute, from 1 s before its slot, as _scale_worker.ts measures it).
import { Cron } from "croner";

const MIN = 60_000;
const [jobsText, firstText, minutesText] = process.argv.slice(2);
const first = Number(firstText);
const last = first + (Number(minutesText) - 1) * MIN;
const lateness: number[] = [];
const crons: Cron[] = [];
for (let i = 0; i < Number(jobsText); i++) {
  crons.push(
    new Cron("* * * * *", () => {
      const now = Date.now();
      const slot = Math.floor(now / MIN) * MIN;
      if (slot >= first && slot <= last) lateness.push(now - slot);
    }),
  );
}
const until = (at: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
await until(first - 1_000);
const cpu0 = process.cpuUsage();
const perMinute: number[] = [];
let mark = cpu0;
for (let at = first + MIN; at <= last + MIN; at += MIN) {
  await until(at - 1_000);
  const now = process.cpuUsage();
  perMinute.push(Math.round((now.user - mark.user + now.system - mark.system) / 1000));
  mark = now;
}
const cpu = process.cpuUsage(cpu0);
for (const c of crons) c.stop();
console.log(JSON.stringify({ lateness, cpuMs: (cpu.user + cpu.system) / 1000, perMinute }));

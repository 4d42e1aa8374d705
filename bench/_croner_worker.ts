// The floor of the punctuality bench: croner in one process, no coordination, the same
// <jobs> no-op `* * * * *` jobs. Usage: _croner_worker.ts <jobs> <first slot> <minutes>
// Prints one JSON line: { lateness: number[], cpuMs, perMinute: number[] } (perMinute: the CPU ms
// of each measured minute, from 1 s before its slot, as _scale_worker.ts measures it).
import { Cron } from "croner";
import { cpuPerMinute, until } from "./_minutes.ts";

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
await until(first - 1_000);
const cpu0 = process.cpuUsage();
const perMinute = await cpuPerMinute(first, last, cpu0);
const cpu = process.cpuUsage(cpu0);
for (const c of crons) c.stop();
console.log(JSON.stringify({ lateness, cpuMs: (cpu.user + cpu.system) / 1000, perMinute }));

/** The example worker's jobs, the same whichever store the worker uses. */
import type { Scheduler } from "../../src/mod.ts";

/** Registers the example jobs on `scheduler` and returns it. */
export function exampleJobs(scheduler: Scheduler): Scheduler {
  return scheduler
    .job("purge-expired", {
      schedule: "* * * * *",
      description: "Deletes expired upload links",
      timeout: "30s",
      run: ({ slot }) => console.log(`ran purge-expired slot=${new Date(slot).toISOString()}`),
    })
    .job("daily-digest", {
      schedule: "0 8 * * *",
      timezone: "Europe/Paris",
      description: "Sends the 08:00 Paris digest",
      retries: { attempts: 2 },
      run: ({ slot }) => console.log(`ran daily-digest slot=${new Date(slot).toISOString()}`),
    });
}

/** Shared settings of the libSQL store: the `edgecron_settings` table (migration 2). */
import { SchedulerError } from "../../core/errors.ts";
import { checkText } from "../_validate.ts";
import type { Store } from "../types.ts";
import type { LibsqlRunner } from "./defs.ts";

/** `getSetting` and `putSetting` over the store's `op` runner. */
export function libsqlSettings(op: LibsqlRunner): Pick<Store, "getSetting" | "putSetting"> {
  return {
    async getSetting(key): Promise<string | undefined> {
      checkText(key, "getSetting.key");
      const rows = await op("getSetting", async (c) => (await c.execute({ sql: "SELECT value FROM edgecron_settings WHERE key = ?", args: [key] })).rows);
      const value = rows[0]?.value;
      return value === undefined || value === null ? undefined : String(value);
    },
    async putSetting(key, value): Promise<void> {
      checkText(key, "putSetting.key");
      if (typeof value !== "string") throw new SchedulerError("invalid-spec", "putSetting.value: expected a string", { path: "putSetting.value" });
      await op("putSetting", (c) =>
        c.batch([{
          sql: "INSERT INTO edgecron_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          args: [key, value],
        }], "write"));
    },
  };
}

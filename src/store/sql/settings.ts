/**
 * Shared settings of the SQL stores (libSQL, D1): the `edgecron_settings` table
 * (migration 2), for small values every node reads, such as the session revocation
 * epoch of the security work. Same semantics as the port's getSetting / putSetting.
 */
import { checkSettingValue, checkText } from "../_validate.ts";
import type { SqlExecutor } from "./executor.ts";

/** The settings methods of a SQL store. */
export interface SqlSettings {
  /** A small shared setting; undefined when unset. */
  getSetting(key: string): Promise<string | undefined>;
  /** Sets a shared setting. */
  putSetting(key: string, value: string): Promise<void>;
}

/** `getSetting` and `putSetting` over `db`; `ready` runs before each call (init on first use). */
export function sqlSettings(db: SqlExecutor, ready: () => Promise<void>): SqlSettings {
  return {
    async getSetting(key): Promise<string | undefined> {
      checkText(key, "getSetting.key");
      await ready();
      const [result] = await db.read("getSetting", [{
        sql: "SELECT value FROM edgecron_settings WHERE key = ?",
        args: [key],
      }]);
      const value = result?.rows[0]?.value;
      return value === undefined || value === null ? undefined : String(value);
    },
    async putSetting(key, value): Promise<void> {
      checkText(key, "putSetting.key");
      checkSettingValue(value);
      await ready();
      await db.write("putSetting", [{
        sql:
          "INSERT INTO edgecron_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        args: [key, value],
      }]);
    },
  };
}

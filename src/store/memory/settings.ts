/** Shared settings of the memory store: a Map of small strings. */
import { checkSettingValue, checkText } from "../_validate.ts";
import type { Store } from "../types.ts";

/** `getSetting` and `putSetting` over a Map; `guard` throws while the store is set to fail. */
export function createMemorySettings(guard: (operation: string) => void): Pick<Store, "getSetting" | "putSetting"> {
  const settings = new Map<string, string>();
  return {
    async getSetting(key): Promise<string | undefined> {
      guard("getSetting");
      checkText(key, "getSetting.key");
      return settings.get(key);
    },
    async putSetting(key, value): Promise<void> {
      guard("putSetting");
      checkText(key, "putSetting.key");
      checkSettingValue(value);
      settings.set(key, value);
    },
  };
}

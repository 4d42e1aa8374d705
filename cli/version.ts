/** The package version the CLI reports; `scripts/exports.mjs` checks it equals package.json's. */
export const VERSION = "0.1.0";

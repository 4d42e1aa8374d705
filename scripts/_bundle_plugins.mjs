// esbuild plugins for the edge bundles of scripts/build.mjs: npm: imports for Deno, and
// smaller stand-ins for code the edge runtimes already have built in.
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/**
 * Rewrites the named packages to `npm:name@range/subpath` imports for Deno; `redirect`
 * maps a bare import to another subpath of the same package.
 */
export function denoNpm(names, redirect = {}) {
  const filter = new RegExp(`^(?:${names.map((n) => n.replace(/[/.@-]/g, "\\$&")).join("|")})(?:/.*)?$`);
  return {
    name: "deno-npm",
    setup(b) {
      b.onResolve({ filter }, (args) => {
        const path = redirect[args.path] ?? args.path;
        const name = names.find((n) => path === n || path.startsWith(`${n}/`));
        const range = pkg.dependencies[name];
        return { path: `npm:${name}@${range}${path.slice(name.length)}`, external: true };
      });
    },
  };
}

/** Resolves the bare `@libsql/client` (and its `/web` subpath) to its HTTP-only client. */
export const libsqlHttpOnly = {
  name: "libsql-http-only",
  setup(b) {
    b.onResolve(
      { filter: /^@libsql\/client(?:\/web)?$/ },
      (args) => b.resolve("@libsql/client/http", { kind: args.kind, resolveDir: args.resolveDir }),
    );
  },
};

/** The module that stands in for `jsbi` (tested against jsbi in test/adapters/build_test.ts). */
export const JSBI_NATIVE = `export default {
  BigInt: (x) => BigInt(x), toNumber: (x) => Number(x),
  add: (a, b) => a + b, subtract: (a, b) => a - b, multiply: (a, b) => a * b,
  divide: (a, b) => a / b, remainder: (a, b) => a % b, exponentiate: (a, b) => a ** b,
  unaryMinus: (a) => -a, bitwiseNot: (a) => ~a, bitwiseAnd: (a, b) => a & b,
  bitwiseOr: (a, b) => a | b, bitwiseXor: (a, b) => a ^ b,
  leftShift: (a, b) => a << b, signedRightShift: (a, b) => a >> b,
  equal: (a, b) => a === b, notEqual: (a, b) => a !== b,
  lessThan: (a, b) => a < b, lessThanOrEqual: (a, b) => a <= b,
  greaterThan: (a, b) => a > b, greaterThanOrEqual: (a, b) => a >= b,
  asIntN: (n, a) => BigInt.asIntN(n, a), asUintN: (n, a) => BigInt.asUintN(n, a),
};`;

/** The module that stands in for `js-base64` (tested against js-base64 too). */
export const BASE64_NATIVE = `export const Base64 = {
  fromUint8Array(bytes) {
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  },
  toUint8Array(base64) {
    const text = atob(base64.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  },
};`;

/**
 * Replaces `jsbi` (the Temporal polyfill's BigInt emulation, 27 KB minified) with the
 * native BigInt every target runtime has, as JSBI's authors intend once BigInt ships
 * (their Babel plugin does the same rewrite). Same results: JSBI mirrors BigInt exactly.
 */
export const jsbiNative = {
  name: "jsbi-native",
  setup(b) {
    b.onResolve({ filter: /^jsbi$/ }, () => ({ path: "jsbi", namespace: "jsbi-native" }));
    b.onLoad({ filter: /.*/, namespace: "jsbi-native" }, () => ({
      loader: "js",
      contents: JSBI_NATIVE,
    }));
  },
};

/**
 * Resolves the bare `hono` import to `hono/tiny`: the same `Hono` class with the
 * PatternRouter, which Hono recommends where bundle size matters (subpaths such as
 * `hono/cookie` are untouched).
 */
export const honoTiny = {
  name: "hono-tiny",
  setup(b) {
    b.onResolve(
      { filter: /^hono$/ },
      (args) => b.resolve("hono/tiny", { kind: args.kind, resolveDir: args.resolveDir }),
    );
  },
};

/**
 * Replaces `js-base64` (the libSQL client's blob encoding, 3.8 KB minified) with the
 * runtime's own `btoa`/`atob`; the two functions the client calls behave the same.
 */
export const base64Native = {
  name: "base64-native",
  setup(b) {
    b.onResolve({ filter: /^js-base64$/ }, () => ({ path: "js-base64", namespace: "base64-native" }));
    b.onLoad({ filter: /.*/, namespace: "base64-native" }, () => ({
      loader: "js",
      contents: BASE64_NATIVE,
    }));
  },
};

/**
 * Drops the indentation after each line break inside the template literals of the SQL
 * stores' statements (src/store/sql/): SQLite reads `\n` and `\n        ` alike, and the
 * bundles carried about 1.9 KB of it (0.2 KB gzipped). Comments and quoted strings are
 * skipped; those files have no regular expression with a quote, slash pair or backtick.
 */
export function dropTemplateIndent(text) {
  let out = "";
  // What encloses the current position: "`" a template's text, "{" code inside `${}`.
  const stack = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (stack.at(-1) === "`") {
      if (c === "\\") {
        out += text.slice(i, i + 2);
        i += 2;
      } else if (c === "`") {
        stack.pop();
        out += c;
        i++;
      } else if (c === "$" && text[i + 1] === "{") {
        stack.push("{");
        out += "${";
        i += 2;
      } else if (c === "\n") {
        out += c;
        i++;
        while (text[i] === " " || text[i] === "\t") i++;
      } else {
        out += c;
        i++;
      }
      continue;
    }
    let end = i + 1;
    // A comment or string left open runs to the end of the text (never a loop without end).
    const to = (at) => (at === -1 ? text.length : at);
    if (c === "/" && text[i + 1] === "/") end = to(text.indexOf("\n", i));
    else if (c === "/" && text[i + 1] === "*") end = to(text.indexOf("*/", i + 2)) + 2;
    else if (c === '"' || c === "'") {
      while (end < text.length && text[end] !== c) end += text[end] === "\\" ? 2 : 1;
      end++;
    } else if (c === "`") stack.push("`");
    else if (c === "{" && stack.length > 0) stack.push("{");
    else if (c === "}" && stack.at(-1) === "{") stack.pop();
    out += text.slice(i, end);
    i = end;
  }
  return out;
}

/** {@link dropTemplateIndent} on the SQL stores' statements, for the edge bundles. */
export const sqlIndent = {
  name: "sql-indent",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]store[\\/]sql[\\/][^\\/]+\.ts$/ }, (args) => ({
      contents: dropTemplateIndent(readFileSync(args.path, "utf8")),
      loader: "ts",
    }));
  },
};

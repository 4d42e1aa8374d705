/** Character codes the cron parser reads (`text.charCodeAt(i)`), named. */

/** `\t`, the lowest of the ASCII whitespace codes `\s` matches (9-13). */
export const TAB = 9;
/** `\r`, the highest of the ASCII whitespace codes 9-13. */
export const RETURN = 13;
/** ` ` */
export const SPACE = 32;
/** `(` */
export const OPEN_PAREN = 40;
/** `*` */
export const STAR = 42;
/** `+` (OCPS day-of-week prefix for "and") */
export const PLUS = 43;
/** `,` */
export const COMMA = 44;
/** `/` */
export const SLASH = 47;
/** `0` */
export const DIGIT_0 = 48;
/** `@` (nickname prefix) */
export const AT = 64;
/** `H` (hashed value) */
export const H = 72;
/** `L` (last) */
export const L = 76;
/** `W` (weekday) */
export const W = 87;
/** Highest ASCII code. */
export const ASCII_MAX = 127;

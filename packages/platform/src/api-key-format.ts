/**
 * What any API key of this gateway looks like: generated keys are `sk-gw-` and 40 base62
 * characters, and an operator-chosen key (the stack's demo key) must fit the same mould. Edge
 * refuses anything else without asking ledger.
 */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{24,200}$/;
export const API_KEY_PATTERN_TEXT = "24-200 letters, digits, '_' or '-'";

// PostgreSQL text cannot hold U+0000, and text with a lone surrogate (half of a UTF-16 pair)
// is not valid UTF-8. Text that comes from outside, such as what a webhook receiver answers
// or an error quoting it, goes through here before it is stored, so that a hostile or broken
// answer cannot make the write that records it fail. (Invalid UTF-8 bytes already became
// U+FFFD when they were decoded into a string.)

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every character PostgreSQL text refuses replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

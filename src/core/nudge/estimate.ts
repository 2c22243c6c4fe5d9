/**
 * A rough token count for reporting a nudge's size: about four characters per
 * token (the usual figure for English text with common tokenizers), rounded
 * up. It is an estimate for logs and budgets of our own text, not a tokenizer.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

import { hasDuplicateKeys } from '../wire/duplicate-keys.js';

/**
 * True when JSON `text` names a key twice in some object (JSON.parse would read only the last
 * value, another reader the first: the text can be read two ways). False for text that is not
 * JSON: the caller's parser refuses that itself.
 */
export function jsonNamesKeyTwice(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  return hasDuplicateKeys(text, parsed);
}

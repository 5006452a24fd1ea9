import { bytesToHex } from 'viem';
import type { SigningField } from './types.ts';

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });
// Control characters other than tab, line feed and carriage return: such bytes are data, not text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The message as text when it is printable UTF-8, else as hex. */
export function describeMessage(bytes: Uint8Array): SigningField {
  let text: string | undefined;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && !CONTROL.test(text)) return { label: 'Message', value: text, format: 'text' };
  return { label: 'Message (hex)', value: bytesToHex(bytes), format: 'code' };
}

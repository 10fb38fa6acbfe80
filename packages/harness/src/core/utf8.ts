import { isUtf8 } from 'node:buffer';
import { itemAt } from './item-at.js';

/**
 * Offset of the first byte that is not valid UTF-8 (RFC 3629: no overlongs, surrogates or code points above
 * U+10FFFF; a truncated sequence counts from its lead byte), or -1 when every byte is valid. Suite files and
 * soclab's JSON bodies name this offset in their errors.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let i = 0;
  while (i < bytes.length) {
    const b = itemAt(bytes, i);
    let need = 0;
    let min = 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need > bytes.length - 1) return i; // truncated sequence at the end
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = itemAt(bytes, i + k);
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

import { createCipheriv, createDecipheriv } from 'node:crypto';

/**
 * Card key-in EncData: hex(AES-128-ECB, PKCS5 padding) with the ASCII bytes of the first
 * 16 characters of the merchant key as the cipher key (gateway-interface.md, Authentication).
 */
export function encryptEncData(plaintext: string, merchantKey: string): string {
  const cipher = createCipheriv('aes-128-ecb', cipherKey(merchantKey), null);
  return Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]).toString('hex');
}

/** Inverse of {@link encryptEncData}; accepts either hex case. Throws on bad padding or hex. */
export function decryptEncData(hex: string, merchantKey: string): string {
  if (!/^(?:[0-9a-fA-F]{32})+$/.test(hex)) throw new Error('EncData is not hex of whole AES blocks');
  const decipher = createDecipheriv('aes-128-ecb', cipherKey(merchantKey), null);
  return Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]).toString('utf8');
}

function cipherKey(merchantKey: string): Buffer {
  const key = Buffer.from(merchantKey.slice(0, 16), 'latin1');
  if (key.length !== 16) throw new Error('merchant key is shorter than 16 characters');
  return key;
}

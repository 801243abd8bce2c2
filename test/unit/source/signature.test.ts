// Reading `git verify-commit` as Argo CD reads it, and controller/state.go's verdicts in its words.
import { keyId, parseVerification, signatureVerdict } from '../../../src/source/signature.js';

const GOOD = `gpg: Signature made Fri Dec  4 01:00:00 2026 UTC
gpg:                using EDDSA key 0F6C3B9A52C1D8E47A2B4C1D9E8F7A6B5C4D3E2F
gpg: Good signature from "test <test@example.invalid>" [unknown]
`;
const sha = 'a'.repeat(40);

describe('commit signatures', () => {
  it('reads the cipher, the key and the status; nothing on stderr is an unsigned commit', () => {
    expect(parseVerification(GOOD)).toEqual({
      result: 'Good',
      cipher: 'EDDSA',
      keyId: '0F6C3B9A52C1D8E47A2B4C1D9E8F7A6B5C4D3E2F',
      message: 'gpg: Good signature from "test <test@example.invalid>" [unknown]',
    });
    expect(parseVerification('').result).toBe('Unsigned');
    expect(parseVerification(GOOD.replace('Good signature', 'BAD signature')).result).toBe('Invalid');
    expect(
      parseVerification("gpg: Signature made x\ngpg:                using RSA key 4AEE18F83AFDEB23\ngpg: Can't check signature: No public key\n").result,
    ).toBe('Unknown');
  });

  it('key IDs compare by their last 16 hex digits, as Argo CD KeyID', () => {
    expect(keyId('0f6c3b9a52c1d8e47a2b4c1d9e8f7a6b5c4d3e2f')).toBe('9E8F7A6B5C4D3E2F');
    expect(keyId('9E8F7A6B5C4D3E2F')).toBe('9E8F7A6B5C4D3E2F');
    expect(keyId('not-a-key')).toBe('');
  });

  it("gives Argo CD's verdicts: allowed key passes; unsigned, another key, invalid and unverifiable are refused in its words", () => {
    const good = parseVerification(GOOD);
    expect(signatureVerdict(sha, good, ['9E8F7A6B5C4D3E2F'])).toBeUndefined();
    expect(signatureVerdict(sha, good, ['4AEE18F83AFDEB23'])).toBe(
      'Found good signature made with EDDSA key 0F6C3B9A52C1D8E47A2B4C1D9E8F7A6B5C4D3E2F, but this key is not allowed in AppProject',
    );
    expect(signatureVerdict(sha, parseVerification(''), [])).toBe(`Target revision ${sha} in Git is not signed, but a signature is required`);
    expect(signatureVerdict(sha, parseVerification(GOOD.replace('Good signature', 'BAD signature')), ['9E8F7A6B5C4D3E2F'])).toBe(
      `Found signature made with EDDSA key 0F6C3B9A52C1D8E47A2B4C1D9E8F7A6B5C4D3E2F, but verification result was invalid: 'BAD signature from "test <test@example.invalid>" [unknown]'`,
    );
    expect(signatureVerdict(sha, parseVerification("gpg: Can't check signature: No public key"), [])).toBe(
      `Could not verify commit signature on revision '${sha}', check logs for more information.`,
    );
  });
});

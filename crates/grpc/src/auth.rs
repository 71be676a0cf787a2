//! Secrets: fresh random tokens and ids, the SHA-256 hashes the server keeps instead of
//! tokens, the tokens a repeated request gets again, and comparing hashes in constant time.

use sha2::{Digest, Sha256};

/// The SHA-256 of a token, as hex: what the store keeps instead of the token.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// The token a JoinSeat with `request_id` gets for `seat` of `match_id`: the same on every
/// repeat, so a lost reply does not lose the seat (the request id must be as secret as a token).
pub fn token_for_request(match_id: &str, seat: usize, request_id: &str) -> String {
    let mut hasher = Sha256::new();
    for part in [b"checkraise seat token".as_slice(), match_id.as_bytes()] {
        hasher.update(part);
        hasher.update([0]);
    }
    hasher.update(seat.to_le_bytes());
    hasher.update(request_id.as_bytes());
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares token hashes in time independent of where they differ.
pub(crate) fn hashes_equal(expected: &str, presented: &str) -> bool {
    let (a, b) = (expected.as_bytes(), presented.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `token` is the token whose hash is `hash` (compared in constant time).
pub fn token_matches(hash: &str, token: &str) -> bool {
    hashes_equal(hash, &token_hash(token))
}

/// A fresh secret: `bytes` random bytes from the operating system, as hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system provides randomness");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::{hashes_equal, token_for_request, token_hash};

    #[test]
    fn tokens_compare_exactly() {
        assert!(hashes_equal("abc", "abc"));
        assert!(!hashes_equal("abc", "abd"));
        assert!(!hashes_equal("abc", "ab"));
    }

    #[test]
    fn request_tokens_depend_on_every_part_and_only_hashes_are_kept() {
        let token = token_for_request("m", 0, "request-id-0123456789");
        assert_eq!(token, token_for_request("m", 0, "request-id-0123456789"));
        assert_ne!(token, token_for_request("m", 1, "request-id-0123456789"));
        assert_ne!(token, token_for_request("n", 0, "request-id-0123456789"));
        assert_ne!(token, token_for_request("m", 0, "request-id-0123456780"));
        assert_eq!(token_hash(&token).len(), 64);
        assert_ne!(token_hash(&token), token);
    }
}

//! Share links: the scenario text, compressed (LZW, 9–16-bit codes) and
//! written in URL-safe base64, goes into the page's URL fragment with the
//! step and the view, so a link opens exactly there. Nothing is sent
//! anywhere: the fragment never leaves the browser.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const MAX_BITS: u32 = 16;

/// Compresses bytes with LZW (codes start at 9 bits, grow to 16, then the
/// dictionary stops growing).
pub fn lzw_compress(data: &[u8]) -> Vec<u8> {
    use std::collections::HashMap;
    let mut dict: HashMap<(u32, u8), u32> = HashMap::new();
    let mut next = 256u32;
    let mut bits = 9u32;
    let mut out = BitWriter::default();
    let mut iter = data.iter();
    let Some(&first) = iter.next() else {
        return Vec::new();
    };
    let mut cur = first as u32;
    for &b in iter {
        if let Some(&code) = dict.get(&(cur, b)) {
            cur = code;
            continue;
        }
        out.write(cur, bits);
        if next < (1 << MAX_BITS) {
            dict.insert((cur, b), next);
            next += 1;
            if next > (1 << bits) && bits < MAX_BITS {
                bits += 1;
            }
        }
        cur = b as u32;
    }
    out.write(cur, bits);
    out.finish()
}

/// The largest scenario a share link may unpack to, in bytes (1 MiB). The
/// longest shipped scenario is a few tens of KB; a link that would unpack to
/// more is refused before it takes the memory (a few KB of LZW codes can
/// stand for gigabytes).
pub const MAX_UNPACKED_BYTES: usize = 1 << 20;

/// Why a packed scenario could not be unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnpackError {
    /// A code that names no dictionary entry.
    Damaged,
    /// It would unpack to more than the given limit.
    TooLarge,
}

/// Inverse of [`lzw_compress`], unpacking at most `limit` bytes. The
/// dictionary keeps each entry as (prefix code, last byte, length), not as a
/// copy of its bytes, so its memory is bounded by the number of codes
/// (2^16), whatever the input.
pub fn lzw_decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, UnpackError> {
    const NONE: u32 = u32::MAX;
    // (prefix, last byte, first byte, length) per code.
    let mut dict: Vec<(u32, u8, u8, u32)> =
        (0..256u32).map(|b| (NONE, b as u8, b as u8, 1)).collect();
    let mut reader = BitReader { data, pos: 0 };
    let mut bits = 9u32;
    let mut out: Vec<u8> = Vec::new();
    // Appends code `c`'s bytes: walk the prefix chain, then reverse in place.
    let emit =
        |dict: &[(u32, u8, u8, u32)], out: &mut Vec<u8>, c: u32| -> Result<(), UnpackError> {
            let len = dict[c as usize].3 as usize;
            if out.len() + len > limit {
                return Err(UnpackError::TooLarge);
            }
            let start = out.len();
            let mut at = c;
            while at != NONE {
                let (prefix, byte, _, _) = dict[at as usize];
                out.push(byte);
                at = prefix;
            }
            out[start..].reverse();
            Ok(())
        };
    let Some(first) = reader.read(bits) else {
        return Ok(out);
    };
    if first as usize >= dict.len() {
        return Err(UnpackError::Damaged);
    }
    emit(&dict, &mut out, first)?;
    let mut prev = first;
    let mut next = 256u32;
    loop {
        if next < (1 << MAX_BITS) && next + 1 > (1 << bits) && bits < MAX_BITS {
            bits += 1;
        }
        let Some(code) = reader.read(bits) else {
            break;
        };
        let first_byte = if (code as usize) < dict.len() {
            dict[code as usize].2
        } else if code as usize == dict.len() && next < (1 << MAX_BITS) {
            // The KwKwK case: the entry being defined, prev + prev's first byte.
            dict[prev as usize].2
        } else {
            return Err(UnpackError::Damaged);
        };
        if next < (1 << MAX_BITS) {
            let (_, _, pfirst, plen) = dict[prev as usize];
            dict.push((prev, first_byte, pfirst, plen + 1));
            next += 1;
        }
        emit(&dict, &mut out, code)?;
        prev = code;
    }
    Ok(out)
}

#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn write(&mut self, v: u32, bits: u32) {
        self.acc |= (v as u64) << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl BitReader<'_> {
    fn read(&mut self, bits: u32) -> Option<u32> {
        if self.pos + bits as usize > self.data.len() * 8 {
            return None;
        }
        let mut v = 0u32;
        for i in 0..bits as usize {
            let p = self.pos + i;
            if self.data[p / 8] >> (p % 8) & 1 == 1 {
                v |= 1 << i;
            }
        }
        self.pos += bits as usize;
        Some(v)
    }
}

pub fn base64url(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() * 4 / 3 + 3);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..chunk.len() + 1 {
            s.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    s
}

pub fn from_base64url(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let vals: Option<Vec<u32>> = s
        .bytes()
        .map(|c| ALPHABET.iter().position(|a| *a == c).map(|p| p as u32))
        .collect();
    let vals = vals?;
    for chunk in vals.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let mut n = 0u32;
        for (i, v) in chunk.iter().enumerate() {
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

/// The fragment value for a scenario's text.
pub fn pack(text: &str) -> String {
    base64url(&lzw_compress(text.as_bytes()))
}

/// The scenario text in a fragment value, or why it cannot be read.
pub fn unpack(s: &str) -> Result<String, String> {
    let bytes = from_base64url(s)
        .ok_or("the link's scenario is not valid base64url (was it cut short?)")?;
    let raw = lzw_decompress(&bytes, MAX_UNPACKED_BYTES).map_err(|e| match e {
        UnpackError::Damaged => {
            "the link's scenario is damaged (it does not decompress)".to_string()
        }
        UnpackError::TooLarge => format!(
            "the link's scenario is larger than {MAX_UNPACKED_BYTES} bytes, the most a link may carry"
        ),
    })?;
    String::from_utf8(raw).map_err(|_| "the link's scenario is not UTF-8 text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few KB of codes can stand for gigabytes (issue 18, item 3): the
    /// link is refused at the limit, with its dictionary bounded too.
    #[test]
    fn a_decompression_bomb_is_refused_at_the_limit() {
        let bomb = pack(&"a".repeat(3 * MAX_UNPACKED_BYTES));
        assert!(bomb.len() < 20_000, "{}", bomb.len());
        let e = unpack(&bomb).unwrap_err();
        assert!(e.contains("larger than 1048576 bytes"), "{e}");
        // The worst case for the dictionary: every code the entry just
        // defined (KwKwK), 2^16 times: the old copy-per-entry dictionary
        // needed about 2 GiB for it.
        let mut w = BitWriter::default();
        let mut bits = 9;
        w.write(b'a' as u32, bits);
        for code in 256u32..(1 << MAX_BITS) {
            if code + 1 > (1 << bits) && bits < MAX_BITS {
                bits += 1;
            }
            w.write(code, bits);
        }
        let worst = w.finish();
        assert_eq!(
            lzw_decompress(&worst, MAX_UNPACKED_BYTES),
            Err(UnpackError::TooLarge)
        );
        // At the limit exactly, a link still opens.
        let most = "ab".repeat(MAX_UNPACKED_BYTES / 2);
        assert_eq!(unpack(&pack(&most)).unwrap(), most);
    }

    /// Arbitrary bytes: never a panic, never more than the limit.
    #[test]
    fn arbitrary_bytes_decompress_within_the_limit_or_are_refused() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for case in 0..3000 {
            let n = case % 300;
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            if let Ok(v) = lzw_decompress(&bytes, 4096) {
                assert!(v.len() <= 4096);
            }
            let text = base64url(&bytes);
            let _ = unpack(&text);
        }
    }

    #[test]
    fn round_trips_and_compresses_json() {
        for text in [
            "",
            "a",
            "abababababababab",
            include_str!("../../scenarios/leader-failover.json"),
            include_str!("../../scenarios/group-rebalance.json"),
            "中文 and ✓ symbols",
        ] {
            let packed = pack(text);
            assert_eq!(unpack(&packed).unwrap(), text);
        }
        let big = include_str!("../../scenarios/group-rebalance.json");
        assert!(
            pack(big).len() < big.len(),
            "{} vs {}",
            pack(big).len(),
            big.len()
        );
        // A long input exercises the 16-bit codes and the full dictionary.
        let long: String = (0..20000)
            .map(|i| format!("{{\"k{}\":{}}}", i % 977, i))
            .collect();
        assert_eq!(unpack(&pack(&long)).unwrap(), long);
    }

    #[test]
    fn damaged_links_are_refused_not_panicked_on() {
        assert!(unpack("!!!").is_err());
        assert!(unpack("A").is_err());
        let mut p = pack(include_str!("../../scenarios/leader-failover.json"));
        p.truncate(p.len() / 2);
        // Cut short: either refused or decoded to a prefix, never a panic.
        let _ = unpack(&p);
        assert!(unpack("_____________").is_err() || unpack("_____________").is_ok());
    }
}

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

/// Reverses [`lzw_compress`]; `None` for data it cannot have written.
pub fn lzw_decompress(data: &[u8]) -> Option<Vec<u8>> {
    let mut reader = BitReader { data, pos: 0 };
    let mut dict: Vec<Vec<u8>> = (0..256u32).map(|b| vec![b as u8]).collect();
    let mut bits = 9u32;
    let mut out = Vec::new();
    let Some(first) = reader.read(bits) else {
        return Some(out);
    };
    let mut prev = dict.get(first as usize)?.clone();
    out.extend_from_slice(&prev);
    // The compressor grows its code width one code ahead of the decoder.
    let mut next = 256u32;
    loop {
        if next < (1 << MAX_BITS) && next + 1 > (1 << bits) && bits < MAX_BITS {
            bits += 1;
        }
        let Some(code) = reader.read(bits) else {
            break;
        };
        let entry = if (code as usize) < dict.len() {
            dict[code as usize].clone()
        } else if code as usize == dict.len() {
            let mut e = prev.clone();
            e.push(prev[0]);
            e
        } else {
            return None;
        };
        out.extend_from_slice(&entry);
        if next < (1 << MAX_BITS) {
            let mut e = prev.clone();
            e.push(entry[0]);
            dict.push(e);
            next += 1;
        }
        prev = entry;
    }
    Some(out)
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
    let raw =
        lzw_decompress(&bytes).ok_or("the link's scenario is damaged (it does not decompress)")?;
    String::from_utf8(raw).map_err(|_| "the link's scenario is not UTF-8 text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compresses_json() {
        for text in [
            "",
            "a",
            "abababababababab",
            include_str!("../scenarios/leader-failover.json"),
            include_str!("../scenarios/group-rebalance.json"),
            "中文 and ✓ symbols",
        ] {
            let packed = pack(text);
            assert_eq!(unpack(&packed).unwrap(), text);
        }
        let big = include_str!("../scenarios/group-rebalance.json");
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
        let mut p = pack(include_str!("../scenarios/leader-failover.json"));
        p.truncate(p.len() / 2);
        // Cut short: either refused or decoded to a prefix, never a panic.
        let _ = unpack(&p);
        assert!(unpack("_____________").is_err() || unpack("_____________").is_ok());
    }
}

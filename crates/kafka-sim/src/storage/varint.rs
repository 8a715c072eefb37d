//! Zig-zag variable-length integers, as Kafka's `ByteUtils.writeVarint` /
//! `writeVarlong` encode the fields of a v2 record (Protocol Buffers style).

use super::DecodeError;

pub fn write_varint(out: &mut Vec<u8>, v: i32) {
    write_varlong(out, v as i64)
}

pub fn write_varlong(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z & !0x7f != 0 {
        out.push(((z & 0x7f) | 0x80) as u8);
        z >>= 7;
    }
    out.push(z as u8);
}

/// Bytes `write_varlong(v)` takes.
pub fn varlong_size(v: i64) -> usize {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut n = 1;
    while z & !0x7f != 0 {
        n += 1;
        z >>= 7;
    }
    n
}

pub fn varint_size(v: i32) -> usize {
    varlong_size(v as i64)
}

/// A cursor over a byte slice that reports *which field* could not be read and
/// at which absolute position, so a corrupt file gets a precise message.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Absolute position of `buf[0]` in the file, for error messages.
    base: u64,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], base: u64) -> Reader<'a> {
        Reader { buf, pos: 0, base }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn err(&self, field: &'static str, message: impl Into<String>) -> DecodeError {
        DecodeError {
            position: self.base + self.pos as u64,
            field,
            message: message.into(),
        }
    }

    pub fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        if self.remaining() < n {
            return Err(self.err(
                field,
                format!("needs {n} bytes but only {} remain", self.remaining()),
            ));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn i8(&mut self, field: &'static str) -> Result<i8, DecodeError> {
        Ok(self.take(1, field)?[0] as i8)
    }
    pub fn i16(&mut self, field: &'static str) -> Result<i16, DecodeError> {
        let b = self.take(2, field)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }
    pub fn i32(&mut self, field: &'static str) -> Result<i32, DecodeError> {
        let b = self.take(4, field)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn u32(&mut self, field: &'static str) -> Result<u32, DecodeError> {
        Ok(self.i32(field)? as u32)
    }
    pub fn i64(&mut self, field: &'static str) -> Result<i64, DecodeError> {
        let b = self.take(8, field)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    pub fn varlong(&mut self, field: &'static str) -> Result<i64, DecodeError> {
        let mut z: u64 = 0;
        let mut shift = 0;
        loop {
            if shift >= 70 {
                return Err(self.err(field, "varint is longer than 10 bytes"));
            }
            let b = self.take(1, field)?[0];
            z |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    pub fn varint(&mut self, field: &'static str) -> Result<i32, DecodeError> {
        let start = self.pos;
        let v = self.varlong(field)?;
        if v < i32::MIN as i64 || v > i32::MAX as i64 {
            self.pos = start;
            return Err(self.err(field, format!("varint {v} does not fit in 32 bits")));
        }
        Ok(v as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_matches_kafka_examples() {
        // Kafka's ByteUtilsTest: 0 -> 00, -1 -> 01, 1 -> 02, 63 -> 7e, -64 -> 7f, 64 -> 80 01
        let cases: [(i64, &[u8]); 6] = [
            (0, &[0x00]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (63, &[0x7e]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
        ];
        for (v, bytes) in cases {
            let mut out = Vec::new();
            write_varlong(&mut out, v);
            assert_eq!(out, bytes, "{v}");
            assert_eq!(varlong_size(v), bytes.len());
            assert_eq!(Reader::new(bytes, 0).varlong("v").unwrap(), v);
        }
    }

    #[test]
    fn extremes_round_trip_and_truncation_is_reported() {
        for v in [i64::MIN, i64::MAX, i32::MIN as i64, i32::MAX as i64] {
            let mut out = Vec::new();
            write_varlong(&mut out, v);
            assert_eq!(Reader::new(&out, 0).varlong("v").unwrap(), v);
        }
        let e = Reader::new(&[0x80], 100).varint("keyLength").unwrap_err();
        assert_eq!(e.field, "keyLength");
        assert_eq!(e.position, 101);
    }
}

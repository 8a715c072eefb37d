//! Choosing a record's partition (P2), as Kafka's producer does.
//!
//! 1. A record that names its partition goes there.
//! 2. A record with a key goes to `toPositive(murmur2(keyBytes)) % numPartitions`
//!    — Kafka's murmur2, bit for bit, so a key lands on the same partition as
//!    with the Java client.
//! 3. A record without a key (or with `partitioner.ignore.keys`) goes to the
//!    current *sticky* partition (KIP-480/KIP-794): the producer stays on one
//!    partition until about `batch.size` bytes have gone to it, then picks
//!    another at random.
//!
//! `RoundRobinPartitioner` instead cycles through the partitions record by record.

use serde::{Deserialize, Serialize};

/// How the partitioner decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum PartitionChoice {
    /// The record named its partition.
    Explicit {
        /// The partition it named.
        partition: i32,
    },
    /// `toPositive(murmur2(key)) % numPartitions`.
    Key {
        /// `murmur2` of the key's bytes.
        murmur2: i32,
        /// `toPositive` of it (the sign bit cleared).
        positive: i32,
        /// The topic's partition count.
        num_partitions: i32,
        /// The result.
        partition: i32,
    },
    /// No key: the sticky partition, switched after `batch.size` bytes.
    Sticky {
        /// The partition the record goes to.
        partition: i32,
        /// Bytes produced to the sticky partition so far.
        produced_bytes: u64,
        /// `batch.size`: when the partition switches.
        batch_size: u64,
        /// The partition it switched from with this record, if it switched.
        switched_from: Option<i32>,
    },
    /// `RoundRobinPartitioner`.
    RoundRobin {
        /// The partition the record goes to.
        partition: i32,
        /// The topic's counter before this record.
        counter: u32,
    },
}

impl PartitionChoice {
    /// The partition chosen.
    pub fn partition(&self) -> i32 {
        match self {
            PartitionChoice::Explicit { partition }
            | PartitionChoice::Key { partition, .. }
            | PartitionChoice::Sticky { partition, .. }
            | PartitionChoice::RoundRobin { partition, .. } => *partition,
        }
    }
}

/// Kafka's `Utils.murmur2`: the signed 32-bit result Java returns.
pub fn murmur2(data: &[u8]) -> i32 {
    let length = data.len() as i32;
    let seed: u32 = 0x9747_b28c;
    let m: u32 = 0x5bd1_e995;
    let r = 24;
    let mut h: u32 = seed ^ (length as u32);
    let chunks = data.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(m);
        k ^= k >> r;
        k = k.wrapping_mul(m);
        h = h.wrapping_mul(m);
        h ^= k;
    }
    match rest.len() {
        3 => {
            h ^= (rest[2] as u32) << 16;
            h ^= (rest[1] as u32) << 8;
            h ^= rest[0] as u32;
            h = h.wrapping_mul(m);
        }
        2 => {
            h ^= (rest[1] as u32) << 8;
            h ^= rest[0] as u32;
            h = h.wrapping_mul(m);
        }
        1 => {
            h ^= rest[0] as u32;
            h = h.wrapping_mul(m);
        }
        _ => {}
    }
    h ^= h >> 13;
    h = h.wrapping_mul(m);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: clears the sign bit (not `abs`).
pub fn to_positive(n: i32) -> i32 {
    n & 0x7fff_ffff
}

/// The partition for a key (the default partitioner's keyed path).
pub fn partition_for_key(key: &[u8], num_partitions: i32) -> i32 {
    to_positive(murmur2(key)) % num_partitions
}

/// Java's `String.hashCode` (UTF-16 code units, wrapping 32-bit arithmetic).
pub fn java_string_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    for u in s.encode_utf16() {
        h = h.wrapping_mul(31).wrapping_add(u as i32);
    }
    h
}

/// Kafka's `Utils.abs`: `Math.abs`, except `Integer.MIN_VALUE` maps to 0.
pub fn kafka_abs(n: i32) -> i32 {
    if n == i32::MIN {
        0
    } else {
        n.abs()
    }
}

/// The `__consumer_offsets` partition that holds a group (its coordinator is
/// that partition's leader): `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`.
pub fn coordinator_partition(group_id: &str, offsets_partitions: i32) -> i32 {
    kafka_abs(java_string_hash(group_id)) % offsets_partitions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_reproduces_kafkas_utils_test() {
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (k, v) in cases {
            assert_eq!(murmur2(k), v, "{}", String::from_utf8_lossy(k));
        }
    }

    #[test]
    fn to_positive_clears_the_sign_bit() {
        assert_eq!(to_positive(-790_332_482), 1_357_151_166);
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(partition_for_key(b"foobar", 10), 6);
    }

    #[test]
    fn java_hash_code_and_abs() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        // Overflows wrap as in Java.
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(kafka_abs(i32::MIN), 0);
        assert_eq!(coordinator_partition("polygenelubricants", 50), 0);
        assert_eq!(coordinator_partition("hello", 50), 99_162_322 % 50);
    }
}
